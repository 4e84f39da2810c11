"""Issue 5: the chapter loop through a real worker, the real openai client and (in CI)
PostgreSQL and Redis."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from generation.autopilot import autopilot_request
from generation.chapter_steps import cascade_request, chapter_finalize_request, chapter_text_edit
from generation.models import GenerationJob, JobKind, JobStatus, LLMCall
from generation.planning import ARCHITECTURE_STEPS, architecture_step_request, blueprint_window_request
from memory.context import context_assemble, retrieval_cache_clear
from memory.models import ChapterSummary, Fact, GlobalSummary, Passage, ThreadEvent
from novels.models import Chapter, ChapterStatus
from tests.integration.conftest import STALE_SECONDS, wait_job
from tests.worker import wait_for

pytestmark = [pytest.mark.worker]


def _plan(novel, windows: int = 1):  # type: ignore[no-untyped-def]
    for part in ARCHITECTURE_STEPS:
        job, _ = architecture_step_request(novel=novel, part=part)
        assert wait_job(job.pk).status == JobStatus.SUCCEEDED
    for i in range(windows):
        job, _ = blueprint_window_request(novel=novel, start=1 + 25 * i)
        assert wait_job(job.pk).status == JobStatus.SUCCEEDED


def _write(novel, start: int, end: int):  # type: ignore[no-untyped-def]
    job, _ = autopilot_request(novel=novel, start=start, end=end)
    done = wait_job(job.pk, timeout=900)
    assert done.status == JobStatus.SUCCEEDED, (done.error, done.result.get("stop_reason"))
    return done


def test_autopilot_writes_forty_chapters_within_budget(book_novel, celery_worker):
    novel = book_novel
    _plan(novel, windows=2)
    _write(novel, 1, 40)
    chapters = Chapter.objects.filter(novel=novel, number__lte=40)
    assert all(c.status == ChapterStatus.FINALIZED and c.finalize_count == 1 for c in chapters)
    drafts = GenerationJob.objects.filter(novel=novel, kind=JobKind.DRAFT, status=JobStatus.SUCCEEDED)
    assert drafts.count() == 40
    for job in drafts:
        snap = job.context_snapshot
        if job.chapter_number > 1:
            assert snap["used"] <= novel.memory_budget, (job.chapter_number, snap["used"])
            assert snap["previous_tail_chars"] <= 800
    # Per chapter: one draft, one review, at most two finalize calls — each recorded with tokens.
    for number in (5, 40):
        calls = LLMCall.objects.filter(job__novel=novel, job__chapter_number=number).exclude(job__kind=JobKind.AUTOPILOT)
        kinds = sorted(calls.values_list("job__kind", flat=True))
        assert kinds == ["draft", "finalize", "finalize", "review"], kinds
        assert all(c.tokens_in > 0 and c.tokens_out > 0 for c in calls)
    counts = []
    for number in (5, 40):
        retrieval_cache_clear()  # both measured cold: the index build is part of the count
        with CaptureQueriesContext(connection) as queries:
            context_assemble(novel=novel, chapter_number=number)
        counts.append(len(queries))
    assert counts[0] == counts[1], counts


def test_refinalize_twice_replaces_exactly_chapter_five_and_cascade_clears_flags(book_novel, celery_worker):
    novel = book_novel
    _plan(novel)
    _write(novel, 1, 8)
    before = Fact.objects.filter(novel=novel, source_chapter=5).count()
    chapter = Chapter.objects.get(novel=novel, number=5)
    chapter_text_edit(chapter=chapter, text=chapter.text + "\n\nThe keeper hid the brass key under the stair.", user=None)
    for _ in range(2):
        job, _ = chapter_finalize_request(novel=novel, number=5)
        assert wait_job(job.pk).status == JobStatus.SUCCEEDED
    chapter.refresh_from_db()
    assert chapter.status == ChapterStatus.FINALIZED
    assert ChapterSummary.objects.filter(novel=novel, chapter=5).count() == 1
    assert GlobalSummary.objects.filter(novel=novel, chapter=5).count() == 1
    assert Fact.objects.filter(novel=novel, source_chapter=5).count() == before
    assert Passage.objects.filter(novel=novel, chapter=5, text__contains="brass key").count() == 1
    flagged = list(Chapter.objects.filter(novel=novel, memory_stale=True).values_list("number", flat=True))
    assert flagged == [6, 7, 8]
    job, _ = cascade_request(novel=novel)
    done = wait_job(job.pk)
    assert done.status == JobStatus.SUCCEEDED and done.progress == 3
    assert not Chapter.objects.filter(novel=novel, memory_stale=True).exists()


def test_worker_killed_inside_finalize_transaction_leaves_no_partial_memory(book_novel, celery_worker, settings_llm_env):
    from tests.worker import WorkerProcess, worker_env

    novel = book_novel
    _plan(novel)
    _write(novel, 1, 2)
    Chapter.objects.filter(novel=novel, number=3).update(text="The keeper climbed the stair. " * 60, status=ChapterStatus.DRAFTED)
    celery_worker.stop()
    from django.conf import settings

    marker = settings.VAR_DIR / "faults" / "finalize_write.reached"
    marker.unlink(missing_ok=True)
    slow = WorkerProcess(queue=celery_worker.queue, env=worker_env(queue=celery_worker.queue, extra={
        **settings_llm_env, "INKSTONE_FAULT_POINTS": "finalize_write=sleep:60"}))
    slow.start()
    try:
        job, _ = chapter_finalize_request(novel=novel, number=3)
        wait_for(marker.exists, timeout=120, what="the worker to reach the middle of the finalize transaction")
        slow.kill()
    finally:
        slow.stop()
    # Nothing of chapter 3 reached the database.
    assert not ChapterSummary.objects.filter(novel=novel, chapter=3).exists()
    assert not Passage.objects.filter(novel=novel, chapter=3).exists()
    assert not Fact.objects.filter(novel=novel, source_chapter=3).exists()
    assert not ThreadEvent.objects.filter(thread__novel=novel, chapter=3).exists()
    assert Chapter.objects.get(novel=novel, number=3).status == ChapterStatus.DRAFTED
    assert GenerationJob.objects.get(pk=job.pk).status == JobStatus.RUNNING
    # A healthy worker notices the stale heartbeat and runs the job again.
    calls_before = LLMCall.objects.filter(job=job).count()
    celery_worker.start()
    done = wait_job(job.pk, timeout=STALE_SECONDS * 10 + 60)
    assert done.status == JobStatus.SUCCEEDED, done.error
    assert done.attempts == 2
    chapter = Chapter.objects.get(novel=novel, number=3)
    assert chapter.status == ChapterStatus.FINALIZED and chapter.finalize_count == 1
    assert ChapterSummary.objects.filter(novel=novel, chapter=3).count() == 1
    # The model's answers were kept on the job row: the retry did not pay for them again.
    assert LLMCall.objects.filter(job=job).count() == calls_before


def test_two_simultaneous_finalize_requests_finalize_once(book_novel, celery_worker):
    novel = book_novel
    _plan(novel)
    _write(novel, 1, 1)
    Chapter.objects.filter(novel=novel, number=2).update(text="The lamp went out at midnight. " * 60, status=ChapterStatus.DRAFTED)
    results: list[tuple[int, bool]] = []
    barrier = threading.Barrier(2)

    def request() -> None:
        from django.db import connection as thread_connection

        barrier.wait()
        try:
            job, created = chapter_finalize_request(novel=novel, number=2)
            results.append((job.pk, created))
        finally:
            thread_connection.close()

    threads = [threading.Thread(target=request) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({pk for pk, _ in results}) == 1
    assert sorted(created for _, created in results) == [False, True]
    assert wait_job(results[0][0]).status == JobStatus.SUCCEEDED
    time.sleep(1)
    chapter = Chapter.objects.get(novel=novel, number=2)
    assert chapter.finalize_count == 1
    assert GenerationJob.objects.filter(novel=novel, kind=JobKind.FINALIZE, chapter_number=2).count() == 1
