"""Open loops: promises the book has made and not yet kept.

One definition of "still owed" (:data:`UNRESOLVED_THREAD_STATUSES`); a
checker that forgets "progressing" creates a ratchet where a loop, once
advanced, can never be cited or closed again (payoff 0/25 before, 17/27 after
the predicate was unified).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = [
    "DEFAULT_THREAD_LABELS",
    "MAX_THREAD_OPS_PER_CHAPTER",
    "MUST_RESOLVE_OVERDUE",
    "UNRESOLVED_THREAD_STATUSES",
    "KnownThread",
    "OwedThread",
    "RawThreadItem",
    "ThreadLabels",
    "ThreadOp",
    "ThreadUrgency",
    "compare_thread_urgency",
    "escape_summary",
    "is_unresolved",
    "parse_thread_ref",
    "plan_owed_payoff",
    "plan_thread_ops",
    "render_known_threads",
    "resolve_thread_deadline",
]

UNRESOLVED_THREAD_STATUSES: tuple[str, ...] = ("open", "progressing")

# 3, not 1: forcing payoff one chapter late turns the model's own
# chapter-estimation error into contrived resolutions.
MUST_RESOLVE_OVERDUE = 3
# Deadline when the book's length is unknown: concrete, never 0.
_FALLBACK_DEADLINE_SPAN = 10
# Absorbs the occasional flood of model output.
MAX_THREAD_OPS_PER_CHAPTER = 10

# Every form the renderer produces or a model plausibly echoes back:
# T2, t2, [T2], (T2), T2., T2:, #T2, T 2, [T2]. ASCII digits only.
_REF = re.compile(r"^[#\[(]*\s*t\s*([0-9]+)\s*[\])]?\s*[.:,;]?$", re.ASCII | re.IGNORECASE)
_INLINE_REF = re.compile(r"\[(\s*[Tt]\s*\d+\s*)\]")


def is_unresolved(status: str) -> bool:
    """The one "still owed" predicate; never inline ``status == "open"``."""
    return status in UNRESOLVED_THREAD_STATUSES


def _deadline_number(raw: Any) -> int | None:
    if isinstance(raw, int):
        return int(raw)
    if isinstance(raw, str):
        text = raw.strip()
        # float() accepts "１２" and "١٢"; thread refs reject non-ASCII
        # digits, so deadlines do too.
        if not text.isascii():
            return None
        try:
            value = float(text)
        except ValueError:
            return None
    else:
        try:
            value = float(raw)
        except (TypeError, ValueError, OverflowError):
            return None
    # int(float("inf")) raises in the reference; infinity is no chapter.
    if not math.isfinite(value):
        return None
    return int(value)


def resolve_thread_deadline(raw: Any, chapter_number: int, total_chapters: int) -> int:
    """The deadline to record for a newly planted loop.

    Never 0 (a dead value: overdue checks skip it), never a past chapter,
    never past the planned end while the book still has one ahead. A model's
    0 or non-answer means "the ending". Never raises.
    """
    n = _deadline_number(raw)
    end = total_chapters if total_chapters > chapter_number and total_chapters >= 1 else None
    if n is not None and n > chapter_number and n >= 1:
        return min(n, end) if end is not None else n
    if end is not None:
        return end
    return max(chapter_number + _FALLBACK_DEADLINE_SPAN, 1)


@dataclass
class OwedThread:
    """A loop still owed, with how late it is (0 = due exactly now)."""

    summary: str
    opened_at_chapter: int
    deadline_chapter: int
    overdue_by: int


def plan_owed_payoff(
    threads: Sequence[OwedThread], chapter_number: int, total_chapters: int
) -> tuple[OwedThread | None, list[OwedThread]]:
    """Which overdue loop must close in this chapter: ``(must_resolve, rest)``.

    Escalates with lateness: 3+ chapters overdue, or the final quarter of the
    book, makes the most overdue (then oldest) loop mandatory.
    """
    if not threads:
        return None, []
    ordered = sorted(threads, key=lambda t: (-t.overdue_by, t.opened_at_chapter))
    worst = ordered[0]
    in_endgame = total_chapters > 0 and chapter_number >= -(-total_chapters * 3 // 4)
    if worst.overdue_by >= MUST_RESOLVE_OVERDUE or in_endgame:
        return worst, ordered[1:]
    return None, ordered


@dataclass
class ThreadUrgency:
    """The three keys the urgency ordering reads."""

    deadline_chapter: int
    last_activated_chapter: int
    opened_at_chapter: int


class _Urgency(Protocol):
    deadline_chapter: int
    last_activated_chapter: int
    opened_at_chapter: int


def compare_thread_urgency(item: _Urgency, chapter_number: int) -> tuple[int, int, int, int, int]:
    """Sort key: due/overdue, earlier deadline, has a deadline, stalest,
    planted earliest. The prose prompt and the extraction list must sort with
    this same key, or the [T3] sent is not the T3 written back."""
    has_deadline = item.deadline_chapter > 0
    urgent = has_deadline and item.deadline_chapter <= chapter_number
    return (
        0 if urgent else 1,
        0 if has_deadline else 1,
        item.deadline_chapter if has_deadline else 0,
        item.last_activated_chapter,
        item.opened_at_chapter,
    )


@dataclass
class RawThreadItem:
    """One loop as the model reported it: unvalidated."""

    action: str | None = None
    ref: str | None = None
    summary: str | None = None
    thread_type: str | None = None
    deadline_chapter: Any = None
    resolution_note: str | None = None


@dataclass
class KnownThread:
    """A loop on record, in exactly the order of the [T1..Tn] list sent."""

    id: str
    status: str


@dataclass
class ThreadOp:
    """One planned change: ``kind`` is resolve / progress / open / skip.

    ``reason`` (skip only): no-summary, unmatched-ref, already-resolved or
    unknown-action.
    """

    kind: str
    id: str | None = None
    summary: str = ""
    resolution_note: str = ""
    thread_type: str | None = None
    deadline_chapter: int = 0
    reason: str | None = None


def parse_thread_ref(raw: Any) -> int | None:
    """``"T3"``, ``"[T3]"``, ``"T3."``, ``"#T3"``, ``"T 3"`` -> index 2.

    None when it is not a thread reference in ASCII digits.
    """
    m = _REF.match(str(raw if raw is not None else "").strip())
    if not m:
        return None
    n = int(m.group(1))
    return n - 1 if n >= 1 else None


def _names_a_thread(raw: Any) -> bool:
    # Any digit (of any script) means the model meant some specific loop; if
    # that loop does not parse or exist it must not become a new one.
    return raw is not None and any(unicodedata.category(ch) == "Nd" for ch in str(raw))


def plan_thread_ops(
    items: Sequence[RawThreadItem],
    known: Sequence[KnownThread],
    chapter_number: int,
    total_chapters: int,
    max_ops: int = MAX_THREAD_OPS_PER_CHAPTER,
) -> list[ThreadOp]:
    """Translate what the model reported into store operations.

    Only ``open`` (or no action) may open a loop, and only when it names no
    loop at all; an unmatched reference never opens or resolves anything. An
    ``open`` naming a live loop means that loop moved (progress). A loop that
    is resolved, on record or earlier in this chapter, is never resolved or
    advanced again.
    """
    ops: list[ThreadOp] = []
    closed: set[int] = set()
    for item in list(items)[: max(0, max_ops)]:
        summary = (item.summary or "").strip()
        if not summary:
            ops.append(ThreadOp(kind="skip", reason="no-summary"))
            continue
        action = (item.action or "").strip().lower() or "open"
        idx = parse_thread_ref(item.ref)
        in_range = idx is not None and 0 <= idx < len(known)
        if idx is not None and in_range and (idx in closed or not is_unresolved(known[idx].status)):
            ops.append(ThreadOp(kind="skip", reason="already-resolved", summary=summary))
            continue
        if action == "resolve":
            if idx is None or not in_range:
                # A wrong guess closes a real loop irreversibly; prefer a miss.
                ops.append(ThreadOp(kind="skip", reason="unmatched-ref", summary=summary))
                continue
            closed.add(idx)
            ops.append(
                ThreadOp(
                    kind="resolve",
                    id=known[idx].id,
                    resolution_note=(item.resolution_note or "").strip(),
                    summary=summary,
                )
            )
            continue
        if idx is not None and in_range:
            ops.append(ThreadOp(kind="progress", id=known[idx].id, summary=summary))
            continue
        if action == "progress" or (action == "open" and _names_a_thread(item.ref)):
            # Hallucinated ids were the second engine of ever-growing loops.
            ops.append(ThreadOp(kind="skip", reason="unmatched-ref", summary=summary))
            continue
        if action != "open":
            ops.append(ThreadOp(kind="skip", reason="unknown-action", summary=summary))
            continue
        ops.append(
            ThreadOp(
                kind="open",
                summary=summary,
                thread_type=item.thread_type,
                deadline_chapter=resolve_thread_deadline(
                    item.deadline_chapter, chapter_number, total_chapters
                ),
            )
        )
    return ops


def _default_due(n: int) -> str:
    return f" (due by Ch.{n})"


@dataclass
class ThreadLabels:
    """Labels for the rendered list; localise them with the book's language
    (frozen labels in another language made the guard reject whole replies)."""

    empty: str = "(none on record yet)"
    in_progress: str = "[in progress] "
    due: Callable[[int], str] = field(default=_default_due)


DEFAULT_THREAD_LABELS = ThreadLabels()


def escape_summary(summary: Any) -> str:
    """One rendered line per loop: line breaks and other control characters
    become spaces, and a bracketed ``[T9]`` inside a summary becomes
    ``(T9)``, so no summary can forge an entry the model would cite."""
    text = "" if summary is None else str(summary)
    text = "".join(
        " " if unicodedata.category(ch) in ("Cc", "Zl", "Zp") else ch for ch in text
    )
    return _INLINE_REF.sub(r"(\1)", text)


def render_known_threads(rows: Sequence[Any], labels: ThreadLabels = DEFAULT_THREAD_LABELS) -> str:
    """Render loops as a numbered ``[T1] ...`` list; numbering must match the
    ``known`` sequence later given to :func:`plan_thread_ops`.

    Rows need ``summary``, ``status`` and ``deadline_chapter`` attributes.
    """
    if not rows:
        return labels.empty
    lines = []
    for i, row in enumerate(rows):
        tag = labels.in_progress if row.status == "progressing" else ""
        due = labels.due(row.deadline_chapter) if row.deadline_chapter else ""
        lines.append(f"[T{i + 1}] {tag}{escape_summary(row.summary)}{due}")
    return "\n".join(lines)
