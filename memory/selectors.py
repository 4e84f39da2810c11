"""Reads of the book's memory. Every selector here issues a fixed number of
queries whatever the chapter number: the chapter loop calls them at chapter
1000 as often as at chapter 10."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import OuterRef, Prefetch, Q, QuerySet, Subquery

from memory.core.threads import UNRESOLVED_THREAD_STATUSES, compare_thread_urgency
from memory.models import ChapterSummary, Character, CharacterState, Fact, GlobalSummary, Thread, ThreadEvent
from novels.models import Chapter, ChapterStatus, Novel


@dataclass
class ThreadView:
    """A live thread as the urgency ordering and the renderer read it."""

    id: int
    number: int
    summary: str
    status: str
    deadline_chapter: int
    last_activated_chapter: int
    opened_at_chapter: int
    planned: bool


def character_states_latest(
    *, novel: Novel, before_chapter: int, names: list[str] | None = None
) -> list[CharacterState]:
    """Each character's newest state version with chapter < before_chapter, in one query."""
    newest = (
        CharacterState.objects.filter(character=OuterRef("pk"), chapter__lt=before_chapter)
        .order_by("-chapter")
        .values("pk")[:1]
    )
    # Driven from the (few) characters, not the (many) state versions: one index probe
    # per character instead of a correlated subquery per version.
    latest_ids = Character.objects.filter(novel=novel).annotate(latest=Subquery(newest)).values("latest")
    qs = CharacterState.objects.filter(pk__in=latest_ids).select_related("character")
    if names is not None:
        qs = qs.filter(character__name__in=names)
    return list(qs)


def characters_as_of(*, novel: Novel, chapter_number: int) -> list[Character]:
    """Characters that exist when chapter N is written (planning, people, or chapters before N)."""
    return list(
        Character.objects.filter(novel=novel).filter(
            Q(source_chapter__isnull=True) | Q(source_chapter__lt=chapter_number)
        )
    )


def live_threads(*, novel: Novel, chapter_number: int) -> list[ThreadView]:
    """Threads still owed when chapter N is written, in compare_thread_urgency order.

    A planned thread whose plant chapter is still ahead is not live yet; a
    thread opened by a later chapter (seen when re-finalizing) is not either.
    """
    rows = Thread.objects.filter(novel=novel, status__in=UNRESOLVED_THREAD_STATUSES).filter(
        Q(opened_at__isnull=True) | Q(opened_at__lte=chapter_number)
    )
    views = [
        ThreadView(
            id=t.pk,
            number=t.number,
            summary=t.summary,
            status=t.status,
            deadline_chapter=t.deadline or 0,
            last_activated_chapter=t.last_activated_at or t.opened_at or 0,
            opened_at_chapter=t.opened_at or 0,
            planned=t.planned,
        )
        for t in rows
    ]
    views.sort(key=lambda v: (compare_thread_urgency(v, chapter_number), v.number))
    return views


def chapters_after(*, novel: Novel, chapter_number: int) -> list[int]:
    """Finalized chapters after N: their memory was built on N's old contributions."""
    return list(
        Chapter.objects.filter(novel=novel, number__gt=chapter_number, status=ChapterStatus.FINALIZED)
        .order_by("number")
        .values_list("number", flat=True)
    )


def global_summary_current(*, novel: Novel, before_chapter: int | None = None) -> GlobalSummary | None:
    qs = GlobalSummary.objects.filter(novel=novel)
    if before_chapter is not None:
        qs = qs.filter(chapter__lt=before_chapter)
    return qs.order_by("-chapter").first()


def memory_overview(*, novel: Novel) -> dict[str, Any]:
    """Everything the memory page shows, in a fixed number of queries."""
    states = {s.character_id: s for s in character_states_latest(novel=novel, before_chapter=2**31 - 1)}
    characters = list(Character.objects.filter(novel=novel).order_by("name"))
    threads = list(Thread.objects.filter(novel=novel).order_by("number"))
    return {
        "global_summary": global_summary_current(novel=novel),
        "chapter_summaries": list(ChapterSummary.objects.filter(novel=novel).order_by("chapter")),
        "characters": [{"character": c, "state": states.get(c.pk)} for c in characters],
        "facts": list(Fact.objects.filter(novel=novel).order_by("source_chapter", "id")),
        "threads": threads,
        "counts": {
            "live_threads": sum(1 for t in threads if t.status in UNRESOLVED_THREAD_STATUSES),
            "resolved_threads": sum(1 for t in threads if t.status not in UNRESOLVED_THREAD_STATUSES),
        },
    }


def thread_ledger(*, novel: Novel) -> QuerySet[Thread]:
    """All threads by number, each with its events oldest first."""
    return (
        Thread.objects.filter(novel=novel)
        .prefetch_related(Prefetch("events", queryset=ThreadEvent.objects.order_by("id").select_related("created_by")))
        .order_by("number")
    )


def character_history(*, character: Character) -> QuerySet[CharacterState]:
    """Every state version of a character, chapter 0 (planning) first."""
    return CharacterState.objects.filter(character=character).select_related("edited_by").order_by("chapter")


def known_threads_for_planning(*, novel: Novel) -> str:
    """The ledger as the planner sees it: stable `#n` labels (blueprint cards name
    threads by these), status and due chapter, most urgent first."""
    last = (
        Chapter.objects.filter(novel=novel, status=ChapterStatus.FINALIZED)
        .order_by("-number")
        .values_list("number", flat=True)
        .first()
    )
    upcoming = (last or 0) + 1
    planned_ahead = Thread.objects.filter(novel=novel, status__in=UNRESOLVED_THREAD_STATUSES, opened_at__gt=upcoming)
    lines = [
        f"#{v.number} [{v.status}] {' '.join(v.summary.split())}"
        + (f" (due by ch. {v.deadline_chapter})" if v.deadline_chapter else "")
        for v in live_threads(novel=novel, chapter_number=upcoming)
    ]
    lines += [
        f"#{t.number} [planned, plant at ch. {t.opened_at}] {' '.join(t.summary.split())}"
        + (f" (due by ch. {t.deadline})" if t.deadline else "")
        for t in planned_ahead.order_by("opened_at", "number")
    ]
    return "\n".join(lines)
