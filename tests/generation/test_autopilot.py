"""Autopilot stops on a critical finding, on a failed step, and at the author's cap;
it can be paused and resumed, and resumes where it stopped."""

from __future__ import annotations

import json

import pytest

from generation.autopilot import autopilot_request
from generation.jobs import job_pause, job_resume
from generation.models import GenerationJob, JobKind, JobStatus
from novels.models import Chapter, ChapterStatus
from tests.fakeopenai import Reply
from tests.generation.inline import plan_inline, run_inline

pytestmark = pytest.mark.django_db(transaction=True)



@pytest.fixture
def planned(members, use_fake_openai):  # type: ignore[no-untyped-def]
    return plan_inline(members.novel)


def _finalized(novel) -> list[int]:  # type: ignore[no-untyped-def]
    return list(Chapter.objects.filter(novel=novel, status=ChapterStatus.FINALIZED).values_list("number", flat=True))


def test_token_cap_pauses_with_a_reason_and_resume_continues(planned):
    job = run_inline(autopilot_request(novel=planned, start=1, end=4, token_cap=1, enqueue=False)[0])
    assert job.status == JobStatus.PAUSED
    assert "cap was reached" in job.result["stop_reason"]
    assert _finalized(planned) == []
    GenerationJob.objects.filter(pk=job.pk).update(params={**job.params, "token_cap": 0})
    assert job_resume(job_id=job.pk, enqueue=False)
    job = run_inline(job)
    assert job.status == JobStatus.SUCCEEDED
    assert _finalized(planned) == [1, 2, 3, 4]
    assert list(Chapter.objects.filter(novel=planned, number__lte=4).values_list("finalize_count", flat=True)) == [1] * 4


def test_critical_finding_stops_before_finalizing(planned, use_fake_openai):
    critical = {"findings": [{"dimension": "consistency", "severity": "critical", "quote": "", "suggestion": "Mara is dead."}]}
    use_fake_openai.on_task("review", lambda context, default: json.dumps(critical) if context["chapter_number"] == 2 else None)
    job = run_inline(autopilot_request(novel=planned, start=1, end=3, enqueue=False)[0])
    assert job.status == JobStatus.PAUSED
    assert "Chapter 2 has a critical finding" in job.result["stop_reason"]
    assert _finalized(planned) == [1]


def test_failed_step_fails_the_autopilot_with_its_reason(planned, use_fake_openai):
    use_fake_openai.script(*[Reply.error(401, message="bad key")] * 3)
    job = run_inline(autopilot_request(novel=planned, start=1, end=2, enqueue=False)[0])
    assert job.status == JobStatus.FAILED
    assert "chapter 1" in job.error.lower()
    assert _finalized(planned) == []


def test_paused_autopilot_does_not_run_until_resumed(planned):
    job, _ = autopilot_request(novel=planned, start=1, end=2, enqueue=False)
    assert job_pause(job_id=job.pk)
    assert run_inline(job).status == JobStatus.PAUSED
    assert _finalized(planned) == []
    assert not GenerationJob.objects.filter(novel=planned, kind=JobKind.DRAFT).exists()
