"""Plan a novel from the shell: the four architecture steps, then blueprint windows.

Without OPENAI_API_KEY this uses the offline demo model, so a new user sees a complete plan."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from generation.llm import llm_for
from generation.models import GenerationJob, JobStatus
from generation.planning import (
    ARCHITECTURE_STEPS,
    BLUEPRINT_WINDOW,
    architecture_step_request,
    blueprint_window_request,
)
from generation.runner import job_run_and_wait
from novels.models import Architecture, BlueprintCard, Novel
from novels.services import novel_create


class Command(BaseCommand):
    help = "Generate a novel's architecture and blueprint windows (offline demo model without a key)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--novel", type=int, help="Plan this existing novel.")
        parser.add_argument("--title", default="", help="Create a new novel with this title.")
        parser.add_argument("--premise", default="")
        parser.add_argument("--genre", default="")
        parser.add_argument("--language", default="", help="en or zh; detected when omitted.")
        parser.add_argument("--chapters", type=int, default=60, help="Target chapter count of a new novel.")
        parser.add_argument("--owner", default="admin", help="Username owning a new novel.")
        parser.add_argument("--windows", type=int, default=1, help="How many 25-chapter blueprint windows to plan.")
        parser.add_argument(
            "--worker", action="store_true", help="Run through the Celery worker instead of in this process."
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        novel = self._novel(opts)
        llm = llm_for(novel)
        model = "offline DEMO model (no OPENAI_API_KEY set)" if llm.is_demo else llm.model_for("planner")
        self.stdout.write(f"Planning novel #{novel.pk} “{novel.title}” ({novel.language}) with {model}")
        architecture = Architecture.objects.get(novel=novel)
        for part in ARCHITECTURE_STEPS:
            if getattr(architecture, part).strip():
                self.stdout.write(f"  {part}: already written, kept")
                continue
            self._run(
                architecture_step_request(novel=novel, part=part, enqueue=opts["worker"])[0],
                opts,
                f"architecture: {part}",
            )
        for i in range(opts["windows"]):
            start = i * BLUEPRINT_WINDOW + 1
            if start > novel.target_chapters:
                break
            self._run(
                blueprint_window_request(novel=novel, start=start, enqueue=opts["worker"])[0],
                opts,
                f"blueprint window from {start}",
            )
        architecture.refresh_from_db()
        for part in ARCHITECTURE_STEPS:
            self.stdout.write(f"\n== {part} ==\n{getattr(architecture, part)[:600]}")
        self.stdout.write("\n== blueprint ==")
        for card in BlueprintCard.objects.filter(novel=novel).order_by("number"):
            ops = ", ".join(f"{op.get('op')} {op.get('thread', '')}".strip() for op in card.foreshadowing)
            marks = f"[suspense {card.suspense_density}, twist {card.cognitive_twist}]"
            self.stdout.write(f"{card.number:>4}. {card.title}  {marks} {ops}")

    def _novel(self, opts: dict[str, Any]) -> Novel:
        if opts["novel"]:
            novel = Novel.objects.filter(pk=opts["novel"]).first()
            if novel is None:
                raise CommandError(f"No novel with id {opts['novel']}.")
            return novel
        if not opts["title"]:
            raise CommandError("Give --novel ID, or --title (and --premise) to create one.")
        owner = get_user_model().objects.filter(username=opts["owner"]).first()
        if owner is None:
            raise CommandError(f"No user '{opts['owner']}'; run `manage.py ensure_admin` or pass --owner.")
        return novel_create(
            owner=owner,
            title=opts["title"],
            premise=opts["premise"],
            genre=opts["genre"],
            language=opts["language"],
            target_chapters=opts["chapters"],
        )

    def _run(self, job: GenerationJob, opts: dict[str, Any], label: str) -> None:
        try:
            done = job_run_and_wait(job=job, via_worker=opts["worker"])
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from exc
        if done.status != JobStatus.SUCCEEDED:
            raise CommandError(f"{label} failed: {done.error or done.status}")
        self.stdout.write(f"  {label}: done ({done.tokens_in}+{done.tokens_out} tokens)")
