"""The life of a generation job row: request, claim, heartbeat, progress, finish.

Every status change is a guarded write (an UPDATE ... WHERE status=... that
must touch exactly one row), so two workers, a retry and a rescue can race
without a job running twice or a finished job being reopened."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, connection, transaction
from django.db.models import F, Q, TextField, Value
from django.db.models.functions import Concat
from django.utils import timezone

from generation.models import ACTIVE_STATUSES, GenerationJob, JobKind, JobStatus
from novels.models import Chapter, Novel

logger = logging.getLogger(__name__)

Handler = Callable[[GenerationJob], None]
_HANDLERS: dict[str, Handler] = {}


class JobFailed(Exception):
    """A failure with a message a person can act on; stored on the job as is."""


class JobCancelled(Exception):
    """The job row was paused or cancelled while the handler ran."""


def job_handler(kind: str) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        _HANDLERS[kind] = fn
        return fn

    return register


def job_request(
    *,
    novel: Novel,
    kind: str,
    chapter_number: int = 0,
    step: str = "",
    params: dict[str, Any] | None = None,
    user: User | None = None,
    enqueue: bool = True,
) -> tuple[GenerationJob, bool]:
    """Create the job and enqueue it on commit, or return the active job for the same step.

    enqueue=False is for callers that run the job inline (autopilot, shell commands)."""
    chapter = Chapter.objects.filter(novel=novel, number=chapter_number).first() if chapter_number else None
    try:
        with transaction.atomic():
            job = GenerationJob.objects.create(
                novel=novel,
                kind=kind,
                chapter=chapter,
                chapter_number=chapter_number,
                step=step,
                params=params or {},
                created_by=user,
            )
    except IntegrityError:
        existing = _active_job(novel=novel, kind=kind, chapter_number=chapter_number, step=step)
        if existing is None:  # finished between our insert and this read: ask again
            return job_request(
                novel=novel,
                kind=kind,
                chapter_number=chapter_number,
                step=step,
                params=params,
                user=user,
                enqueue=enqueue,
            )
        return existing, False
    if enqueue:
        job_enqueue(job_id=job.pk)
    return job, True


def _active_job(*, novel: Novel, kind: str, chapter_number: int, step: str) -> GenerationJob | None:
    return GenerationJob.objects.filter(
        novel=novel, kind=kind, chapter_number=chapter_number, step=step, status__in=ACTIVE_STATUSES
    ).first()


def job_enqueue(*, job_id: int) -> None:
    from generation.tasks import job_run

    job_run.delay_on_commit(job_id)  # type: ignore[attr-defined]  # celery-types predates delay_on_commit


def job_claim(*, job_id: int) -> bool:
    """queued → running, or take over a running job whose worker stopped beating."""
    now = timezone.now()
    stale = now - timedelta(seconds=settings.JOB_HEARTBEAT_STALE_SECONDS)
    claimed = GenerationJob.objects.filter(
        Q(status=JobStatus.QUEUED) | Q(status=JobStatus.RUNNING, heartbeat_at__lt=stale), pk=job_id
    ).update(
        status=JobStatus.RUNNING,
        heartbeat_at=now,
        started_at=now,
        attempts=F("attempts") + 1,
        error="",
    )
    return claimed == 1


def job_heartbeat(*, job_id: int) -> None:
    """Refresh the heartbeat; raise JobCancelled when the job was paused or cancelled meanwhile."""
    updated = GenerationJob.objects.filter(pk=job_id, status=JobStatus.RUNNING).update(heartbeat_at=timezone.now())
    if updated != 1:
        raise JobCancelled(f"job {job_id} is no longer running")


def job_progress(*, job_id: int, done: int, total: int | None = None) -> None:
    fields: dict[str, Any] = {"progress": done, "heartbeat_at": timezone.now()}
    if total is not None:
        fields["progress_total"] = total
    if GenerationJob.objects.filter(pk=job_id, status=JobStatus.RUNNING).update(**fields) != 1:
        raise JobCancelled(f"job {job_id} is no longer running")


def job_stream_append(*, job_id: int, text: str) -> None:
    """Append streamed text to the row so a reload shows it and a crash keeps it."""
    GenerationJob.objects.filter(pk=job_id, status=JobStatus.RUNNING).update(
        stream_text=Concat(F("stream_text"), Value(text, output_field=TextField())), heartbeat_at=timezone.now()
    )


def job_record_usage(*, job_id: int, model: str, tokens_in: int, tokens_out: int, cost: float = 0.0) -> None:
    from decimal import Decimal

    GenerationJob.objects.filter(pk=job_id).update(
        model=model,
        tokens_in=F("tokens_in") + tokens_in,
        tokens_out=F("tokens_out") + tokens_out,
        cost_estimate=F("cost_estimate") + Decimal(str(round(cost, 6))),
    )


def job_succeed(*, job_id: int, result: dict[str, Any] | None = None) -> bool:
    fields: dict[str, Any] = {"status": JobStatus.SUCCEEDED, "finished_at": timezone.now()}
    if result is not None:
        fields["result"] = result
    return GenerationJob.objects.filter(pk=job_id, status=JobStatus.RUNNING).update(**fields) == 1


def job_succeed_or_stop(*, job_id: int, result: dict[str, Any] | None = None) -> None:
    """Inside the step's write transaction: mark the job done, or roll the writes back
    (JobCancelled) when someone paused or cancelled it meanwhile."""
    if not job_succeed(job_id=job_id, result=result):
        raise JobCancelled(f"job {job_id} was stopped before its result was saved")


def job_fail(*, job_id: int, error: str) -> bool:
    return (
        GenerationJob.objects.filter(pk=job_id, status__in=[JobStatus.RUNNING, JobStatus.QUEUED]).update(
            status=JobStatus.FAILED, error=error[:5000], finished_at=timezone.now()
        )
        == 1
    )


def job_cancel(*, job_id: int) -> bool:
    return (
        GenerationJob.objects.filter(pk=job_id, status__in=ACTIVE_STATUSES).update(
            status=JobStatus.CANCELLED, finished_at=timezone.now()
        )
        == 1
    )


def job_pause(*, job_id: int) -> bool:
    return (
        GenerationJob.objects.filter(pk=job_id, status__in=[JobStatus.QUEUED, JobStatus.RUNNING]).update(
            status=JobStatus.PAUSED
        )
        == 1
    )


def job_resume(*, job_id: int, enqueue: bool = True) -> bool:
    with transaction.atomic():
        resumed = GenerationJob.objects.filter(pk=job_id, status=JobStatus.PAUSED).update(status=JobStatus.QUEUED) == 1
        if resumed and enqueue:
            job_enqueue(job_id=job_id)
    return resumed


def job_execute(*, job_id: int) -> None:
    """What the Celery task does: claim the row, run the kind's handler, record the outcome."""
    if not job_claim(job_id=job_id):
        logger.info("job %s not claimable (already running, finished or paused); nothing to do", job_id)
        return
    job = GenerationJob.objects.select_related("novel", "chapter").get(pk=job_id)
    handler = _HANDLERS.get(job.kind)
    if handler is None:
        job_fail(job_id=job_id, error=f"No handler for job kind '{job.kind}'.")
        return
    try:
        with _beating(job_id=job_id):
            handler(job)
    except JobCancelled:
        logger.info("job %s stopped: paused or cancelled", job_id)
        return
    except JobFailed as exc:
        job_fail(job_id=job_id, error=str(exc))
        return
    except Exception as exc:
        logger.exception("job %s crashed", job_id)
        job_fail(job_id=job_id, error=f"Unexpected error ({type(exc).__name__}): {exc}")
        return
    job_succeed(job_id=job_id)


