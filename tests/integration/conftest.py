"""Integration tests: a real Celery worker process, the real openai client over a
real socket to the local OpenAI-compatible server, and (in CI) PostgreSQL and Redis."""

from __future__ import annotations

from typing import Any

import pytest

STALE_SECONDS = 4


@pytest.fixture
def settings_llm_env(llm_worker_env: dict[str, str]) -> dict[str, str]:
    # A short heartbeat window so a killed worker's job is rescued in seconds.
    return {**llm_worker_env, "INKSTONE_JOB_STALE_SECONDS": str(STALE_SECONDS)}


@pytest.fixture
def book_novel(members: Any, use_fake_openai: Any) -> Any:
    from novels.services import novel_update

    return novel_update(novel=members.novel, target_chapters=60, target_chapter_length=1200, genre="mystery")


def wait_job(job_id: int, *, timeout: float = 240) -> Any:
    from generation.models import ACTIVE_STATUSES, GenerationJob, JobStatus
    from tests.worker import wait_for

    def done() -> Any:
        job = GenerationJob.objects.get(pk=job_id)
        return job if job.status not in ACTIVE_STATUSES or job.status == JobStatus.PAUSED else None

    return wait_for(done, timeout=timeout, what=f"job {job_id} to finish")
