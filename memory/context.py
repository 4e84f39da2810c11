"""What the writer sees for chapter N: a fixed-size memory block plus the parts
that are not memory (previous tail, threads, blueprint cards, owed payoffs).

Sections of the budget (memory.core.budget.fit_sections):
- entity: the character state tree (latest version before N, dead marked) and
  fact cards; characters and facts that the chapter's cards or the previous
  tail mention come first.
- recent: the summaries of the last 3 chapters, newest first.
- skeleton: sampled chapters (skeleton_chapters), full summary when they all
  fit, else their one-line skeletons.
- retrieval: distant passages (memory.core.retrieval).
The global summary is not one of the four: it is the spine of every draft, so
it is sent whole and its tokens (with the section headings) come off the top
of the budget before the four sections split the rest. The whole block is
therefore never larger than novel.memory_budget; if the global summary alone
would not fit, it is dropped and the snapshot says so.

Query count is fixed (about ten) whatever N is: every read is one bulk query.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, F, Max, Q

from memory.core.budget import SectionInput, allocate, estimate_tokens, fit_sections, skeleton_chapters
from memory.core.retrieval import Passage as CorePassage
from memory.core.retrieval import RetrievalIndex
from memory.core.threads import OwedThread, ThreadLabels, plan_owed_payoff, render_known_threads
from memory.models import ChapterSummary, Fact, Passage
from memory.selectors import (
    ThreadView,
    character_states_latest,
    characters_as_of,
    global_summary_current,
    live_threads,
)
from memory.text import alias_map, names_in
from novels.models import Architecture, BlueprintCard, Chapter, Novel
from novels.selectors import card_as_dict

PREVIOUS_TAIL_CHARS = 800
RECENT_CHAPTERS = 3
# Newest facts fetched as candidates; the entity share holds far fewer, and
# fetching every fact of a 1000-chapter book per draft would grow with the book.
FACT_CANDIDATES = 300

_LABELS: dict[str, dict[str, str]] = {
    "en": {
        "global": "## Story so far",
        "recent": "## Recent chapters (newest first)",
        "entity": "## Characters and facts",
        "skeleton": "## Earlier chapters",
        "retrieval": "## Passages from earlier chapters",
        "dead": "DEAD",
        "chapter": "Ch.{n}",
        "owed": "Thread [T{i}] must be paid off in this chapter: {summary} (due by Ch.{deadline}).",
    },
    "zh": {
        "global": "## 全局摘要",
        "recent": "## 近章摘要（由近及远）",
        "entity": "## 角色状态与事实",
        "skeleton": "## 前文骨架",
        "retrieval": "## 远章片段",
        "dead": "已死亡",
        "chapter": "第{n}章",
        "owed": "伏笔 [T{i}] 必须在本章回收：{summary}（原定第{deadline}章前回收）。",
    },
}
_ZH_THREAD_LABELS = ThreadLabels(empty="（暂无）", in_progress="[推进中] ", due=lambda n: f"（第{n}章前回收）")


def _labels(language: str) -> dict[str, str]:
    return _LABELS["zh"] if language.split("-")[0].lower() == "zh" else _LABELS["en"]


@dataclass(frozen=True)
class _Item:
    key: str
    text: str
    chapter: int = 0


@dataclass
class AssembledContext:
    chapter_number: int
    language: str
    architecture: str = ""
    previous_tail: str = ""
    global_summary: str = ""
    recent_summaries: list[dict[str, Any]] = field(default_factory=list)
    characters: list[dict[str, Any]] = field(default_factory=list)
    facts: list[dict[str, Any]] = field(default_factory=list)
    threads_text: str = ""
    # The [T1..Tn] list in order: the extractor's citations index into it.
    thread_ids: list[int] = field(default_factory=list)
    retrieval: list[dict[str, Any]] = field(default_factory=list)
    skeleton: list[dict[str, Any]] = field(default_factory=list)
    cards: list[dict[str, Any]] = field(default_factory=list)
    owed_payoffs: list[str] = field(default_factory=list)
    memory_block: str = ""
    memory_tokens: int = 0
    snapshot: dict[str, Any] = field(default_factory=dict)


# --- retrieval index cache ---------------------------------------------------

_INDEX_CACHE: OrderedDict[int, tuple[tuple[int, int], RetrievalIndex]] = OrderedDict()
_INDEX_LOCK = threading.Lock()
INDEX_CACHE_SIZE = 8


def _passage_index(*, novel: Novel) -> RetrievalIndex:
    """The book's retrieval index, rebuilt only when its passages changed.

    Write-back replaces passages (new ids), so (last id, count) identifies the
    set; one cheap aggregate per draft instead of re-tokenising every passage.
    """
    stats = Passage.objects.filter(novel=novel).aggregate(last=Max("id"), count=Count("id"))
    key = (stats["last"] or 0, stats["count"] or 0)
    with _INDEX_LOCK:
        cached = _INDEX_CACHE.get(novel.pk)
        if cached is not None and cached[0] == key:
            _INDEX_CACHE.move_to_end(novel.pk)
            return cached[1]
    rows = Passage.objects.filter(novel=novel).values_list("id", "chapter", "text", "entities", "embedding")
    index = RetrievalIndex(
        [
            CorePassage(passage_id=pk, chapter=ch, text=text, entities=tuple(ents or ()), vector=emb or None)
            for pk, ch, text, ents, emb in rows
        ]
    )
    with _INDEX_LOCK:
        _INDEX_CACHE[novel.pk] = (key, index)
        _INDEX_CACHE.move_to_end(novel.pk)
        while len(_INDEX_CACHE) > INDEX_CACHE_SIZE:
            _INDEX_CACHE.popitem(last=False)
    return index


def retrieval_cache_clear() -> None:
    with _INDEX_LOCK:
        _INDEX_CACHE.clear()


# --- rendering -----------------------------------------------------------------


def _state_line(name: str, aliases: Sequence[str], state: dict[str, Any], dead_label: str) -> str:
    head = name + (f" ({', '.join(aliases)})" if aliases else "")
    if state.get("alive") is False:
        head += f" [{dead_label}]"
    parts = [str(state[k]) for k in ("location", "physical", "mental") if state.get(k)]
    if state.get("items"):
        parts.append("items: " + ", ".join(map(str, state["items"])))
    if state.get("abilities"):
        parts.append("abilities: " + ", ".join(map(str, state["abilities"])))
    if state.get("relationships"):
        parts.append("; ".join(f"{k}: {v}" for k, v in state["relationships"].items()))
    return f"- {head}: " + "; ".join(parts) + "\n" if parts else f"- {head}\n"


def _architecture_text(novel: Novel) -> str:
    arch = Architecture.objects.filter(novel=novel).first()
    if arch is None:
        return ""
    return "\n\n".join(getattr(arch, part) for part in Architecture.PARTS if getattr(arch, part))


def _owed(views: list[ThreadView], *, chapter: int, total: int, label: str) -> list[str]:
    position = {v.id: i + 1 for i, v in enumerate(views)}
    owed = {
        v.id: OwedThread(v.summary, v.opened_at_chapter, v.deadline_chapter, chapter - v.deadline_chapter)
        for v in views
        if 0 < v.deadline_chapter <= chapter
    }
    must, _rest = plan_owed_payoff(list(owed.values()), chapter, total)
    if must is None:
        return []
    thread_id = next(tid for tid, o in owed.items() if o is must)
    return [label.format(i=position[thread_id], summary=must.summary, deadline=must.deadline_chapter)]


def _section_report(name: str, candidates: list[_Item], fitted: Any, share: int) -> dict[str, Any]:
    kept = {item.key for item in fitted.kept}
    return {
        "share": share,
        "used": fitted.used_tokens,
        "kept": [item.key for item in fitted.kept],
        "dropped": [item.key for item in candidates if item.key not in kept and item.text.strip()],
        "empty": fitted.empty,
        "tokens": {item.key: estimate_tokens(text) for item, text in zip(fitted.kept, fitted.texts, strict=True)},
    }


# --- assembly ------------------------------------------------------------------


def context_assemble(
    *, novel: Novel, chapter_number: int, query_vector: Sequence[float] | None = None
) -> AssembledContext:
    n = chapter_number
    if n < 1:
        raise ValueError("chapter_number starts at 1")
    labels = _labels(novel.language)
    ctx = AssembledContext(chapter_number=n, language=novel.language)

    cards = list(BlueprintCard.objects.filter(novel=novel, number__in=[n, n + 1]).order_by("number"))
    ctx.cards = [card_as_dict(c) for c in cards]
    views = live_threads(novel=novel, chapter_number=n)
    thread_labels = _ZH_THREAD_LABELS if labels is _LABELS["zh"] else ThreadLabels()
    ctx.threads_text = render_known_threads(views, thread_labels)
    ctx.thread_ids = [v.id for v in views]
    ctx.owed_payoffs = _owed(views, chapter=n, total=novel.target_chapters, label=labels["owed"])
    if n == 1:
        # The opening chapter sets the book's tone: worth the whole architecture.
        ctx.architecture = _architecture_text(novel)
        ctx.snapshot = {"chapter": 1, "mode": "architecture", "threads": ctx.thread_ids}
        return ctx

    previous = Chapter.objects.filter(novel=novel, number=n - 1).values_list("text", flat=True).first() or ""
    ctx.previous_tail = previous[-PREVIOUS_TAIL_CHARS:]

    recent_from = max(1, n - RECENT_CHAPTERS)
    sampled = skeleton_chapters(n, recent_from)
    wanted = [*range(recent_from, n), *sampled]
    summaries = {s.chapter: s for s in ChapterSummary.objects.filter(novel=novel, chapter__in=wanted)}
    current = global_summary_current(novel=novel, before_chapter=n)

    characters = characters_as_of(novel=novel, chapter_number=n)
    states = {s.character_id: s for s in character_states_latest(novel=novel, before_chapter=n)}
    aliases = alias_map((c.name, c.aliases or []) for c in characters)
    focus_text = "\n".join([*(f"{c.title}\n{c.position}\n{c.brief}" for c in cards), ctx.previous_tail])
    focused = set(names_in(focus_text, aliases))
    facts = list(
        Fact.objects.filter(novel=novel)
        .filter(Q(source_chapter__lt=n) | Q(source_chapter__isnull=True))
        .order_by(F("source_chapter").desc(nulls_first=True), "-id")
        .values("id", "text", "entities", "source_chapter")[:FACT_CANDIDATES]
    )

    char_items: list[tuple[bool, int, _Item]] = []
    for c in characters:
        state_row = states.get(c.pk)
        state = state_row.state if state_row else {}
        line = _state_line(c.name, c.aliases or [], state, labels["dead"])
        char_items.append((c.name in focused, state_row.chapter if state_row else -1, _Item(f"character:{c.pk}", line)))
        ctx.characters.append(
            {"id": c.pk, "name": c.name, "state": state, "alive": state.get("alive", True) is not False}
        )
    char_items.sort(key=lambda t: (not t[0], -t[1], t[2].key))
    # Plain rows, not model instances: at chapter 1000 these are hundreds of candidates.
    fact_items = [
        (bool(focused & set(f["entities"] or [])), _Item(f"fact:{f['id']}", f"- {f['text']}\n")) for f in facts
    ]
    ctx.facts = [
        {"id": f["id"], "text": f["text"], "entities": f["entities"], "chapter": f["source_chapter"]} for f in facts
    ]
    entity = (
        [i for hot, _, i in char_items if hot]
        + [i for hot, i in fact_items if hot]
        + [i for hot, _, i in char_items if not hot]
        + [i for hot, i in fact_items if not hot]
    )

    chapter_label = labels["chapter"]
    recent = [
        _Item(f"summary:{c}", f"{chapter_label.format(n=c)}: {summaries[c].summary}\n", c)
        for c in range(n - 1, recent_from - 1, -1)
        if c in summaries
    ]
    skeleton = [
        _Item(f"skeleton:{c}", f"{chapter_label.format(n=c)}: {summaries[c].summary}\n", c)
        for c in sampled
        if c in summaries
    ]
    skeleton_brief = {
        item.key: f"{chapter_label.format(n=item.chapter)}: {summaries[item.chapter].skeleton}\n" for item in skeleton
    }

    index = _passage_index(novel=novel)
    query_text = "\n".join([*(f"{c.title}\n{c.brief}" for c in cards[:1]), ctx.previous_tail])
    groups = [(c.name, *(c.aliases or [])) for c in characters if c.name in focused]
    query_kwargs: dict[str, Any] = {}
    if query_vector is not None and novel.embedding_min_score is not None:
        query_kwargs["vector_min_score"] = novel.embedding_min_score
    hits = index.query(
        chapter=n,
        total_chapters=novel.target_chapters,
        text=query_text,
        entities=groups,
        query_vector=query_vector,
        **query_kwargs,
    )
    hit_by_key = {f"passage:{h.passage_id}": h for h in hits}
    retrieval = [
        _Item(f"passage:{h.passage_id}", f"({chapter_label.format(n=h.chapter)}) {h.passage.text}\n", h.chapter)
        for h in hits
    ]

    headers = "".join(f"{labels[k]}\n\n" for k in ("global", "recent", "entity", "skeleton", "retrieval"))
    reserved = estimate_tokens(headers)
    global_text = f"{current.text}\n" if current is not None else ""
    global_tokens = estimate_tokens(global_text)
    budget = novel.memory_budget
    global_kept = bool(global_text) and reserved + global_tokens <= budget
    section_total = max(0, budget - reserved - (global_tokens if global_kept else 0))

    result = fit_sections(
        SectionInput(entity, lambda i: i.text),
        SectionInput(recent, lambda i: i.text, chapter=lambda i: i.chapter),
        SectionInput(skeleton, lambda i: i.text, chapter=lambda i: i.chapter, brief=lambda i: skeleton_brief[i.key]),
        SectionInput(retrieval, lambda i: i.text),
        section_total,
    )

    blocks: list[str] = []
    if global_kept:
        blocks.append(f"{labels['global']}\n{global_text}\n")
        ctx.global_summary = current.text if current is not None else ""
    recent_pairs = sorted(zip(result.recent.kept, result.recent.texts, strict=True), key=lambda p: -p[0].chapter)
    for name, pairs in (
        ("recent", recent_pairs),
        ("entity", list(zip(result.entity.kept, result.entity.texts, strict=True))),
        ("skeleton", list(zip(result.skeleton.kept, result.skeleton.texts, strict=True))),
        ("retrieval", list(zip(result.retrieval.kept, result.retrieval.texts, strict=True))),
    ):
        if pairs:
            blocks.append(f"{labels[name]}\n" + "".join(text for _, text in pairs) + "\n")
    ctx.memory_block = "".join(blocks).rstrip("\n")
    ctx.memory_tokens = estimate_tokens(ctx.memory_block)

    ctx.recent_summaries = [{"chapter": i.chapter, "summary": summaries[i.chapter].summary} for i, _ in recent_pairs]
    ctx.skeleton = [
        {"chapter": i.chapter, "text": t.strip()}
        for i, t in zip(result.skeleton.kept, result.skeleton.texts, strict=True)
    ]
    ctx.retrieval = [
        {**hit_by_key[i.key].as_dict(), "text": hit_by_key[i.key].passage.text} for i in result.retrieval.kept
    ]

    share = allocate(section_total)
    candidates = {"entity": entity, "recent": recent, "skeleton": skeleton, "retrieval": retrieval}
    ctx.snapshot = {
        "chapter": n,
        "mode": "memory",
        "budget": budget,
        "used": ctx.memory_tokens,
        "reserved": {"headers": reserved, "global_summary": global_tokens if global_kept else 0},
        "global_summary": {
            "chapter": current.chapter if current is not None else None,
            "tokens": global_tokens,
            "kept": global_kept,
        },
        "sections": {
            name: _section_report(name, candidates[name], result.section(name), share[name]) for name in candidates
        },
        "sections_used": result.used_tokens,
        "retrieval_scores": [h.as_dict() for h in hits],
        "skeleton_chapters": sampled,
        "recent_chapters": [i.chapter for i in recent],
        "previous_tail_chars": len(ctx.previous_tail),
        "threads": ctx.thread_ids,
        "owed_payoffs": ctx.owed_payoffs,
    }
    return ctx


def passage_index(*, novel: Novel) -> RetrievalIndex:
    """The book's retrieval index (cached); for benchmarks and diagnostics."""
    return _passage_index(novel=novel)
