"""Autopilot (write chapters N..M unattended) and building an imported book's memory.

Both run each step as its own job row, executed inline by this worker, so every
step keeps its guarded claim, its token accounting and its one-active-job rule;
both resume where they stopped, because what is done is read from the chapters."""

from __future__ import annotations

import time
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db.models import Sum

from generation.chapter_steps import chapter_draft_request, chapter_finalize_request, chapter_review_request
from generation.jobs import JobFailed, job_execute, job_handler, job_heartbeat, job_pause, job_progress, job_request
from generation.models import ACTIVE_STATUSES, GenerationJob, JobKind, JobStatus, ReviewFinding
from generation.planning import BLUEPRINT_WINDOW, blueprint_window_request
from novels.models import BlueprintCard, Chapter, ChapterStatus, Novel

StepRequest = Callable[..., tuple[GenerationJob, bool]]


def autopilot_request(
    *,
    novel: Novel,
    start: int,
    end: int,
    token_cap: int = 0,
    cost_cap: float = 0.0,
    user: User | None = None,
    enqueue: bool = True,
) -> tuple[GenerationJob, bool]:
    if start < 1 or end < start:
        raise ValidationError("Give a chapter range with start ≥ 1 and end ≥ start.")
    if end - start >= 1000:
        raise ValidationError("Autopilot runs at most 1000 chapters at a time.")
    if token_cap < 0 or cost_cap < 0:
        raise ValidationError("Caps cannot be negative (0 means no cap).")
    params = {"start": start, "end": end, "token_cap": token_cap, "cost_cap": cost_cap}
    return job_request(novel=novel, kind=JobKind.AUTOPILOT, params=params, user=user, enqueue=enqueue)


def _run_child(*, parent: GenerationJob, request: StepRequest, **kwargs: Any) -> GenerationJob:
    """Run one step job inline; if another worker already runs it, wait for it."""
    child, _ = request(enqueue=False, **kwargs)
    child_ids = parent.result.setdefault("children", [])
    if child.pk not in child_ids:
        child_ids.append(child.pk)
        GenerationJob.objects.filter(pk=parent.pk).update(result=parent.result)
    if child.status == JobStatus.QUEUED:
        job_execute(job_id=child.pk)
    while True:
        child.refresh_from_db()
        if child.status not in ACTIVE_STATUSES:
            break
        job_heartbeat(job_id=parent.pk)
        if child.status == JobStatus.RUNNING:
            job_execute(job_id=child.pk)  # takes it over only if its worker died
        time.sleep(0.5)
    if child.status != JobStatus.SUCCEEDED:
        raise JobFailed(
            f"{child.get_kind_display()} of chapter {child.chapter_number or '-'} failed: {child.error or child.status}"
        )
    return child


def _usage(parent: GenerationJob) -> tuple[int, Decimal]:
    agg = GenerationJob.objects.filter(pk__in=parent.result.get("children", [])).aggregate(
        tin=Sum("tokens_in"), tout=Sum("tokens_out"), cost=Sum("cost_estimate")
    )
    return int((agg["tin"] or 0) + (agg["tout"] or 0)), Decimal(agg["cost"] or 0)


def _stop(job: GenerationJob, reason: str) -> None:
    """Pause with a reason: the author fixes what stopped it and resumes."""
    job.result["stop_reason"] = reason
    GenerationJob.objects.filter(pk=job.pk).update(result=job.result)
    job_pause(job_id=job.pk)


@job_handler(JobKind.AUTOPILOT)
def _run_autopilot(job: GenerationJob) -> None:
    novel = job.novel
    start, end = int(job.params["start"]), int(job.params["end"])
    token_cap, cost_cap = int(job.params.get("token_cap") or 0), Decimal(str(job.params.get("cost_cap") or 0))
    job.result.pop("stop_reason", None)
    total = end - start + 1
    for number in range(start, end + 1):
        job_progress(job_id=job.pk, done=number - start, total=total)
        chapter = Chapter.objects.filter(novel=novel, number=number).first()
        if chapter is None or not BlueprintCard.objects.filter(novel=novel, number=number).exists():
            window_start = ((number - 1) // BLUEPRINT_WINDOW) * BLUEPRINT_WINDOW + 1
            _run_child(parent=job, request=blueprint_window_request, novel=novel, start=window_start)
            chapter = Chapter.objects.get(novel=novel, number=number)
        while chapter.status != ChapterStatus.FINALIZED:
            if chapter.status == ChapterStatus.PLANNED:
                _run_child(parent=job, request=chapter_draft_request, novel=novel, number=number)
            elif chapter.status == ChapterStatus.DRAFTED:
                _run_child(parent=job, request=chapter_review_request, novel=novel, number=number)
            else:
                if ReviewFinding.objects.filter(chapter=chapter, severity="critical").exists():
                    _stop(job, f"Chapter {number} has a critical finding; fix it, then resume or finalize by hand.")
                    return
                _run_child(parent=job, request=chapter_finalize_request, novel=novel, number=number)
            chapter.refresh_from_db()
            used_tokens, used_cost = _usage(job)
            if (token_cap and used_tokens >= token_cap) or (cost_cap and used_cost >= cost_cap):
                job.result.update({"tokens_used": used_tokens, "cost_used": str(used_cost)})
                _stop(job, f"The cap was reached after {used_tokens} tokens (cost {used_cost}); raise it to go on.")
                return
    used_tokens, used_cost = _usage(job)
    job.result.update({"tokens_used": used_tokens, "cost_used": str(used_cost), "chapters": total})
    GenerationJob.objects.filter(pk=job.pk).update(result=job.result)
    job_progress(job_id=job.pk, done=total, total=total)


# --- building an imported book's memory ------------------------------------------------------


def import_build_request(
    *, novel: Novel, user: User | None = None, enqueue: bool = True
) -> tuple[GenerationJob, bool]:
    return job_request(novel=novel, kind=JobKind.IMPORT, user=user, enqueue=enqueue)


@job_handler(JobKind.IMPORT)
def _run_import_build(job: GenerationJob) -> None:
    novel = job.novel
    numbers = list(
        Chapter.objects.filter(novel=novel).exclude(text="").order_by("number").values_list("number", "status")
    )
    total = len(numbers)
    done = sum(1 for _, status in numbers if status == ChapterStatus.FINALIZED)
    job_progress(job_id=job.pk, done=done, total=total)
    for number, status in numbers:
        if status == ChapterStatus.FINALIZED:
            continue
        _run_child(parent=job, request=chapter_finalize_request, novel=novel, number=number)
        done += 1
        job_progress(job_id=job.pk, done=done, total=total)
