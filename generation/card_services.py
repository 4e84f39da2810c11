"""Blueprint cards as people see and edit them: the card edit service and the
read models the blueprint page shows (cards with their threads, the windows)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from generation.planning import BLUEPRINT_WINDOW, blueprint_window_bounds
from memory.models import Thread
from novels.models import BlueprintCard, Novel

CARD_TEXT_FIELDS = ("title", "position", "core_function", "brief")
CARD_SCALE_FIELDS = ("suspense_density", "cognitive_twist")
CARD_TEXT_LIMIT = 20_000


def card_update(
    *,
    card: BlueprintCard,
    user: User | None,
    title: str,
    position: str,
    core_function: str,
    suspense_density: int,
    cognitive_twist: int,
    brief: str,
) -> BlueprintCard:
    """The author's edit of a card's fields; records who edited it and when.

    Foreshadowing operations are not edited here: they are linked to threads in
    the ledger, and changing them needs the ledger's own service."""
    values: dict[str, Any] = {
        "title": (title or "").strip(),
        "position": (position or "").strip(),
        "core_function": (core_function or "").strip(),
        "brief": (brief or "").strip(),
        "suspense_density": suspense_density,
        "cognitive_twist": cognitive_twist,
    }
    errors: dict[str, str] = {}
    for name in CARD_TEXT_FIELDS:
        if not values[name]:
            errors[name] = "This field cannot be empty."
        elif len(values[name]) > (300 if name == "title" else CARD_TEXT_LIMIT):
            errors[name] = f"Keep this under {300 if name == 'title' else CARD_TEXT_LIMIT:,} characters."
    for name in CARD_SCALE_FIELDS:
        value = values[name]
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 5:
            errors[name] = "Give a whole number from 1 to 5."
    if errors:
        raise ValidationError(errors)
    with transaction.atomic():
        locked = BlueprintCard.objects.select_for_update().get(pk=card.pk)
        for name, value in values.items():
            setattr(locked, name, value)
        locked.edited_by = user  # type: ignore[assignment]
        locked.edited_at = timezone.now()
        locked.save()
    return locked


# --- read models for the blueprint page ---------------------------------------------------


@dataclass(frozen=True)
class OpRow:
    op: str
    label: str
    summary: str
    thread: Thread | None


@dataclass(frozen=True)
class CardRow:
    card: BlueprintCard
    ops: list[OpRow] = field(default_factory=list)

    @property
    def is_demo(self) -> bool:
        return self.card.model_label == "demo"


@dataclass(frozen=True)
class Window:
    start: int
    end: int
    planned: int


@dataclass(frozen=True)
class BlueprintOverview:
    rows: list[CardRow]
    windows: list[Window]
    next_start: int | None
    fully_planned: bool


def _thread_number(label: str) -> int | None:
    digits = label.strip().lstrip("#[").rstrip("]").strip().lstrip("Tt").strip()
    return int(digits) if digits.isascii() and digits.isdigit() else None


def blueprint_overview(*, novel: Novel) -> BlueprintOverview:
    """Cards with their foreshadowing ops resolved to threads (two queries), the
    planned windows, and where the next window would start."""
    cards = list(BlueprintCard.objects.filter(novel=novel).select_related("edited_by").order_by("number"))
    numbers = {
        n
        for c in cards
        for op in c.foreshadowing or []
        if isinstance(op, dict) and (n := _thread_number(str(op.get("thread", "")))) is not None
    }
    threads = {t.number: t for t in Thread.objects.filter(novel=novel, number__in=numbers)} if numbers else {}
    rows = []
    for c in cards:
        ops = []
        for op in c.foreshadowing or []:
            if not isinstance(op, dict):
                continue
            label = str(op.get("thread", "")).strip()
            number = _thread_number(label)
            thread = threads.get(number) if number is not None else None
            ops.append(
                OpRow(
                    op=str(op.get("op", "")),
                    label=thread.label if thread is not None else label,
                    summary=str(op.get("summary", "")),
                    thread=thread,
                )
            )
        rows.append(CardRow(card=c, ops=ops))
    counts: dict[int, int] = {}
    for c in cards:
        counts[c.window_start] = counts.get(c.window_start, 0) + 1
    windows = [
        Window(start=start, end=blueprint_window_bounds(novel=novel, start=start)[1], planned=count)
        for start, count in sorted(counts.items())
    ]
    last = cards[-1].number if cards else 0
    fully_planned = bool(novel.target_chapters) and last >= novel.target_chapters
    # Windows start at 1, 26, 51, …; after a short last window (the target grew
    # since) the way on is to re-plan that window, not to start a new one.
    next_start = last + 1 if not fully_planned and last % BLUEPRINT_WINDOW == 0 else None
    return BlueprintOverview(rows=rows, windows=windows, next_start=next_start, fully_planned=fully_planned)
