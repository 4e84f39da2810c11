"""Import a manuscript (.txt, .md, .docx) from the shell: split it into chapters and store them as drafts."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from novels.import_services import ManuscriptError, manuscript_import
from novels.models import Membership, Novel, Role


class Command(BaseCommand):
    help = "Split a manuscript into chapters and store them (as drafted chapters) in a new or existing novel."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("path", type=Path, help="The manuscript: .txt (any common encoding), .md or .docx.")
        parser.add_argument("--owner", required=True, help="Username that owns the new novel (or edits --novel).")
        parser.add_argument("--title", default=None, help="Title of the new novel; the file name when omitted.")
        parser.add_argument("--novel", type=int, default=None, help="Import into this existing novel instead.")
        parser.add_argument(
            "--build-memory",
            action="store_true",
            help="Then build the book's memory by finalizing the chapters in order (one resumable job).",
        )
        parser.add_argument("--worker", action="store_true", help="With --build-memory: run through the Celery worker.")

    def handle(self, *args: Any, **opts: Any) -> None:
        path: Path = opts["path"]
        if not path.is_file():
            raise CommandError(f"No such file: {path}")
        owner = get_user_model().objects.filter(username=opts["owner"]).first()
        if owner is None:
            raise CommandError(f"No user named '{opts['owner']}'.")
        novel = None
        if opts["novel"] is not None:
            novel = Novel.objects.filter(pk=opts["novel"]).first()
            if novel is None:
                raise CommandError(f"No novel #{opts['novel']}.")
            # The shell is trusted, but importing into someone else's book by a typo'd id should still fail.
            if not Membership.objects.filter(novel=novel, user=owner, role__in=[Role.OWNER, Role.EDITOR]).exists():
                raise CommandError(f"'{opts['owner']}' is not an owner or editor of novel #{novel.pk}.")
        started = time.perf_counter()
        try:
            result = manuscript_import(path=path, filename=path.name, owner=owner, title=opts["title"], novel=novel)
        except ManuscriptError as exc:
            raise CommandError(str(exc)) from exc
        elapsed = time.perf_counter() - started
        verb = "Created" if result.novel_created else "Updated"
        self.stdout.write(f"{verb} novel #{result.novel.pk} “{result.novel.title}” ({result.novel.language})")
        self.stdout.write(f"Chapters found: {result.chapters_found} (encoding {result.encoding}, {elapsed:.2f}s)")
        self.stdout.write(
            f"  new {result.chapters_created}, changed {result.chapters_updated}, unchanged {result.chapters_unchanged}"
        )
        self.stdout.write(f"  first: {result.first_title}")
        self.stdout.write(f"  last:  {result.last_title}")
        self.stdout.write(f"Boilerplate lines removed: {result.boilerplate_lines}")
        for warning in result.warnings:
            self.stdout.write(self.style.WARNING(f"warning: {warning}"))
        if opts["build_memory"]:
            self._build_memory(result.novel, owner, via_worker=opts["worker"])

    def _build_memory(self, novel: Novel, owner: Any, *, via_worker: bool) -> None:
        from generation.autopilot import import_build_request
        from generation.models import GenerationJob, JobStatus
        from generation.runner import job_run_and_wait

        job, created = import_build_request(novel=novel, user=owner, enqueue=via_worker)
        self.stdout.write(f"Building memory: job #{job.pk} ({'new' if created else 'resumed'})")

        def show(j: GenerationJob) -> None:
            self.stdout.write(f"  finalized {j.progress}/{j.progress_total} ({j.status})")

        done = job_run_and_wait(job=job, via_worker=via_worker, on_progress=show)
        if done.status != JobStatus.SUCCEEDED:
            raise CommandError(
                f"Building memory stopped: {done.error or done.status}. Run the command again to resume."
            )
        self.stdout.write(
            f"Memory built: {done.progress} chapters finalized, {done.tokens_in + done.tokens_out} tokens."
        )
