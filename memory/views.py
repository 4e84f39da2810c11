"""The memory pages: the global summary, chapter summaries, characters and
their state versions, fact cards and the thread ledger.

Every view: novel_access first (viewers read, editors write), then a form,
then a service, then render or redirect. A ValidationError from a service
becomes a message next to the form and the page re-renders with what the
author typed (status 400). Edits made with htmx get back the edited row only;
without JavaScript the same forms post and redirect."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Page, Paginator
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST, require_safe

from memory import services
from memory.core.threads import UNRESOLVED_THREAD_STATUSES
from memory.edit_services import character_edit as character_edit_service
from memory.forms import (
    ChapterSummaryForm,
    CharacterForm,
    CharacterStateForm,
    FactForm,
    GlobalSummaryForm,
    ThreadForm,
)
from memory.models import ChapterSummary, Character, CharacterState, Fact, GlobalSummary, Thread
from memory.selectors import character_history as character_history_selector
from memory.selectors import character_states_latest, global_summary_current, thread_ledger
from memory.writeback import EMPTY_STATE
from novels.models import Chapter, ChapterStatus, Role
from novels.permissions import Access, novel_access

VERSIONS_PER_PAGE = 20
SUMMARIES_PER_PAGE = 50
STATES_PER_PAGE = 50
FACTS_PER_PAGE = 100
THREADS_PER_PAGE = 50
LATEST = 2**31 - 1


def _is_htmx(request: HttpRequest) -> bool:
    return request.headers.get("HX-Request") == "true"


def _page(request: HttpRequest, queryset: Any, per_page: int, number: int | str | None = None) -> Page:
    return Paginator(queryset, per_page).get_page(number if number is not None else request.GET.get("page"))


def _context(access: Access, section: str, **extra: Any) -> dict[str, Any]:
    return {"novel": access.novel, "access": access, "tab": "memory", "section": section, **extra}


def _saved(request: HttpRequest, text: str, url: str) -> HttpResponse:
    messages.success(request, text)
    return redirect(url)


def _partial(request: HttpRequest, access: Access, template: str, status: int = 200, **extra: Any) -> HttpResponse:
    """One row of a list, for an htmx inline edit (400 carries the bound form back)."""
    return render(request, f"memory/{template}", _context(access, "", saved=status == 200, **extra), status=status)


def _url(name: str, novel_id: int, anchor: str = "", **kwargs: Any) -> str:
    url = reverse(f"memory:{name}", kwargs={"novel_id": novel_id, **kwargs})
    return f"{url}#{anchor}" if anchor else url


# --- overview --------------------------------------------------------------------------------


@require_safe
def overview(request: HttpRequest, novel_id: int) -> HttpResponse:
    access = novel_access(request, novel_id=novel_id)
    novel = access.novel
    threads = Thread.objects.filter(novel=novel).aggregate(
        live=Count("pk", filter=Q(status__in=UNRESOLVED_THREAD_STATUSES)),
        resolved=Count("pk", filter=~Q(status__in=UNRESOLVED_THREAD_STATUSES)),
    )
    counts = {
        "versions": GlobalSummary.objects.filter(novel=novel).count(),
        "chapter_summaries": ChapterSummary.objects.filter(novel=novel).count(),
        "characters": Character.objects.filter(novel=novel).count(),
        "facts": Fact.objects.filter(novel=novel).count(),
        "live_threads": threads["live"],
        "resolved_threads": threads["resolved"],
        "finalized": Chapter.objects.filter(novel=novel, status=ChapterStatus.FINALIZED).count(),
        "stale": Chapter.objects.filter(novel=novel, memory_stale=True).count(),
    }
    context = _context(access, "overview", current=global_summary_current(novel=novel), counts=counts)
    return render(request, "memory/overview.html", context)


# --- global summary --------------------------------------------------------------------------


def _global_summary_page(
    request: HttpRequest, access: Access, *, form: GlobalSummaryForm | None = None, status: int = 200
) -> HttpResponse:
    novel = access.novel
    versions = GlobalSummary.objects.filter(novel=novel).select_related("edited_by").order_by("-chapter")
    current = versions.first()
    if form is None and access.can_edit:
        form = GlobalSummaryForm(initial={"text": current.text if current else ""})
    context = _context(
        access,
        "global_summary",
        current=current,
        form=form,
        limit=GlobalSummary.MAX_CHARS,
        versions=_page(request, versions, VERSIONS_PER_PAGE),
    )
    return render(request, "memory/global_summary.html", context, status=status)


@require_safe
def global_summary(request: HttpRequest, novel_id: int) -> HttpResponse:
    access = novel_access(request, novel_id=novel_id)
    return _global_summary_page(request, access)


@require_POST
def global_summary_edit(request: HttpRequest, novel_id: int) -> HttpResponse:
    access = novel_access(request, novel_id=novel_id, need=Role.EDITOR)
    form = GlobalSummaryForm(request.POST)
    if form.is_valid():
        try:
            services.global_summary_edit(novel=access.novel, text=form.cleaned_data["text"], user=request.user)  # type: ignore[arg-type]
        except ValidationError as exc:
            form.add_error("text", exc)
        else:
            return _saved(request, "Global summary saved.", _url("global_summary", novel_id))
    return _global_summary_page(request, access, form=form, status=400)


# --- chapter summaries -----------------------------------------------------------------------


def _summary_row(access: Access, summary: ChapterSummary, form: ChapterSummaryForm | None = None) -> dict[str, Any]:
    if form is None and access.can_edit:
        form = ChapterSummaryForm(
            initial={"summary": summary.summary, "skeleton": summary.skeleton}, auto_id=f"id_s{summary.chapter}_%s"
        )
    return {"summary": summary, "form": form, "open": form is not None and form.is_bound}


def _chapter_summaries_page(
    request: HttpRequest,
    access: Access,
    *,
    failed: ChapterSummary | None = None,
    form: ChapterSummaryForm | None = None,
    status: int = 200,
) -> HttpResponse:
    rows_qs = ChapterSummary.objects.filter(novel=access.novel).select_related("edited_by").order_by("chapter")
    if failed is not None:
        rows_qs = rows_qs.exclude(pk=failed.pk)
    page = _page(request, rows_qs, SUMMARIES_PER_PAGE)
    context = _context(
        access,
        "chapter_summaries",
        page=page,
        rows=[_summary_row(access, s) for s in page],
        failed=_summary_row(access, failed, form) if failed is not None else None,
    )
    return render(request, "memory/chapter_summaries.html", context, status=status)


@require_safe
def chapter_summaries(request: HttpRequest, novel_id: int) -> HttpResponse:
    access = novel_access(request, novel_id=novel_id)
    return _chapter_summaries_page(request, access)


@require_POST
def chapter_summary_edit(request: HttpRequest, novel_id: int, chapter: int) -> HttpResponse:
    access = novel_access(request, novel_id=novel_id, need=Role.EDITOR)
    summary = get_object_or_404(ChapterSummary, novel=access.novel, chapter=chapter)
    form = ChapterSummaryForm(request.POST, auto_id=f"id_s{chapter}_%s")
    if form.is_valid():
        try:
            services.chapter_summary_edit(
                summary=summary,
                text=form.cleaned_data["summary"],
                skeleton=form.cleaned_data["skeleton"],
                user=request.user,  # type: ignore[arg-type]
            )
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            if _is_htmx(request):
                summary.refresh_from_db()
                return _partial(request, access, "_chapter_summary_row.html", row=_summary_row(access, summary))
            url = _url("chapter_summaries", novel_id, f"summary-{chapter}")
            return _saved(request, f"Chapter {chapter} summary saved.", url)
    summary.refresh_from_db()
    if _is_htmx(request):
        return _partial(request, access, "_chapter_summary_row.html", 400, row=_summary_row(access, summary, form))
    return _chapter_summaries_page(request, access, failed=summary, form=form, status=400)


# --- characters ------------------------------------------------------------------------------


def _tree(state: dict[str, Any] | None) -> dict[str, Any]:
    """A state tree with every key present, relationships as pairs (presentation only)."""
    tree = {**EMPTY_STATE, **(state or {})}
    return {**tree, "relationships": sorted((tree.get("relationships") or {}).items())}


def _change_lines(changes: dict[str, Any] | None) -> list[str]:
    """What one chapter changed, one readable line per field (presentation only)."""
    lines = []
    for change in (changes or {}).get("changes", []) if isinstance(changes, dict) else []:
        for key, value in change.items() if isinstance(change, dict) else []:
            if key == "name":
                continue
            if isinstance(value, dict):
                value = "; ".join(f"{k}: {v}" for k, v in value.items())
            elif isinstance(value, list):
                value = ", ".join(map(str, value))
            elif isinstance(value, bool):
                value = "yes" if value else "no"
            lines.append(f"{key.replace('_', ' ')}: {value}")
    return lines


@require_safe
def characters(request: HttpRequest, novel_id: int) -> HttpResponse:
    access = novel_access(request, novel_id=novel_id)
    novel = access.novel
    states = {s.character_id: s for s in character_states_latest(novel=novel, before_chapter=LATEST)}
    rows = [
        {"character": c, "state": states.get(c.pk), "tree": _tree(states[c.pk].state) if c.pk in states else None}
        for c in Character.objects.filter(novel=novel).select_related("edited_by").order_by("name")
    ]
    return render(request, "memory/characters.html", _context(access, "characters", rows=rows))


def _character_page(
    request: HttpRequest,
    access: Access,
    character: Character,
    *,
    character_form: CharacterForm | None = None,
    state_form: CharacterStateForm | None = None,
    state: CharacterState | None = None,
    status: int = 200,
) -> HttpResponse:
    history = character_history_selector(character=character)
    page_number = None
    if state is not None:
        # Show the page holding the version whose edit failed.
        page_number = history.filter(chapter__lt=state.chapter).count() // STATES_PER_PAGE + 1
    page = _page(request, history, STATES_PER_PAGE, page_number)
    versions = []
    for version in page:
        form = None
        if state is not None and version.pk == state.pk:
            form = state_form
        elif access.can_edit:
            initial = CharacterStateForm.initial_from(version.state)
            form = CharacterStateForm(initial=initial, auto_id=f"id_v{version.pk}_%s")
        versions.append(
            {
                "version": version,
                "tree": _tree(version.state),
                "changes": _change_lines(version.changes),
                "form": form,
                "open": form is not None and form.is_bound,
            }
        )
    if character_form is None and access.can_edit:
        character_form = CharacterForm(initial=CharacterForm.initial_from(character))
    context = _context(
        access,
        "characters",
        character=character,
        character_form=character_form,
        page=page,
        versions=versions,
    )
    return render(request, "memory/character.html", context, status=status)


@require_safe
def character_history(request: HttpRequest, novel_id: int, character_id: int) -> HttpResponse:
    access = novel_access(request, novel_id=novel_id)
    character = get_object_or_404(Character.objects.select_related("edited_by"), pk=character_id, novel=access.novel)
    return _character_page(request, access, character)


@require_POST
def character_edit(request: HttpRequest, novel_id: int, character_id: int) -> HttpResponse:
    access = novel_access(request, novel_id=novel_id, need=Role.EDITOR)
    character = get_object_or_404(Character, pk=character_id, novel=access.novel)
    form = CharacterForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        try:
            character_edit_service(
                character=character,
                name=data["name"],
                aliases=data["aliases"],
                description=data["description"],
                user=request.user,  # type: ignore[arg-type]
            )
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            url = _url("character_history", novel_id, character_id=character.pk)
            return _saved(request, f"{character.name} saved.", url)
    character.refresh_from_db()
    return _character_page(request, access, character, character_form=form, status=400)


@require_POST
def character_state_edit(request: HttpRequest, novel_id: int, state_id: int) -> HttpResponse:
    access = novel_access(request, novel_id=novel_id, need=Role.EDITOR)
    state = get_object_or_404(CharacterState.objects.select_related("character"), pk=state_id, novel=access.novel)
    form = CharacterStateForm(request.POST, auto_id=f"id_v{state.pk}_%s")
    if form.is_valid():
        try:
            services.character_state_edit(state=state, tree=form.tree(), user=request.user)  # type: ignore[arg-type]
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            return _saved(
                request,
                f"{state.character.name}'s state as of chapter {state.chapter} saved.",
                _url("character_history", novel_id, f"state-{state.pk}", character_id=state.character_id),
            )
    state.refresh_from_db()
    return _character_page(request, access, state.character, state_form=form, state=state, status=400)


# --- facts -----------------------------------------------------------------------------------


def _fact_row(access: Access, fact: Fact, form: FactForm | None = None) -> dict[str, Any]:
    if form is None and access.can_edit:
        form = FactForm(initial=FactForm.initial_from(fact), auto_id=f"id_f{fact.pk}_%s")
    return {"fact": fact, "form": form, "open": form is not None and form.is_bound}


def _chapter_filter(request: HttpRequest) -> int | None:
    raw = request.GET.get("chapter", "")
    return int(raw) if raw.isascii() and raw.isdigit() else None


def _facts_page(
    request: HttpRequest,
    access: Access,
    *,
    create_form: FactForm | None = None,
    failed: Fact | None = None,
    form: FactForm | None = None,
    status: int = 200,
) -> HttpResponse:
    facts = Fact.objects.filter(novel=access.novel).select_related("edited_by").order_by("source_chapter", "id")
    chapter = _chapter_filter(request)
    if chapter is not None:
        facts = facts.filter(source_chapter=chapter)
    if failed is not None:
        facts = facts.exclude(pk=failed.pk)
    page = _page(request, facts, FACTS_PER_PAGE)
    if create_form is None and access.can_edit:
        create_form = FactForm(auto_id="id_new_%s")
    context = _context(
        access,
        "facts",
        page=page,
        chapter=chapter,
        rows=[_fact_row(access, f) for f in page],
        failed=_fact_row(access, failed, form) if failed is not None else None,
        create_form=create_form,
    )
    return render(request, "memory/facts.html", context, status=status)


@require_safe
def facts(request: HttpRequest, novel_id: int) -> HttpResponse:
    access = novel_access(request, novel_id=novel_id)
    return _facts_page(request, access)


@require_POST
def fact_create(request: HttpRequest, novel_id: int) -> HttpResponse:
    access = novel_access(request, novel_id=novel_id, need=Role.EDITOR)
    form = FactForm(request.POST, auto_id="id_new_%s")
    if form.is_valid():
        try:
            fact = services.fact_create(
                novel=access.novel,
                text=form.cleaned_data["text"],
                entities=form.cleaned_data["entities"],
                user=request.user,  # type: ignore[arg-type]
            )
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            return _saved(request, "Fact added.", _url("facts", novel_id, f"fact-{fact.pk}"))
    return _facts_page(request, access, create_form=form, status=400)


@require_POST
def fact_edit(request: HttpRequest, novel_id: int, fact_id: int) -> HttpResponse:
    access = novel_access(request, novel_id=novel_id, need=Role.EDITOR)
    fact = get_object_or_404(Fact, pk=fact_id, novel=access.novel)
    form = FactForm(request.POST, auto_id=f"id_f{fact.pk}_%s")
    if form.is_valid():
        try:
            services.fact_edit(
                fact=fact,
                text=form.cleaned_data["text"],
                entities=form.cleaned_data["entities"],
                user=request.user,  # type: ignore[arg-type]
            )
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            if _is_htmx(request):
                return _partial(request, access, "_fact_row.html", row=_fact_row(access, fact))
            return _saved(request, "Fact saved.", _url("facts", novel_id, f"fact-{fact.pk}"))
    fact.refresh_from_db()
    if _is_htmx(request):
        return _partial(request, access, "_fact_row.html", 400, row=_fact_row(access, fact, form))
    return _facts_page(request, access, failed=fact, form=form, status=400)


@require_POST
def fact_delete(request: HttpRequest, novel_id: int, fact_id: int) -> HttpResponse:
    access = novel_access(request, novel_id=novel_id, need=Role.EDITOR)
    fact = get_object_or_404(Fact, pk=fact_id, novel=access.novel)
    services.fact_delete(fact=fact)
    if _is_htmx(request):
        return HttpResponse("")  # the row swaps itself out
    return _saved(request, "Fact deleted.", _url("facts", novel_id))


# --- threads ---------------------------------------------------------------------------------


def _last_finalized(access: Access) -> int:
    return (
        Chapter.objects.filter(novel=access.novel, status=ChapterStatus.FINALIZED)
        .order_by("-number")
        .values_list("number", flat=True)
        .first()
    ) or 0


def _thread_row(access: Access, thread: Thread, form: ThreadForm | None = None) -> dict[str, Any]:
    if form is None and access.can_edit:
        form = ThreadForm(initial=ThreadForm.initial_from(thread), auto_id=f"id_t{thread.pk}_%s")
    return {"thread": thread, "form": form, "open": form is not None and form.is_bound}


def _threads_page(
    request: HttpRequest,
    access: Access,
    *,
    failed: Thread | None = None,
    form: ThreadForm | None = None,
    status: int = 200,
) -> HttpResponse:
    ledger = thread_ledger(novel=access.novel).select_related("edited_by")
    if failed is not None:
        ledger = ledger.exclude(pk=failed.pk)
    page = _page(request, ledger, THREADS_PER_PAGE)
    context = _context(
        access,
        "threads",
        page=page,
        rows=[_thread_row(access, t) for t in page],
        failed=_thread_row(access, failed, form) if failed is not None else None,
        last_finalized=_last_finalized(access),
    )
    return render(request, "memory/threads.html", context, status=status)


@require_safe
def threads(request: HttpRequest, novel_id: int) -> HttpResponse:
    access = novel_access(request, novel_id=novel_id)
    return _threads_page(request, access)


def _thread_partial(
    request: HttpRequest, access: Access, thread_id: int, form: ThreadForm | None, status: int
) -> HttpResponse:
    thread = thread_ledger(novel=access.novel).select_related("edited_by").get(pk=thread_id)
    row = _thread_row(access, thread, form)
    return _partial(request, access, "_thread.html", status, row=row, last_finalized=_last_finalized(access))


@require_POST
def thread_edit(request: HttpRequest, novel_id: int, thread_id: int) -> HttpResponse:
    access = novel_access(request, novel_id=novel_id, need=Role.EDITOR)
    thread = get_object_or_404(Thread, pk=thread_id, novel=access.novel)
    form = ThreadForm(request.POST, auto_id=f"id_t{thread.pk}_%s")
    if form.is_valid():
        data = form.cleaned_data
        try:
            services.thread_edit(
                thread=thread,
                user=request.user,  # type: ignore[arg-type]
                summary=data["summary"],
                status=data["status"],
                deadline=data["deadline"],
                resolution_note=data["resolution_note"],
            )
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            if _is_htmx(request):
                return _thread_partial(request, access, thread.pk, None, 200)
            return _saved(request, f"[#{thread.number}] saved.", _url("threads", novel_id, f"thread-{thread.pk}"))
    if _is_htmx(request):
        return _thread_partial(request, access, thread.pk, form, 400)
    failed = thread_ledger(novel=access.novel).select_related("edited_by").get(pk=thread.pk)
    return _threads_page(request, access, failed=failed, form=form, status=400)
