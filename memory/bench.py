"""The figures of `manage.py bench`: each returns plain data (JSON-ready).

Timings are medians over repeated runs with min and max beside them; nothing
here asserts a speed. Model time is never included (no model is called)."""

from __future__ import annotations

import functools
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from django.db import connection, reset_queries
from django.test.utils import CaptureQueriesContext

from memory.core.budget import estimate_tokens


def stats(samples_ms: Sequence[float]) -> dict[str, float]:
    if not samples_ms:
        return {"median_ms": 0.0, "min_ms": 0.0, "max_ms": 0.0, "n": 0}
    return {
        "median_ms": round(statistics.median(samples_ms), 3),
        "min_ms": round(min(samples_ms), 3),
        "max_ms": round(max(samples_ms), 3),
        "n": len(samples_ms),
    }


def timed(fn: Callable[[], Any], repeats: int) -> tuple[Any, list[float]]:
    samples, result = [], None
    for _ in range(max(1, repeats)):
        start = time.perf_counter()
        result = fn()
        samples.append((time.perf_counter() - start) * 1000)
    return result, samples


# --- figure 1: memory block size against sending everything ---------------------------


def full_memory_tokens(*, novel: Any, chapter: int) -> int:
    """What a tool without a budget sends: every earlier summary, every character's
    current state, every fact and every live thread, in full."""
    from memory.models import ChapterSummary, Fact, GlobalSummary, Thread
    from memory.selectors import character_states_latest

    summaries = ChapterSummary.objects.filter(novel=novel, chapter__lt=chapter).values_list("summary", flat=True)
    facts = Fact.objects.filter(novel=novel, source_chapter__lt=chapter).values_list("text", flat=True)
    threads = (
        Thread.objects.filter(novel=novel, opened_at__lt=chapter)
        .exclude(status="resolved")
        .values_list("summary", flat=True)
    )
    glob = (
        GlobalSummary.objects.filter(novel=novel, chapter__lt=chapter)
        .order_by("-chapter")
        .values_list("text", flat=True)
        .first()
        or ""
    )
    states = character_states_latest(novel=novel, before_chapter=chapter)
    state_text = "\n".join(f"{s.character.name}: {s.state}" for s in states)
    return (
        sum(estimate_tokens(t) for t in summaries)
        + sum(estimate_tokens(t) for t in facts)
        + sum(estimate_tokens(t) for t in threads)
        + estimate_tokens(glob)
        + estimate_tokens(state_text)
    )


def figure_memory_size(*, novel: Any, chapters: Sequence[int]) -> list[dict[str, Any]]:
    from memory.context import context_assemble

    rows = []
    for n in chapters:
        ctx = context_assemble(novel=novel, chapter_number=n)
        full = full_memory_tokens(novel=novel, chapter=n)
        rows.append(
            {
                "chapter": n,
                "budgeted_tokens": ctx.memory_tokens,
                "full_tokens": full,
                "budget": novel.memory_budget,
                "ratio_full_to_budgeted": round(full / max(1, ctx.memory_tokens), 2),
            }
        )
    return rows


# --- figure 2: whole prompt per call --------------------------------------------------------


def figure_prompt_sizes(*, novel: Any, chapters: Sequence[int]) -> list[dict[str, Any]]:
    from generation.chapter_steps import draft_prompt_context, extraction_prompt_context
    from generation.prompts import render
    from novels.models import Chapter

    rows = []
    for n in chapters:
        chapter = Chapter.objects.get(novel=novel, number=n)
        draft_ctx, _ = draft_prompt_context(novel=novel, number=n)
        summary_ctx, extract_ctx, _ids = extraction_prompt_context(novel=novel, chapter=chapter)
        calls = {
            "draft": render("draft", language=novel.language, context=draft_ctx),
            "review": render("review", language=novel.language, context={**draft_ctx, "chapter_text": chapter.text}),
            "finalize_summary": render("finalize_summary", language=novel.language, context=summary_ctx),
            "finalize_extract": render("finalize_extract", language=novel.language, context=extract_ctx),
        }
        sizes = {k: sum(estimate_tokens(m["content"]) for m in v) for k, v in calls.items()}
        rows.append({"chapter": n, **sizes, "total": sum(sizes.values())})
    return rows


