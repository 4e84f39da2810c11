"""A real Celery worker process runs a task that writes to the database, and the test sees the row."""

from __future__ import annotations

import pytest

from generation.jobs import job_request
from generation.models import GenerationJob, JobKind, JobStatus
from tests.services import database_vendor, require_postgres, require_redis
from tests.worker import wait_for


def _run_probe(members, celery_worker) -> GenerationJob:  # type: ignore[no-untyped-def]
    job, created = job_request(novel=members.novel, kind=JobKind.PROBE, user=members.owner)
    assert created
    done = wait_for(
        lambda: GenerationJob.objects.filter(pk=job.pk, status=JobStatus.SUCCEEDED).first(),
        timeout=60,
        what="the worker to finish the probe job",
    )
    return done


@pytest.mark.worker
@pytest.mark.embedded
def test_worker_process_writes_row_that_test_sees(members, celery_worker):
    done = _run_probe(members, celery_worker)
    assert done.result["database"] == database_vendor()
    assert done.attempts == 1


@pytest.mark.worker
def test_worker_on_redis_writes_to_postgresql(members, celery_worker):
    require_postgres()
    require_redis()
    from django.conf import settings

    assert settings.BROKER_KIND == "redis"
    done = _run_probe(members, celery_worker)
    assert done.result["database"] == "postgresql"


@pytest.mark.django_db
def test_asking_twice_for_same_step_gives_one_job(members, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        first, created_first = job_request(novel=members.novel, kind=JobKind.PROBE)
        second, created_second = job_request(novel=members.novel, kind=JobKind.PROBE)
    assert (created_first, created_second) == (True, False)
    assert first.pk == second.pk
    assert GenerationJob.objects.filter(novel=members.novel).count() == 1
    assert len(callbacks) == 1
