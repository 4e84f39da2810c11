from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memory.context import PREVIOUS_TAIL_CHARS, context_assemble
from memory.core.budget import estimate_tokens
from memory.models import Thread
from memory.threads_ledger import thread_open
from novels.models import Architecture, Chapter
from novels.services import novel_create
from tests.memory.book import add_chapters, build_book, chapter_text, finalize


def _queries(novel, chapter_number: int) -> int:
    with CaptureQueriesContext(connection) as ctx:
        context_assemble(novel=novel, chapter_number=chapter_number)
    return len(ctx.captured_queries)


def test_query_count_is_the_same_at_chapter_5_and_chapter_60(members):
    small = members.novel
    large = novel_create(owner=members.owner, title="The Long Book", premise="A long one.", language="en")
    build_book(small, 4)
    build_book(large, 59)

    cold_5, cold_60 = _queries(small, 5), _queries(large, 60)
    warm_5, warm_60 = _queries(small, 5), _queries(large, 60)

    assert cold_5 == cold_60
    assert warm_5 == warm_60
    assert warm_60 <= 12


def test_memory_block_fits_the_budget_at_every_chapter_of_a_60_chapter_book(members):
    novel = members.novel
    build_book(novel, 59)
    dropped_somewhere = False
    for budget in (6000, 1500):
        novel.memory_budget = budget
        for n in range(2, 61):
            ctx = context_assemble(novel=novel, chapter_number=n)
            assert estimate_tokens(ctx.memory_block) <= budget, (budget, n)
            assert ctx.snapshot["used"] <= budget
            dropped_somewhere |= any(s["dropped"] for s in ctx.snapshot["sections"].values())
    # The budget only proves something if it actually had to cut.
    assert dropped_somewhere


def test_previous_chapter_contributes_only_its_last_800_characters(members):
    novel = members.novel
    add_chapters(novel, 3)
    body = chapter_text(2, length=5000) + " THE-VERY-END"
    Chapter.objects.filter(novel=novel, number=2).update(text="BEGINNING-MARK " + body)
    ctx = context_assemble(novel=novel, chapter_number=3)
    assert ctx.previous_tail == ("BEGINNING-MARK " + body)[-PREVIOUS_TAIL_CHARS:]
    assert len(ctx.previous_tail) == PREVIOUS_TAIL_CHARS
    assert "BEGINNING-MARK" not in ctx.previous_tail


def test_recent_summaries_are_the_last_three_newest_first(members):
    novel = members.novel
    build_book(novel, 6)
    ctx = context_assemble(novel=novel, chapter_number=7)
    assert [s["chapter"] for s in ctx.recent_summaries] == [6, 5, 4]
    block = ctx.memory_block
    assert block.index("Chapter 6:") < block.index("Chapter 5:") < block.index("Chapter 4:")


def test_chapter_one_carries_the_whole_architecture(members):
    novel = members.novel
    Architecture.objects.filter(novel=novel).update(core_seed="SEED " * 50, world="WORLD " * 2000)
    ctx = context_assemble(novel=novel, chapter_number=1)
    assert "SEED" in ctx.architecture and ctx.architecture.count("WORLD") == 2000


def test_live_threads_are_rendered_in_the_order_of_thread_ids(members):
    novel = members.novel
    build_book(novel, 4)
    ctx = context_assemble(novel=novel, chapter_number=5)
    numbers = dict(Thread.objects.filter(novel=novel).values_list("pk", "summary"))
    lines = ctx.threads_text.splitlines()
    assert len(lines) == len(ctx.thread_ids) == 4
    for i, tid in enumerate(ctx.thread_ids):
        assert lines[i].startswith(f"[T{i + 1}] ") and numbers[tid] in lines[i]


def test_planned_thread_is_not_live_before_its_plant_chapter(members):
    novel = members.novel
    add_chapters(novel, 9)
    planned = thread_open(novel=novel, chapter=8, summary="The bell will ring", kind="", deadline=12, planned=True)
    assert planned.pk not in context_assemble(novel=novel, chapter_number=7).thread_ids
    assert planned.pk in context_assemble(novel=novel, chapter_number=8).thread_ids


def test_an_overdue_thread_becomes_an_owed_payoff_instruction(members):
    novel = members.novel
    add_chapters(novel, 9)
    thread_open(novel=novel, chapter=2, summary="Return the brass key", kind="", deadline=5)
    ctx = context_assemble(novel=novel, chapter_number=9)
    assert len(ctx.owed_payoffs) == 1
    assert "[T1]" in ctx.owed_payoffs[0] and "Return the brass key" in ctx.owed_payoffs[0]


def test_a_distant_passage_naming_the_cards_character_is_recalled_with_its_scores(members):
    novel = members.novel
    build_book(novel, 12)
    ctx = context_assemble(novel=novel, chapter_number=13)
    assert ctx.retrieval, ctx.snapshot["retrieval_scores"]
    for hit in ctx.retrieval:
        assert hit["chapter"] <= 13 - 1 - 3
        assert hit["score"] == hit["entity_score"] + hit["bigram_score"] + hit["vector_bonus"]
        assert "Mara" in hit["matched_entities"]


def test_snapshot_is_json_and_accounts_for_every_section(members):
    novel = members.novel
    build_book(novel, 8)
    ctx = context_assemble(novel=novel, chapter_number=9)
    snap = json.loads(json.dumps(ctx.snapshot))
    assert set(snap["sections"]) == {"entity", "recent", "skeleton", "retrieval"}
    for section in snap["sections"].values():
        assert section["used"] == sum(section["tokens"].values())
    assert snap["global_summary"]["kept"] is True


def test_dead_characters_are_marked(members):
    from generation.schemas import ExtractionOut

    novel = members.novel
    add_chapters(novel, 3)
    finalize(novel, 1, extraction=ExtractionOut.model_validate({"characters": [{"name": "Corwin", "alive": False}]}))
    ctx = context_assemble(novel=novel, chapter_number=2)
    assert "Corwin [DEAD]" in ctx.memory_block
    assert [c["alive"] for c in ctx.characters if c["name"] == "Corwin"] == [False]


@pytest.mark.parametrize("n", [0, -1])
def test_chapter_numbers_start_at_one(members, n):
    with pytest.raises(ValueError):
        context_assemble(novel=members.novel, chapter_number=n)
