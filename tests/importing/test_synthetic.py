"""The deterministic synthetic book that benchmarks and scale tests build."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from memory.core.language import language_mismatch
from memory.models import (
    ChapterSummary,
    Character,
    CharacterState,
    Fact,
    GlobalSummary,
    Passage,
    Thread,
    ThreadEvent,
)
from memory.synthetic import synthetic_book_build, synthetic_cues
from novels.models import Chapter, ChapterRevision

CHAPTERS = 50


@pytest.fixture
def owner(db):
    return get_user_model().objects.create_user("bench", password="pw-bench-123")


def counts(novel):
    return {
        "chapters": Chapter.objects.filter(novel=novel, status="finalized").count(),
        "revisions": ChapterRevision.objects.filter(chapter__novel=novel).count(),
        "summaries": ChapterSummary.objects.filter(novel=novel).count(),
        "global": GlobalSummary.objects.filter(novel=novel).count(),
        "characters": Character.objects.filter(novel=novel).count(),
        "facts": Fact.objects.filter(novel=novel).count(),
        "passages": Passage.objects.filter(novel=novel).count(),
        "threads": Thread.objects.filter(novel=novel).count(),
    }


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_50_chapter_book_has_memory_for_every_chapter(owner, language):
    book = synthetic_book_build(owner=owner, chapters=CHAPTERS, language=language, seed=1)
    assert counts(book.novel) == {
        "chapters": 50,
        "revisions": 50,
        "summaries": 50,
        "global": 50,
        "characters": 25,
        "facts": 150,
        "passages": 200,
        "threads": 17,
    }
    assert book.novel.language == language


def test_every_character_has_an_initial_state_and_one_about_every_ten_chapters(owner):
    book = synthetic_book_build(owner=owner, chapters=CHAPTERS, seed=1)
    states = CharacterState.objects.filter(novel=book.novel)
    assert states.filter(chapter=0).count() == 25
    assert 25 * 5 <= states.count() <= 25 * 7


def test_threads_have_open_events_and_resolved_ones_a_resolve_event(owner):
    book = synthetic_book_build(owner=owner, chapters=400, seed=2)
    threads = Thread.objects.filter(novel=book.novel)
    events = ThreadEvent.objects.filter(thread__novel=book.novel)
    assert events.filter(action="open").count() == threads.count()
    assert events.filter(action="resolve").count() == threads.filter(status="resolved").count()
    live = threads.exclude(status="resolved").count()
    assert 25 <= live <= 55
    assert threads.filter(status="resolved").count() > live


def test_only_the_newest_fifty_global_summaries_are_kept_within_the_cap(owner):
    book = synthetic_book_build(owner=owner, chapters=120, seed=3)
    versions = GlobalSummary.objects.filter(novel=book.novel)
    assert sorted(versions.values_list("chapter", flat=True)) == list(range(71, 121))
    assert all(len(text) <= GlobalSummary.MAX_CHARS for text in versions.values_list("text", flat=True))


@pytest.mark.parametrize(("language", "low", "high"), [("en", 150, 250), ("zh", 200, 300)])
def test_chapter_summaries_have_realistic_sizes(owner, language, low, high):
    book = synthetic_book_build(owner=owner, chapters=CHAPTERS, language=language, seed=4)
    for summary in ChapterSummary.objects.filter(novel=book.novel):
        size = len(summary.summary.split()) if language == "en" else len(summary.summary)
        assert low <= size <= high + 40
        assert len(summary.skeleton) <= 400


def test_chinese_book_memory_is_written_in_chinese(owner):
    book = synthetic_book_build(owner=owner, chapters=10, language="zh", seed=5)
    for summary in ChapterSummary.objects.filter(novel=book.novel):
        assert not language_mismatch(summary.summary, document_language="zh")


def test_the_same_seed_builds_the_same_book(owner):
    first = synthetic_book_build(owner=owner, chapters=CHAPTERS, seed=7)
    second = synthetic_book_build(owner=owner, chapters=CHAPTERS, seed=7)

    def summaries(novel):
        return list(ChapterSummary.objects.filter(novel=novel).order_by("chapter").values_list("summary", "skeleton"))

    assert summaries(first.novel) == summaries(second.novel)
    assert first.cues == second.cues


def test_a_different_seed_builds_a_different_book(owner):
    first = synthetic_book_build(owner=owner, chapters=10, seed=7)
    second = synthetic_book_build(owner=owner, chapters=10, seed=8)
    assert ChapterSummary.objects.filter(novel=first.novel, chapter=1).get().summary != (
        ChapterSummary.objects.filter(novel=second.novel, chapter=1).get().summary
    )


@pytest.mark.parametrize("language", ["en", "zh"])
def test_each_cue_is_named_only_in_its_planting_and_recall_chapters(owner, language):
    book = synthetic_book_build(owner=owner, chapters=200, language=language, seed=9)
    assert len(book.cues) == 10
    texts = dict(Chapter.objects.filter(novel=book.novel).values_list("number", "text"))
    for cue in book.cues:
        assert cue.recalled_in - cue.planted_in >= 40
        assert [n for n, text in texts.items() if cue.name in text] == [cue.planted_in, cue.recalled_in]


def test_a_cue_is_an_entity_of_a_passage_in_its_planting_chapter(owner):
    book = synthetic_book_build(owner=owner, chapters=100, seed=10)
    for cue in book.cues:
        passages = Passage.objects.filter(novel=book.novel, chapter=cue.planted_in)
        assert any(cue.name in p.entities and cue.name in p.text for p in passages)


def test_cues_can_be_recomputed_without_the_database():
    assert synthetic_cues(chapters=1000, language="zh", seed=3) == synthetic_cues(chapters=1000, language="zh", seed=3)
    assert len(synthetic_cues(chapters=1000, seed=0)) == 50


def test_an_unsupported_language_is_refused(owner):
    with pytest.raises(ValueError, match="not 'fr'"):
        synthetic_book_build(owner=owner, chapters=5, language="fr")
