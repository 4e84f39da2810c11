"""The generation pages: architecture, blueprint, chapters, jobs, autopilot.

Every view: novel_access first, then a form, then a service, then render or
redirect. A ValidationError from a service becomes a message on the page, and
the page re-renders with what the author typed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from generation import jobs as job_services
from generation.autopilot import autopilot_request
from generation.card_services import blueprint_overview, card_update
from generation.chapter_steps import (
    cascade_request,
    chapter_draft_request,
    chapter_finalize_request,
    chapter_needs_refinalize,
    chapter_review_request,
    chapter_revise_request,
    chapter_text_edit,
)
from generation.forms import (
    PART_TITLES,
    ArchitectureGenerateForm,
    ArchitecturePartForm,
    AutopilotForm,
    BlueprintPlanForm,
    CardForm,
    ChapterTextForm,
)
from generation.models import ACTIVE_STATUSES, GenerationJob, JobKind, JobStatus, ReviewFinding
from generation.planning import (
    ARCHITECTURE_STEPS,
    architecture_step_request,
    architecture_update,
    blueprint_window_request,
)
from novels.models import Architecture, BlueprintCard, Chapter, ChapterRevision, ChapterStatus, Role
from novels.permissions import Access, novel_access

POLLING_STATUSES = (JobStatus.QUEUED, JobStatus.RUNNING)
REVISIONS_SHOWN = 10
JOBS_PER_PAGE = 50


def _error_text(exc: ValidationError) -> str:
    return " ".join(exc.messages)


def _job_started(request: HttpRequest, job: GenerationJob, created: bool) -> HttpResponse:
    if not created:
        messages.info(request, "That step is already queued or running; here is its job.")
    return redirect("generation:job", novel_id=job.novel_id, job_id=job.pk)


# --- architecture ----------------------------------------------------------------------------


def _architecture_page(
    request: HttpRequest,
    access: Access,
    *,
    edit_form: ArchitecturePartForm | None = None,
    generate_form: ArchitectureGenerateForm | None = None,
    page_error: str = "",
    status: int = 200,
) -> HttpResponse:
    novel = access.novel
    architecture = Architecture.objects.filter(novel=novel).select_related("updated_by").first()
    active = {
        j.step: j
        for j in GenerationJob.objects.filter(novel=novel, kind=JobKind.ARCHITECTURE, status__in=ACTIVE_STATUSES)
    }
    bound_edit = edit_form.data.get("part") if edit_form is not None else None
    bound_generate = generate_form.data.get("part") if generate_form is not None else None
    parts = []
    for part in ARCHITECTURE_STEPS:
        text = getattr(architecture, part, "") if architecture else ""
        source = (architecture.sources or {}).get(part, "") if architecture else ""
        parts.append(
            {
                "name": part,
                "title": PART_TITLES[part],
                "text": text,
                "source": source,
                "is_demo": source == "demo",
                "active_job": active.get(part),
                "edit_form": edit_form
                if bound_edit == part
                else ArchitecturePartForm(initial={"part": part, "text": text}, auto_id=f"id_{part}_%s"),
                "generate_form": generate_form
                if bound_generate == part
                else ArchitectureGenerateForm(initial={"part": part}, auto_id=f"id_{part}_gen_%s"),
            }
        )
    if not page_error:
        for form, bound in ((edit_form, bound_edit), (generate_form, bound_generate)):
            if form is not None and bound not in ARCHITECTURE_STEPS:
                page_error = "Unknown architecture part; nothing was changed."
    context = {
        "novel": novel,
        "access": access,
        "architecture": architecture,
        "parts": parts,
        "page_error": page_error,
        "tab": "architecture",
    }
    return render(request, "generation/architecture.html", context, status=status)


@require_safe
def architecture(request: HttpRequest, novel_id: int) -> HttpResponse:
    access = novel_access(request, novel_id=novel_id)
    return _architecture_page(request, access)


@require_POST
def architecture_edit(request: HttpRequest, novel_id: int) -> HttpResponse:
    access = novel_access(request, novel_id=novel_id, need=Role.EDITOR)
    form = ArchitecturePartForm(request.POST)
    if not form.is_valid():
        return _architecture_page(request, access, edit_form=form, status=400)
    part = form.cleaned_data["part"]
    try:
        architecture_update(novel=access.novel, part=part, text=form.cleaned_data["text"], user=request.user)  # type: ignore[arg-type]
    except ValidationError as exc:
        form.add_error(None, exc)
        return _architecture_page(request, access, edit_form=form, status=400)
    messages.success(request, f"{PART_TITLES[part]} saved.")
    return redirect(f"{_url('generation:architecture', novel_id)}#part-{part}")


@require_POST
def architecture_generate(request: HttpRequest, novel_id: int) -> HttpResponse:
    access = novel_access(request, novel_id=novel_id, need=Role.EDITOR)
    form = ArchitectureGenerateForm(request.POST)
    if not form.is_valid():
        return _architecture_page(request, access, generate_form=form, status=400)
    try:
        job, created = architecture_step_request(
            novel=access.novel,
            part=form.cleaned_data["part"],
            guidance=form.cleaned_data["guidance"],
            user=request.user,  # type: ignore[arg-type]
        )
    except ValidationError as exc:
        form.add_error(None, exc)
        return _architecture_page(request, access, generate_form=form, status=400)
    return _job_started(request, job, created)


def _url(name: str, novel_id: int, **kwargs: Any) -> str:
    return reverse(name, kwargs={"novel_id": novel_id, **kwargs})


# --- blueprint -------------------------------------------------------------------------------


def _blueprint_page(
    request: HttpRequest,
    access: Access,
    *,
    plan_form: BlueprintPlanForm | None = None,
    card_form: CardForm | None = None,
    card_number: int | None = None,
    status: int = 200,
) -> HttpResponse:
    novel = access.novel
    overview = blueprint_overview(novel=novel)
    rows = []
    for row in overview.rows:
        number = row.card.number
        if card_form is not None and card_number == number:
            form = card_form
        elif access.can_edit:
            form = CardForm(
                initial={f: getattr(row.card, f) for f in CardForm.base_fields}, auto_id=f"id_card{number}_%s"
            )
        else:
            form = None
        rows.append({"row": row, "card": row.card, "form": form, "open": card_number == number})
    plan_start = str(plan_form.data.get("start", "")) if plan_form is not None else None
    replan = plan_form is not None and plan_form.data.get("replan") in ("True", "true", "on", "1")
    placed = False
    windows = []
    for w in overview.windows:
        plan: BlueprintPlanForm = BlueprintPlanForm(
            initial={"start": w.start, "replan": True}, auto_id=f"id_replan{w.start}_%s"
        )
        if plan_form is not None and replan and plan_start == str(w.start):
            plan, placed = plan_form, True
        windows.append({"window": w, "form": plan})
    next_start: int | str | None = overview.next_start
    next_form = None
    if plan_form is not None and not placed:
        # Whatever was typed comes back, even if the window asked for is not one the page offers.
        next_form, next_start = plan_form, plan_start
    elif next_start is not None:
        next_form = BlueprintPlanForm(initial={"start": next_start}, auto_id="id_next_%s")
    active = GenerationJob.objects.filter(novel=novel, kind=JobKind.BLUEPRINT, status__in=ACTIVE_STATUSES)
    context = {
        "novel": novel,
        "access": access,
        "rows": rows,
        "windows": windows,
        "next_start": next_start,
        "fully_planned": overview.fully_planned,
        "next_form": next_form,
        "active_jobs": list(active),
        "tab": "blueprint",
        "plan_form_errors": plan_form.non_field_errors() if plan_form is not None else None,
    }
    return render(request, "generation/blueprint.html", context, status=status)


@require_safe
def blueprint(request: HttpRequest, novel_id: int) -> HttpResponse:
    access = novel_access(request, novel_id=novel_id)
    return _blueprint_page(request, access)


@require_POST
def blueprint_plan(request: HttpRequest, novel_id: int) -> HttpResponse:
    access = novel_access(request, novel_id=novel_id, need=Role.EDITOR)
    form = BlueprintPlanForm(request.POST)
    if not form.is_valid():
        return _blueprint_page(request, access, plan_form=form, status=400)
    data = form.cleaned_data
    try:
        job, created = blueprint_window_request(
            novel=access.novel,
            start=data["start"],
            replan=data["replan"],
            guidance=data["guidance"],
            user=request.user,  # type: ignore[arg-type]
        )
    except ValidationError as exc:
        form.add_error(None, exc)
        return _blueprint_page(request, access, plan_form=form, status=400)
    return _job_started(request, job, created)


@require_POST
def card_edit(request: HttpRequest, novel_id: int, card_number: int) -> HttpResponse:
    access = novel_access(request, novel_id=novel_id, need=Role.EDITOR)
    card = get_object_or_404(BlueprintCard, novel=access.novel, number=card_number)
    form = CardForm(request.POST, auto_id=f"id_card{card_number}_%s")
    if form.is_valid():
        try:
            card_update(card=card, user=request.user, **form.cleaned_data)  # type: ignore[arg-type]
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            messages.success(request, f"Card {card_number} saved.")
            return redirect(f"{_url('generation:blueprint', novel_id)}#card-{card_number}")
    return _blueprint_page(request, access, card_form=form, card_number=card_number, status=400)


# --- chapters --------------------------------------------------------------------------------


def _chapter_page(
    request: HttpRequest,
    access: Access,
    chapter: Chapter,
    *,
    text_form: ChapterTextForm | None = None,
    status: int = 200,
) -> HttpResponse:
    novel = access.novel
    revisions = list(ChapterRevision.objects.filter(chapter=chapter).select_related("created_by")[:REVISIONS_SHOWN])
    current = revisions[0] if revisions and revisions[0].text == chapter.text else None
    context = {
        "novel": novel,
        "access": access,
        "chapter": chapter,
        "card": BlueprintCard.objects.filter(novel=novel, number=chapter.number).first(),
        "revisions": revisions,
        "current_revision": current,
        "findings": list(ReviewFinding.objects.filter(chapter=chapter)),
        "needs_refinalize": chapter_needs_refinalize(chapter=chapter),
        "is_finalized": chapter.status == ChapterStatus.FINALIZED,
        "later_stale": Chapter.objects.filter(novel=novel, number__gt=chapter.number, memory_stale=True).exists(),
        "active_jobs": list(
            GenerationJob.objects.filter(novel=novel, chapter_number=chapter.number, status__in=ACTIVE_STATUSES)
        ),
        "previous": Chapter.objects.filter(novel=novel, number__lt=chapter.number).order_by("-number").first(),
        "next": Chapter.objects.filter(novel=novel, number__gt=chapter.number).order_by("number").first(),
        "text_form": text_form or ChapterTextForm(initial={"text": chapter.text}),
        "tab": "chapters",
    }
    return render(request, "generation/chapter.html", context, status=status)


@require_safe
def chapter(request: HttpRequest, novel_id: int, number: int) -> HttpResponse:
    access = novel_access(request, novel_id=novel_id)
    return _chapter_page(request, access, get_object_or_404(Chapter, novel=access.novel, number=number))


def _chapter_step(
    request: HttpRequest, access: Access, number: int, step: Callable[..., tuple[GenerationJob, bool]]
) -> HttpResponse:
    get_object_or_404(Chapter, novel=access.novel, number=number)
    try:
        job, created = step(novel=access.novel, number=number, user=request.user)
    except ValidationError as exc:
        messages.error(request, _error_text(exc))
        return redirect("generation:chapter", novel_id=access.novel.pk, number=number)
    return _job_started(request, job, created)


@require_POST
def chapter_draft(request: HttpRequest, novel_id: int, number: int) -> HttpResponse:
    access = novel_access(request, novel_id=novel_id, need=Role.EDITOR)
    return _chapter_step(request, access, number, chapter_draft_request)


@require_POST
def chapter_review(request: HttpRequest, novel_id: int, number: int) -> HttpResponse:
    access = novel_access(request, novel_id=novel_id, need=Role.EDITOR)
    return _chapter_step(request, access, number, chapter_review_request)


@require_POST
def chapter_revise(request: HttpRequest, novel_id: int, number: int) -> HttpResponse:
    access = novel_access(request, novel_id=novel_id, need=Role.EDITOR)
    return _chapter_step(request, access, number, chapter_revise_request)


@require_POST
def chapter_finalize(request: HttpRequest, novel_id: int, number: int) -> HttpResponse:
    access = novel_access(request, novel_id=novel_id, need=Role.EDITOR)
    return _chapter_step(request, access, number, chapter_finalize_request)


@require_POST
def chapter_edit(request: HttpRequest, novel_id: int, number: int) -> HttpResponse:
    access = novel_access(request, novel_id=novel_id, need=Role.EDITOR)
    chapter = get_object_or_404(Chapter, novel=access.novel, number=number)
    form = ChapterTextForm(request.POST)
    if form.is_valid():
        try:
            revision = chapter_text_edit(chapter=chapter, text=form.cleaned_data["text"], user=request.user)  # type: ignore[arg-type]
        except ValidationError as exc:
            form.add_error("text", exc)
        else:
            if revision is None:
                messages.info(request, "The text did not change; nothing was saved.")
            else:
                messages.success(request, f"Chapter {number} saved as a new revision.")
            return redirect("generation:chapter", novel_id=novel_id, number=number)
    return _chapter_page(request, access, chapter, text_form=form, status=400)


@require_safe
def revision(request: HttpRequest, novel_id: int, number: int, revision_id: int) -> HttpResponse:
    access = novel_access(request, novel_id=novel_id)
    rev = get_object_or_404(
        ChapterRevision.objects.select_related("chapter", "created_by"),
        pk=revision_id,
        chapter__novel=access.novel,
        chapter__number=number,
    )
    context = {
        "novel": access.novel,
        "access": access,
        "chapter": rev.chapter,
        "revision": rev,
        "is_current": rev.text == rev.chapter.text,
        "tab": "chapters",
    }
    return render(request, "generation/revision.html", context)


@require_POST
def revision_adopt(request: HttpRequest, novel_id: int, number: int, revision_id: int) -> HttpResponse:
    access = novel_access(request, novel_id=novel_id, need=Role.EDITOR)
    rev = get_object_or_404(
        ChapterRevision.objects.select_related("chapter"),
        pk=revision_id,
        chapter__novel=access.novel,
        chapter__number=number,
    )
    try:
        adopted = chapter_text_edit(chapter=rev.chapter, text=rev.text, user=request.user)  # type: ignore[arg-type]
    except ValidationError as exc:
        messages.error(request, _error_text(exc))
    else:
        if adopted is None:
            messages.info(request, "That revision is already the chapter's text.")
        else:
            messages.success(request, "The revision's text is now the chapter's text (saved as a new revision).")
    return redirect("generation:chapter", novel_id=novel_id, number=number)


@require_POST
def cascade(request: HttpRequest, novel_id: int) -> HttpResponse:
    access = novel_access(request, novel_id=novel_id, need=Role.EDITOR)
    try:
        job, created = cascade_request(novel=access.novel, user=request.user)  # type: ignore[arg-type]
    except ValidationError as exc:
        messages.error(request, _error_text(exc))
        return redirect("novels:detail", novel_id=novel_id)
    return _job_started(request, job, created)


# --- jobs ------------------------------------------------------------------------------------


@require_safe
def job_list(request: HttpRequest, novel_id: int) -> HttpResponse:
    access = novel_access(request, novel_id=novel_id)
    page = Paginator(GenerationJob.objects.filter(novel=access.novel), JOBS_PER_PAGE).get_page(request.GET.get("page"))
    context = {"novel": access.novel, "access": access, "page": page, "tab": "jobs"}
    return render(request, "generation/jobs.html", context)


def _snapshot_rows(snapshot: dict[str, Any]) -> list[dict[str, Any]]:
    """The context snapshot's sections as table rows (presentation only): kept and
    dropped may be stored as counts or as lists of item keys."""
    sections = snapshot.get("sections") if isinstance(snapshot, dict) else None
    if isinstance(sections, list):
        sections = {str(s.get("name", i)): s for i, s in enumerate(sections) if isinstance(s, dict)}
    rows = []
    summary = snapshot.get("global_summary") if isinstance(snapshot, dict) else None
    if isinstance(summary, dict):
        rows.append(
            {
                "name": "global summary",
                "share": "",
                "tokens": summary.get("tokens", ""),
                "kept": 1 if summary.get("kept") else 0,
                "dropped": 0 if summary.get("kept") else 1,
                "dropped_keys": [],
            }
        )
    for name, entry in (sections or {}).items():
        if not isinstance(entry, dict):
            continue
        kept, dropped = entry.get("kept", 0), entry.get("dropped", 0)
        rows.append(
            {
                "name": name,
                "share": entry.get("share", ""),
                "tokens": entry.get("used", entry.get("tokens", "")) if not isinstance(entry.get("used"), dict) else "",
                "kept": len(kept) if isinstance(kept, list) else kept,
                "dropped": len(dropped) if isinstance(dropped, list) else dropped,
                "dropped_keys": dropped if isinstance(dropped, list) else [],
            }
        )
    return rows


def _job_context(access: Access, job: GenerationJob) -> dict[str, Any]:
    snapshot = job.context_snapshot if isinstance(job.context_snapshot, dict) else {}
    return {
        "novel": access.novel,
        "access": access,
        "job": job,
        "polling": job.status in POLLING_STATUSES,
        "is_active": job.status in ACTIVE_STATUSES,
        "can_pause": job.status in POLLING_STATUSES,
        "can_resume": job.status == JobStatus.PAUSED,
        "is_demo": job.model == "demo",
        "snapshot": snapshot,
        "snapshot_rows": _snapshot_rows(snapshot),
        "stop_reason": (job.result or {}).get("stop_reason", "") if isinstance(job.result, dict) else "",
        "tab": "jobs",
    }


def _novel_job(access: Access, job_id: int) -> GenerationJob:
    return get_object_or_404(GenerationJob.objects.select_related("chapter"), pk=job_id, novel=access.novel)


@require_safe
def job_detail(request: HttpRequest, novel_id: int, job_id: int) -> HttpResponse:
    access = novel_access(request, novel_id=novel_id)
    return render(request, "generation/job.html", _job_context(access, _novel_job(access, job_id)))


@require_safe
def job_status(request: HttpRequest, novel_id: int, job_id: int) -> HttpResponse:
    access = novel_access(request, novel_id=novel_id)
    return render(request, "generation/_job_status.html", _job_context(access, _novel_job(access, job_id)))


def _job_control(
    request: HttpRequest, novel_id: int, job_id: int, action: Callable[..., bool], done: str, refused: str
) -> HttpResponse:
    access = novel_access(request, novel_id=novel_id, need=Role.EDITOR)
    job = _novel_job(access, job_id)
    ok = action(job_id=job.pk)
    if request.headers.get("HX-Request"):
        job.refresh_from_db()
        context = {**_job_context(access, job), "notice": done if ok else refused}
        return render(request, "generation/_job_status.html", context)
    (messages.success if ok else messages.error)(request, done if ok else refused)
    return redirect("generation:job", novel_id=novel_id, job_id=job.pk)


@require_POST
def job_pause(request: HttpRequest, novel_id: int, job_id: int) -> HttpResponse:
    return _job_control(
        request, novel_id, job_id, job_services.job_pause, "Job paused.", "Only a queued or running job can be paused."
    )


@require_POST
def job_resume(request: HttpRequest, novel_id: int, job_id: int) -> HttpResponse:
    return _job_control(
        request, novel_id, job_id, job_services.job_resume, "Job resumed.", "Only a paused job can be resumed."
    )


@require_POST
def job_cancel(request: HttpRequest, novel_id: int, job_id: int) -> HttpResponse:
    return _job_control(
        request,
        novel_id,
        job_id,
        job_services.job_cancel,
        "Job cancelled.",
        "This job has already finished; there is nothing to cancel.",
    )


# --- autopilot -------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def autopilot(request: HttpRequest, novel_id: int) -> HttpResponse:
    access = novel_access(request, novel_id=novel_id, need=Role.EDITOR if request.method == "POST" else Role.VIEWER)
    novel = access.novel
    first_open = (
        Chapter.objects.filter(novel=novel)
        .exclude(status=ChapterStatus.FINALIZED)
        .order_by("number")
        .values_list("number", flat=True)
        .first()
    )
    start = first_open or 1
    form = AutopilotForm(
        request.POST or None, initial={"start": start, "end": max(start, novel.target_chapters or start)}
    )
    status = 200
    if request.method == "POST":
        if form.is_valid():
            data = form.cleaned_data
            try:
                job, created = autopilot_request(
                    novel=novel,
                    start=data["start"],
                    end=data["end"],
                    token_cap=data["token_cap"],
                    cost_cap=float(data["cost_cap"]),
                    user=request.user,  # type: ignore[arg-type]
                )
            except ValidationError as exc:
                form.add_error(None, exc)
            else:
                return _job_started(request, job, created)
        status = 400
    runs = GenerationJob.objects.filter(novel=novel, kind=JobKind.AUTOPILOT)[:20]
    context = {"novel": novel, "access": access, "form": form, "runs": runs, "tab": "autopilot"}
    return render(request, "generation/autopilot.html", context, status=status)