# --- figure 3: queries and latency of context assembly ----------------------------------------


def figure_assembly(*, novel: Any, chapters: Sequence[int], repeats: int) -> list[dict[str, Any]]:
    from memory.context import context_assemble, retrieval_cache_clear

    rows = []
    for n in chapters:
        retrieval_cache_clear()
        with CaptureQueriesContext(connection) as cold_q:
            _, cold = timed(functools.partial(context_assemble, novel=novel, chapter_number=n), 1)
        with CaptureQueriesContext(connection) as warm_q:
            context_assemble(novel=novel, chapter_number=n)
        _, warm = timed(functools.partial(context_assemble, novel=novel, chapter_number=n), repeats)
        rows.append(
            {
                "chapter": n,
                "queries_cold": len(cold_q),
                "queries": len(warm_q),
                "cold_ms": round(cold[0], 3),
                **stats(warm),
            }
        )
        reset_queries()
    return rows


# --- figure 4: retrieval latency and recall on planted cues --------------------------------------


def figure_retrieval(*, novel: Any, cues: Sequence[Any], repeats: int) -> dict[str, Any]:
    """Recall of planted cues, two ways. `named`: the recall chapter's card names the object
    (query text and entity = the cue), the case the deterministic formula is built for.
    `passage`: the query is the whole recall passage with every character it names as an
    entity — there a rare object competes with passages sharing several main characters."""
    from memory.context import passage_index
    from memory.models import Character, Passage
    from memory.text import alias_map, names_in

    index = passage_index(novel=novel)
    aliases = alias_map((c.name, c.aliases or []) for c in Character.objects.filter(novel=novel))
    samples: list[float] = []
    recalled = {"named": 0, "passage": 0}
    details = []
    for cue in cues:
        passage = (
            Passage.objects.filter(novel=novel, chapter=cue.recalled_in, text__contains=cue.name)
            .values_list("text", flat=True)
            .first()
        ) or cue.name
        queries = {
            "named": {"text": cue.name, "entities": [cue.name]},
            "passage": {"text": passage, "entities": [*names_in(passage, aliases), cue.name]},
        }
        row: dict[str, Any] = {"name": cue.name, "planted_in": cue.planted_in, "recalled_in": cue.recalled_in}
        for mode, query in queries.items():
            kwargs = {"chapter": cue.recalled_in, "total_chapters": novel.target_chapters, **query}
            hits, ms = timed(functools.partial(index.query, **kwargs), repeats)
            samples.extend(ms)
            ok = any(h.chapter == cue.planted_in for h in hits)
            recalled[mode] += ok
            row[f"recalled_{mode}"] = ok
            row[f"hit_chapters_{mode}"] = [h.chapter for h in hits]
        details.append(row)
    n = max(1, len(cues))
    return {
        "passages": len(index),
        "queries": len(samples),
        **stats(samples),
        "recall": f"{recalled['named']}/{len(cues)}",
        "recall_rate": round(recalled["named"] / n, 3),
        "recall_passage_query": f"{recalled['passage']}/{len(cues)}",
        "recall_rate_passage_query": round(recalled["passage"] / n, 3),
        "cues": details,
    }


# --- figure 6: finalize write transaction, re-finalize and cascade ---------------------------------


