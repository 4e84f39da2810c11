"""Write chapters N..M from the shell with autopilot: draft, review, finalize each."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from generation.autopilot import autopilot_request
from generation.jobs import job_resume
from generation.llm import llm_for
from generation.models import GenerationJob, JobStatus
from generation.runner import job_run_and_wait
from memory.models import ChapterSummary
from novels.models import Chapter, Novel


class Command(BaseCommand):
    help = "Write chapters with autopilot (offline demo model without a key)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--novel", type=int, required=True)
        parser.add_argument("--from", dest="start", type=int, default=1)
        parser.add_argument("--to", dest="end", type=int, required=True)
        parser.add_argument("--token-cap", type=int, default=0)
        parser.add_argument("--cost-cap", type=float, default=0.0)
        parser.add_argument(
            "--worker", action="store_true", help="Run through the Celery worker instead of in this process."
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        novel = Novel.objects.filter(pk=opts["novel"]).first()
        if novel is None:
            raise CommandError(f"No novel with id {opts['novel']}.")
        llm = llm_for(novel)
        self.stdout.write(
            f"Writing chapters {opts['start']}–{opts['end']} of “{novel.title}” with "
            + ("the offline DEMO model" if llm.is_demo else llm.model_for("writer"))
        )
        try:
            job, created = autopilot_request(
                novel=novel,
                start=opts["start"],
                end=opts["end"],
                token_cap=opts["token_cap"],
                cost_cap=opts["cost_cap"],
                enqueue=opts["worker"],
            )
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from exc
        if not created and job.status == JobStatus.PAUSED:
            self.stdout.write(f"Resuming paused autopilot #{job.pk} ({job.result.get('stop_reason', 'paused')})")
            job_resume(job_id=job.pk, enqueue=opts["worker"])
            job.refresh_from_db()

        def show(j: GenerationJob) -> None:
            self.stdout.write(f"  progress {j.progress}/{j.progress_total} ({j.status})")

        done = job_run_and_wait(job=job, via_worker=opts["worker"], on_progress=show)
        if done.status == JobStatus.PAUSED:
            self.stdout.write(f"Stopped: {done.result.get('stop_reason', 'paused')}")
        elif done.status != JobStatus.SUCCEEDED:
            raise CommandError(f"Autopilot failed: {done.error}")
        summaries = dict(ChapterSummary.objects.filter(novel=novel).values_list("chapter", "skeleton"))
        for chapter in Chapter.objects.filter(novel=novel, number__gte=opts["start"], number__lte=opts["end"]).order_by(
            "number"
        ):
            self.stdout.write(
                f"{chapter.number:>4}. [{chapter.status}] {chapter.title} — {summaries.get(chapter.number, '')}"
            )
        self.stdout.write(f"Tokens used: {done.result.get('tokens_used', 0)}")
