"""Issue 4: architecture and a 60-chapter blueprint in three rolling windows,
through a real worker and the real openai client."""

from __future__ import annotations

import pytest

from generation.models import GenerationJob, JobKind, JobStatus
from generation.planning import ARCHITECTURE_STEPS, architecture_step_request, blueprint_window_request
from memory.models import Character, Thread
from novels.models import Architecture, BlueprintCard, Chapter, ChapterStatus
from tests.integration.conftest import wait_job
from tests.services import require_postgres, require_redis

pytestmark = [pytest.mark.worker]


def _plan_architecture(novel):  # type: ignore[no-untyped-def]
    for part in ARCHITECTURE_STEPS:
        job, created = architecture_step_request(novel=novel, part=part)
        assert created
        done = wait_job(job.pk)
        assert done.status == JobStatus.SUCCEEDED, done.error


def test_sixty_chapter_blueprint_rolls_in_three_windows(book_novel, celery_worker, use_fake_openai):
    require_postgres()
    require_redis()
    novel = book_novel
    _plan_architecture(novel)
    architecture = Architecture.objects.get(novel=novel)
    assert all(getattr(architecture, p).strip() for p in ARCHITECTURE_STEPS)
    assert Character.objects.filter(novel=novel).count() >= 3

    first, _ = blueprint_window_request(novel=novel, start=1)
    assert wait_job(first.pk).status == JobStatus.SUCCEEDED
    assert list(BlueprintCard.objects.filter(novel=novel).values_list("number", flat=True)) == list(range(1, 26))

    # Writing up to chapter 20 (window end − 5) triggers the second window; 45 the third.
    from generation.autopilot import autopilot_request

    pilot, _ = autopilot_request(novel=novel, start=1, end=20)
    assert wait_job(pilot.pk, timeout=600).status == JobStatus.SUCCEEDED
    second = wait_job(GenerationJob.objects.get(novel=novel, kind=JobKind.BLUEPRINT, step="26").pk)
    assert second.status == JobStatus.SUCCEEDED
    pilot, _ = autopilot_request(novel=novel, start=21, end=45)
    assert wait_job(pilot.pk, timeout=900).status == JobStatus.SUCCEEDED
    third = wait_job(GenerationJob.objects.get(novel=novel, kind=JobKind.BLUEPRINT, step="51").pk)
    assert third.status == JobStatus.SUCCEEDED

    cards = list(BlueprintCard.objects.filter(novel=novel).order_by("number"))
    assert [c.number for c in cards] == list(range(1, 61))
    assert [c.window_start for c in cards] == [1] * 25 + [26] * 25 + [51] * 10
    # One planner call per window, never more than 25 chapters at once.
    windows = GenerationJob.objects.filter(novel=novel, kind=JobKind.BLUEPRINT, status=JobStatus.SUCCEEDED)
    assert sorted(int(j.step) for j in windows) == [1, 26, 51]
    for card in cards:
        assert card.title and card.position and card.core_function and card.brief
        assert 1 <= card.suspense_density <= 5 and 1 <= card.cognitive_twist <= 5
    planted = [op for c in cards for op in c.foreshadowing if op["op"] == "plant"]
    assert planted, "the plan plants foreshadowing"
    numbers = set(Thread.objects.filter(novel=novel).values_list("number", flat=True))
    for op in (op for c in cards for op in c.foreshadowing):
        assert op["thread"].startswith("#") and int(op["thread"][1:]) in numbers, op
    assert Chapter.objects.filter(novel=novel, status=ChapterStatus.FINALIZED).count() == 45
    # Windows are planned from real progress: the third saw the finalized chapters' global summary.
    third_request = [r for r in use_fake_openai.chat_requests() if r.body.get("inkstone_task") == "blueprint_window"][-1]
    assert third_request.body["inkstone_context"]["start"] == 51
    assert third_request.body["inkstone_context"]["global_summary"]


def test_cards_already_written_are_not_rewritten_without_asking(book_novel, celery_worker):
    novel = book_novel
    _plan_architecture(novel)
    first, _ = blueprint_window_request(novel=novel, start=1)
    assert wait_job(first.pk).status == JobStatus.SUCCEEDED
    BlueprintCard.objects.filter(novel=novel, number=3).update(title="The author's own title")
    again, created = blueprint_window_request(novel=novel, start=1)
    assert created
    assert wait_job(again.pk).status == JobStatus.SUCCEEDED
    assert BlueprintCard.objects.get(novel=novel, number=3).title == "The author's own title"
    replan, _ = blueprint_window_request(novel=novel, start=1, replan=True)
    assert wait_job(replan.pk).status == JobStatus.SUCCEEDED
    assert BlueprintCard.objects.get(novel=novel, number=3).title != "The author's own title"