@contextmanager
def _beating(*, job_id: int) -> Iterator[None]:
    """Keep the row's heartbeat fresh while the handler runs (model calls can be long);
    when the worker dies the beats stop and job_rescue_stale takes the job over."""
    stop = threading.Event()
    interval = max(1.0, settings.JOB_HEARTBEAT_STALE_SECONDS / 4)

    def beat() -> None:
        try:
            while not stop.wait(interval):
                GenerationJob.objects.filter(pk=job_id, status=JobStatus.RUNNING).update(heartbeat_at=timezone.now())
        finally:
            connection.close()

    thread = threading.Thread(target=beat, name=f"job-{job_id}-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=5)


def job_rescue_stale() -> list[int]:
    """Re-enqueue running jobs whose worker died (no heartbeat), without waiting for
    the broker's visibility timeout (an hour by default on Redis)."""
    stale = timezone.now() - timedelta(seconds=settings.JOB_HEARTBEAT_STALE_SECONDS)
    ids = list(
        GenerationJob.objects.filter(status=JobStatus.RUNNING, heartbeat_at__lt=stale).values_list("pk", flat=True)
    )
    for job_id in ids:
        job_enqueue(job_id=job_id)
    return ids


@job_handler(JobKind.PROBE)
def _probe(job: GenerationJob) -> None:
    import socket

    job_succeed(job_id=job.pk, result={"worker_host": socket.gethostname(), "database": settings.DATABASE_VENDOR})