def figure_finalize(*, novel: Any, chapter: int, cascade: int, repeats: int) -> dict[str, Any]:
    from django.db import transaction

    from generation.chapter_steps import finalize_write
    from generation.models import GenerationJob, JobKind, JobStatus
    from novels.models import Chapter

    def job() -> GenerationJob:
        return GenerationJob.objects.create(
            novel=novel,
            kind=JobKind.FINALIZE,
            chapter_number=chapter,
            step=f"bench-{time.perf_counter_ns()}",
            status=JobStatus.RUNNING,
        )

    inputs = {n: synthetic_memory_input(novel=novel, chapter_number=n) for n in range(chapter - cascade, chapter + 1)}
    for n, mi in inputs.items():
        Chapter.objects.filter(novel=novel, number=n).update(memory_input=mi)
    write_ms = []
    for _ in range(max(1, repeats)):
        j = job()
        start = time.perf_counter()
        finalize_write(job=j, novel=novel, chapter_number=chapter, memory_input=inputs[chapter])
        write_ms.append((time.perf_counter() - start) * 1000)
    first = chapter - cascade
    refinalize_ms, cascade_ms = [], []
    for _ in range(max(1, repeats // 2)):
        j = job()
        start = time.perf_counter()
        result = finalize_write(job=j, novel=novel, chapter_number=first, memory_input=inputs[first])
        refinalize_ms.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        for n in result["stale_marked"]:
            with transaction.atomic():
                finalize_write(
                    job=j,
                    novel=novel,
                    chapter_number=n,
                    memory_input=inputs.get(n) or Chapter.objects.get(novel=novel, number=n).memory_input,
                    cascade=True,
                )
        cascade_ms.append((time.perf_counter() - start) * 1000)
    return {
        "chapter": chapter,
        "write": stats(write_ms),
        "refinalize": stats(refinalize_ms),
        "cascade_chapters": cascade,
        "cascade": stats(cascade_ms),
    }


# --- figure 7: import ------------------------------------------------------------------------------


def figure_import(*, owner: Any, path: Path, repeats: int) -> dict[str, Any]:
    from memory.text import split_passages
    from novels.import_services import manuscript_import
    from novels.importing import read_manuscript, split_manuscript

    data = path.read_bytes()
    split_ms, index_ms = [], []
    chapters = 0
    for _ in range(max(1, repeats)):
        start = time.perf_counter()
        text, _enc, markdown = read_manuscript(filename=path.name, data=data)
        result = split_manuscript(text, markdown=markdown)
        split_ms.append((time.perf_counter() - start) * 1000)
        chapters = len(result.chapters)
        start = time.perf_counter()
        language = "zh" if path.name.endswith(".zh.txt") else "en"
        for ch in result.chapters:
            split_passages(ch.text, language=language)
        index_ms.append((time.perf_counter() - start) * 1000)
    start = time.perf_counter()
    imported = manuscript_import(data=data, filename=path.name, owner=owner, title=f"bench import {path.name}")
    store_ms = (time.perf_counter() - start) * 1000
    split_s = statistics.median(split_ms) / 1000
    index_s = statistics.median(index_ms) / 1000
    return {
        "file": path.name,
        "chapters": chapters,
        "split": stats(split_ms),
        "index": stats(index_ms),
        "store_ms": round(store_ms, 1),
        "chapters_per_second": round(chapters / max(1e-9, split_s + index_s + store_ms / 1000), 1),
        "imported_chapters": getattr(imported, "chapters_created", None),
    }


def synthetic_memory_input(*, novel: Any, chapter_number: int) -> dict[str, Any]:
    """What the two finalize calls would have returned for a synthetic chapter,
    built from the memory the synthetic book already holds (no model)."""
    from generation.schemas import CharacterChangeOut, ExtractionOut, FactOut, SummaryOut, ThreadOpOut
    from memory.models import ChapterSummary, Fact, GlobalSummary
    from memory.selectors import character_states_latest, live_threads

    summary = ChapterSummary.objects.get(novel=novel, chapter=chapter_number)
    glob = (
        GlobalSummary.objects.filter(novel=novel).order_by("-chapter").values_list("text", flat=True).first()
        or summary.summary
    )
    facts = list(Fact.objects.filter(novel=novel, source_chapter=chapter_number).values_list("text", "entities"))
    states = character_states_latest(novel=novel, before_chapter=chapter_number)[:2]
    threads = live_threads(novel=novel, chapter_number=chapter_number)
    extraction = ExtractionOut(
        characters=[
            CharacterChangeOut(
                name=s.character.name, location=str(s.state.get("location", "")) + "'", items_gained=["x"]
            )
            for s in states
        ],
        facts=[FactOut(text=t, entities=list(e or [])) for t, e in facts],
        threads=[ThreadOpOut(action="progress", ref="T1", summary=threads[0].summary)] if threads else [],
    )
    return {
        "summary": SummaryOut(
            summary=summary.summary, skeleton=summary.skeleton, global_summary=glob[:2000]
        ).model_dump(),
        "extraction": extraction.model_dump(),
        "known_thread_ids": [v.id for v in threads],
        "revision_id": None,
        "text_len": 0,
    }
