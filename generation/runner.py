"""Running a job from the shell: inline in this process, or through the worker while
following the row's progress. Either way the job row is the truth."""

from __future__ import annotations

import time
from collections.abc import Callable

from generation.jobs import job_execute
from generation.models import ACTIVE_STATUSES, GenerationJob, JobStatus


def job_run_and_wait(
    *,
    job: GenerationJob,
    via_worker: bool,
    timeout: float = 3600,
    on_progress: Callable[[GenerationJob], None] | None = None,
) -> GenerationJob:
    """The job must have been requested with enqueue=via_worker."""
    if job.status in (JobStatus.QUEUED, JobStatus.RUNNING) and not via_worker:
        # A running job is taken over only when its worker stopped beating (guarded claim).
        job_execute(job_id=job.pk)
    deadline = time.monotonic() + timeout
    last = (-1, "")
    while True:
        job.refresh_from_db()
        if on_progress and (job.progress, job.status) != last:
            on_progress(job)
            last = (job.progress, job.status)
        if job.status not in ACTIVE_STATUSES or job.status == JobStatus.PAUSED:
            return job
        if time.monotonic() > deadline:
            raise TimeoutError(f"job {job.pk} still {job.status} after {timeout:.0f}s")
        time.sleep(0.5)
