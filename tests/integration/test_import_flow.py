"""Issue 5, manuscript import: both corpora split right, and building their memory is a
resumable job that never finalizes a chapter twice, even when the worker is killed."""

from __future__ import annotations

from pathlib import Path

import pytest

from generation.autopilot import import_build_request
from generation.models import JobStatus
from memory.models import ChapterSummary, Passage
from novels.import_services import manuscript_import
from novels.models import Chapter, ChapterStatus
from tests.integration.conftest import STALE_SECONDS, wait_job
from tests.worker import wait_for

pytestmark = [pytest.mark.worker]

CORPORA = Path(__file__).resolve().parents[3] / "shared" / "corpora"


@pytest.mark.parametrize(
    ("name", "count", "first", "last"),
    [
        ("pride_and_prejudice.en.txt", 61, "Chapter 1", "Chapter 61"),
        ("sanguo_yanyi.zh.txt", 120, "宴桃园豪杰三结义", "降孙皓三分归一统"),
    ],
)
def test_corpus_imports_and_memory_is_built(name, count, first, last, members, use_fake_openai, celery_worker):
    result = manuscript_import(path=CORPORA / name, filename=name, owner=members.owner)
    novel = result.novel
    chapters = list(Chapter.objects.filter(novel=novel).order_by("number"))
    assert [c.number for c in chapters] == list(range(1, count + 1))
    assert first in result.first_title and last in result.last_title
    job, _ = import_build_request(novel=novel)
    done = wait_job(job.pk, timeout=900)
    assert done.status == JobStatus.SUCCEEDED, done.error
    assert done.progress == done.progress_total == count
    assert Chapter.objects.filter(novel=novel, status=ChapterStatus.FINALIZED, finalize_count=1).count() == count
    assert ChapterSummary.objects.filter(novel=novel).count() == count
    assert Passage.objects.filter(novel=novel).values("chapter").distinct().count() == count


def test_interrupted_import_resumes_without_finalizing_twice(members, use_fake_openai, celery_worker):
    name = "pride_and_prejudice.en.txt"
    novel = manuscript_import(path=CORPORA / name, filename=name, owner=members.owner).novel
    job, _ = import_build_request(novel=novel)
    wait_for(lambda: Chapter.objects.filter(novel=novel, status=ChapterStatus.FINALIZED).count() >= 5,
             timeout=300, what="five chapters to be finalized")
    celery_worker.kill()
    interrupted_at = Chapter.objects.filter(novel=novel, status=ChapterStatus.FINALIZED).count()
    assert interrupted_at < 61
    celery_worker.start()
    done = wait_job(job.pk, timeout=STALE_SECONDS * 10 + 900)
    assert done.status == JobStatus.SUCCEEDED, done.error
    assert done.attempts >= 2
    counts = list(Chapter.objects.filter(novel=novel).values_list("finalize_count", flat=True))
    assert counts == [1] * 61
