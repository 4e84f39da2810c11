from __future__ import annotations

from celery import shared_task

from generation.jobs import job_execute


# acks_late is safe here: job_execute claims the row with a guarded write, so a
# redelivered message for a job that already ran finds nothing to do.
@shared_task(name="generation.job_run", acks_late=True, reject_on_worker_lost=True)
def job_run(job_id: int) -> None:
    job_execute(job_id=job_id)
