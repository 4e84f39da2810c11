"""Running job rows inline (no worker) against the local OpenAI-compatible server."""

from __future__ import annotations

from generation.jobs import job_execute
from generation.models import GenerationJob, JobStatus
from generation.planning import ARCHITECTURE_STEPS, architecture_step_request, blueprint_window_request
from novels.models import Novel


def run_inline(job: GenerationJob) -> GenerationJob:
    job_execute(job_id=job.pk)
    job.refresh_from_db()
    return job


def plan_inline(novel: Novel, *, target_chapters: int = 25, **fields: object) -> Novel:
    """Architecture and the first blueprint window, through the real job handlers."""
    for name, value in {"target_chapters": target_chapters, **fields}.items():
        setattr(novel, name, value)
    novel.save()
    for part in ARCHITECTURE_STEPS:
        assert run_inline(architecture_step_request(novel=novel, part=part, enqueue=False)[0]).status == JobStatus.SUCCEEDED
    assert run_inline(blueprint_window_request(novel=novel, start=1, enqueue=False)[0]).status == JobStatus.SUCCEEDED
    return novel
