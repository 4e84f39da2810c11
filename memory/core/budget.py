"""Fixed-budget context assembly: chapter 1000 costs what chapter 10 costs.

Public names and meanings follow ``longform_memory.budget`` 0.1.1 so either
implementation can be swapped in on valid input; every deliberate difference
is listed in ``memory/core/README.md``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

__all__ = [
    "DEFAULT_MEMORY_BUDGET",
    "MAX_SKELETON_ENTRIES",
    "MIN_SKELETON_STRIDE",
    "SECTION_NAMES",
    "SECTION_SHARE",
    "TOPUP_PRIORITY",
    "BudgetResult",
    "Fitted",
    "SectionInput",
    "allocate",
    "estimate_tokens",
    "fit_items",
    "fit_report",
    "fit_sections",
    "fit_spread",
    "skeleton_chapters",
]

T = TypeVar("T")

SECTION_SHARE: Mapping[str, float] = {
    "entity": 0.217,
    "recent": 0.337,
    "skeleton": 0.145,
    "retrieval": 0.301,
}
SECTION_NAMES: tuple[str, ...] = ("entity", "recent", "skeleton", "retrieval")

# Raising this is tempting and wrong: models skip the middle of long contexts.
DEFAULT_MEMORY_BUDGET = 6000

# The O(1) guarantee: the entry count is capped first and the stride derived
# from it, so the skeleton never grows with the book.
MAX_SKELETON_ENTRIES = 12
# Any denser and the skeleton duplicates the "recent" section.
MIN_SKELETON_STRIDE = 10

# Continuity ("recent") is what a reader notices first when it breaks; the
# skeleton only gives a sense of place in the arc, so it is offered last.
TOPUP_PRIORITY: tuple[str, ...] = ("recent", "entity", "retrieval", "skeleton")

# Token weights in quarter-tokens. The reference counts only five CJK blocks
# as dense and everything else at 4 chars/token, which under-counts CJK
# punctuation, full-width forms, Ext-B+ ideographs, emoji, Thai, jamo,
# half-width kana and Cyrillic. We bias every class upwards instead: an
# over-estimate wastes a little headroom, an under-estimate overflows the
# model's window. ASCII stays at 1/4 so Latin text matches the reference.
_DENSE = re.compile("[\u0800-\u1dff\u2070-\uffff\U00010000-\U0010ffff]")
_MEDIUM = re.compile("[\u0080-\u07ff\u1e00-\u206f]")


def estimate_tokens(text: str) -> int:
    """Heuristic token count, biased high; never below the reference's."""
    if not text:
        return 0
    quarters = len(text)
    if not text.isascii():
        quarters += 3 * len(_DENSE.findall(text)) + len(_MEDIUM.findall(text))
    return -(-quarters // 4)


def allocate(total: int = DEFAULT_MEMORY_BUDGET) -> dict[str, int]:
    """Split ``total`` across the four sections by :data:`SECTION_SHARE`."""
    return {name: int(total * share) for name, share in SECTION_SHARE.items()}


def skeleton_chapters(up_to_chapter: int, exclude_from: int) -> list[int]:
    """Chapters whose existing summaries form the distant-past skeleton.

    ``up_to_chapter`` is the chapter being written (exclusive);
    ``exclude_from`` is the first chapter the "recent" section covers.
    """
    last = min(up_to_chapter - 1, exclude_from - 1)
    if last < 1:
        return []
    stride = max(MIN_SKELETON_STRIDE, -(-last // MAX_SKELETON_ENTRIES))
    return list(range(1, last + 1, stride))


@dataclass
class Fitted(Generic[T]):
    """What survived the budget in one section.

    ``dropped`` counts items cut for lack of room; ``empty`` counts items whose
    text was blank, which are never kept (they would cost nothing and tell the
    model nothing). ``texts`` holds the text that was costed for each kept
    item, which differs from ``to_text`` when a skeleton ``brief`` was used.
    """

    kept: list[T] = field(default_factory=list)
    used_tokens: int = 0
    dropped: int = 0
    empty: int = 0
    texts: list[str] = field(default_factory=list)

    @property
    def used(self) -> int:
        return self.used_tokens


def _costed(items: Sequence[T], to_text: Callable[[T], str]) -> tuple[list[tuple[T, str, int]], int]:
    live: list[tuple[T, str, int]] = []
    empty = 0
    for item in items:
        text = to_text(item)
        if not text or text.isspace():
            empty += 1
            continue
        live.append((item, text, estimate_tokens(text)))
    return live, empty


def _prefix(live: list[tuple[T, str, int]], empty: int, budget: int) -> Fitted[T]:
    out: Fitted[T] = Fitted(empty=empty)
    for item, text, cost in live:
        if out.used_tokens + cost > budget:
            break
        out.kept.append(item)
        out.texts.append(text)
        out.used_tokens += cost
    out.dropped = len(live) - len(out.kept)
    return out


def fit_items(items: Sequence[T], to_text: Callable[[T], str], budget: int) -> Fitted[T]:
    """Keep the longest prefix of ``items`` (descending importance) that fits.

    Whole items only: a truncated summary is read by the model as complete.
    """
    live, empty = _costed(items, to_text)
    return _prefix(live, empty, budget)


def _spread_indices(n: int, m: int) -> list[int]:
    if m <= 1:
        return [0][:m]
    # Half-up rounding of i*(n-1)/(m-1) in integers: first and last always in.
    return [(2 * i * (n - 1) + (m - 1)) // (2 * (m - 1)) for i in range(m)]


def _spread(live: list[tuple[T, str, int]], empty: int, budget: int) -> Fitted[T]:
    n = len(live)
    for m in range(n, 0, -1):
        picked = [live[i] for i in _spread_indices(n, m)]
        used = sum(cost for _, _, cost in picked)
        if used <= budget:
            return Fitted(
                kept=[item for item, _, _ in picked],
                used_tokens=used,
                dropped=n - m,
                empty=empty,
                texts=[text for _, text, _ in picked],
            )
    return Fitted(dropped=n, empty=empty)


def fit_spread(items: Sequence[T], to_text: Callable[[T], str], *, budget: int) -> Fitted[T]:
    """Keep as many items as fit, evenly spaced over the whole sequence.

    For chronological samples (the skeleton) a prefix would keep only the
    oldest chapters; spacing keeps the shape of the whole arc.
    """
    live, empty = _costed(items, to_text)
    return _spread(live, empty, budget)


@dataclass
class SectionInput(Generic[T]):
    """Candidates for one section.

    ``items`` are in descending importance, as in the reference. Two optional
    extras: ``chapter`` lets "recent" be fitted newest first and "skeleton" in
    chapter order whatever order the caller passed; ``brief`` (skeleton only)
    gives a one-line summary used when the full texts do not all fit.
    """

    items: Sequence[T]
    to_text: Callable[[T], str]
    chapter: Callable[[T], int] | None = None
    brief: Callable[[T], str] | None = None


@dataclass
class BudgetResult:
    """Per-section results and the total actually used."""

    entity: Fitted[Any]
    recent: Fitted[Any]
    skeleton: Fitted[Any]
    retrieval: Fitted[Any]
    used_tokens: int
    budget: int

    def section(self, name: str) -> Fitted[Any]:
        if name not in SECTION_NAMES:
            raise KeyError(name)
        fitted: Fitted[Any] = getattr(self, name)
        return fitted


def _fit_one(name: str, sec: SectionInput[Any], budget: int) -> Fitted[Any]:
    items: Sequence[Any] = sec.items
    key = sec.chapter
    if name == "recent":
        if key is not None:
            # The chapters just before the one being written carry continuity;
            # they must be the last to go, whatever order the caller used.
            items = sorted(items, key=key, reverse=True)
        fitted = fit_items(items, sec.to_text, budget)
        if key is not None:
            order = sorted(range(len(fitted.kept)), key=lambda i: key(fitted.kept[i]))
            fitted.kept = [fitted.kept[i] for i in order]
            fitted.texts = [fitted.texts[i] for i in order]
        return fitted
    if name == "skeleton":
        if key is not None:
            items = sorted(items, key=key)
        live, empty = _costed(items, sec.to_text)
        whole = _prefix(live, empty, budget)
        if whole.dropped == 0 or sec.brief is None:
            return whole if whole.dropped == 0 else _spread(live, empty, budget)
        short, short_empty = _costed(items, sec.brief)
        return _spread(short, short_empty, budget)
    return fit_items(items, sec.to_text, budget)


def fit_sections(
    entity: SectionInput[Any],
    recent: SectionInput[Any],
    skeleton: SectionInput[Any],
    retrieval: SectionInput[Any],
    total: int = DEFAULT_MEMORY_BUDGET,
) -> BudgetResult:
    """Two-pass allocation: fill each share, then hand unclaimed headroom to
    the trimmed sections in :data:`TOPUP_PRIORITY` order."""
    share = allocate(total)
    sections = {"entity": entity, "recent": recent, "skeleton": skeleton, "retrieval": retrieval}
    fitted = {key: _fit_one(key, sections[key], share[key]) for key in TOPUP_PRIORITY}
    spare = sum(share[key] - fitted[key].used_tokens for key in TOPUP_PRIORITY)
    for key in TOPUP_PRIORITY:
        if spare <= 0:
            break
        if fitted[key].dropped == 0:
            continue
        # Own usage + spare, never share + spare: the unused share is already
        # inside spare, and counting it twice overshoots the total.
        refit = _fit_one(key, sections[key], fitted[key].used_tokens + spare)
        spare -= refit.used_tokens - fitted[key].used_tokens
        fitted[key] = refit
    return BudgetResult(
        entity=fitted["entity"],
        recent=fitted["recent"],
        skeleton=fitted["skeleton"],
        retrieval=fitted["retrieval"],
        used_tokens=sum(fitted[key].used_tokens for key in TOPUP_PRIORITY),
        budget=total,
    )


def fit_report(result: BudgetResult, *, item_id: Callable[[Any], Any] | None = None) -> dict[str, Any]:
    """A JSON-serialisable summary of a fit, for storing on a job row.

    ``item_id`` maps a kept item to something JSON can hold (an id, a chapter
    number); without it only counts are reported.
    """
    share = allocate(result.budget)
    sections: dict[str, Any] = {}
    for name in SECTION_NAMES:
        fitted = result.section(name)
        entry: dict[str, Any] = {
            "share": share[name],
            "used": fitted.used_tokens,
            "kept": len(fitted.kept),
            "dropped": fitted.dropped,
            "empty": fitted.empty,
        }
        if item_id is not None:
            entry["kept_ids"] = [item_id(item) for item in fitted.kept]
        sections[name] = entry
    return {"budget": result.budget, "used_tokens": result.used_tokens, "sections": sections}
