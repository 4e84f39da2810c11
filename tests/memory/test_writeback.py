from __future__ import annotations

import pytest
from django.db import transaction

from generation.schemas import ExtractionOut, SummaryOut
from memory.models import ChapterSummary, Character, CharacterState, Fact, GlobalSummary, Passage, Thread, ThreadEvent
from memory.selectors import chapters_after, live_threads
from memory.services import fact_edit, thread_edit
from memory.writeback import chapter_memory_clear, chapter_memory_write
from novels.models import Chapter, ChapterStatus
from tests.memory.book import add_chapters, build_book, chapter_text, extraction_out, finalize, summary_out


def _chapter_rows(novel, n):
    """Everything chapter n contributed, comparable across runs (ids excluded)."""
    return {
        "summaries": list(ChapterSummary.objects.filter(novel=novel, chapter=n).values_list("summary", "skeleton")),
        "global": list(GlobalSummary.objects.filter(novel=novel, chapter=n).values_list("text", flat=True)),
        "states": sorted(CharacterState.objects.filter(novel=novel, chapter=n).values_list("character__name", "state")),
        "facts": sorted(Fact.objects.filter(novel=novel, source_chapter=n).values_list("text", flat=True)),
        "passages": list(Passage.objects.filter(novel=novel, chapter=n).values_list("ordinal", "text", "entities")),
        "events": sorted(ThreadEvent.objects.filter(thread__novel=novel, chapter=n).values_list("action", "note")),
        "threads": sorted(Thread.objects.filter(novel=novel).values_list("number", "summary", "status", "deadline")),
    }


def _ops(*ops):
    return ExtractionOut.model_validate({"threads": list(ops)})


def test_finalizing_twice_equals_finalizing_once(members):
    novel = members.novel
    build_book(novel, 4)
    add_chapters(novel, 6)
    finalize(novel, 5)
    once = _chapter_rows(novel, 5)
    finalize(novel, 5)
    twice = _chapter_rows(novel, 5)
    assert once == twice
    assert len(twice["facts"]) == 4 and len(twice["summaries"]) == 1 and len(twice["global"]) == 1
    assert twice["passages"] and twice["events"]


def test_refinalize_after_a_text_change_replaces_chapter_5_and_keeps_a_manual_fix_of_chapter_3(members):
    novel = members.novel
    build_book(novel, 5)
    fixed = Fact.objects.filter(novel=novel, source_chapter=3).earliest("id")
    fact_edit(fact=fixed, text="Corrected by the editor: the key is brass, not iron.", user=members.editor)

    new_text = chapter_text(5, marker=" REWRITTEN")
    finalize(
        novel, 5, text=new_text, summary=summary_out(5, tag=" v2"), extraction=extraction_out(5, facts=2, tag=" v2")
    )

    facts5 = list(Fact.objects.filter(novel=novel, source_chapter=5).values_list("text", flat=True))
    assert len(facts5) == 2 and all(" v2" in t for t in facts5)
    assert all("REWRITTEN" in p.text for p in Passage.objects.filter(novel=novel, chapter=5))
    assert ChapterSummary.objects.get(novel=novel, chapter=5).summary.startswith("Chapter 5 v2")
    fixed.refresh_from_db()
    assert fixed.text.startswith("Corrected by the editor") and fixed.edited_by == members.editor
    assert Fact.objects.filter(novel=novel, source_chapter=3).count() == 4


def test_a_thread_planted_in_chapter_3_with_deadline_0_is_due_at_the_final_chapter(members):
    novel = members.novel
    add_chapters(novel, 4)
    finalize(
        novel, 3, extraction=_ops({"action": "open", "summary": "The sealed ledger's owner", "deadline_chapter": 0})
    )
    thread = Thread.objects.get(novel=novel, summary="The sealed ledger's owner")
    assert thread.deadline == novel.target_chapters == 60


def test_a_progressing_thread_stays_known_and_can_be_resolved_later(members):
    novel = members.novel
    add_chapters(novel, 9)
    finalize(novel, 2, extraction=_ops({"action": "open", "summary": "The mark on the door", "deadline_chapter": 9}))
    thread = Thread.objects.get(novel=novel)
    finalize(novel, 3, extraction=_ops({"action": "progress", "ref": "[T1]", "summary": "Tobias studies the mark"}))
    thread.refresh_from_db()
    assert thread.status == "progressing"
    for n in (4, 5):
        assert thread.pk in [v.id for v in live_threads(novel=novel, chapter_number=n)]
        finalize(novel, n, extraction=_ops())
    report = finalize(
        novel,
        6,
        extraction=_ops(
            {
                "action": "resolve",
                "ref": "T1",
                "summary": "Mara explains the mark",
                "resolution_note": "It was her father's.",
            }
        ),
    )
    thread.refresh_from_db()
    assert thread.status == "resolved" and thread.resolved_at == 6
    assert [t["kind"] for t in report.threads] == ["resolve"]


def test_a_hallucinated_thread_reference_opens_nothing(members):
    novel = members.novel
    add_chapters(novel, 3)
    finalize(novel, 1, extraction=_ops({"action": "open", "summary": "The bell", "deadline_chapter": 5}))
    report = finalize(
        novel,
        2,
        extraction=_ops(
            {"action": "progress", "ref": "[T99]", "summary": "A thread that does not exist"},
            {"action": "open", "ref": "T99", "summary": "Also invented"},
            {"action": "resolve", "ref": "[T99]", "summary": "Closing nothing"},
        ),
    )
    assert Thread.objects.filter(novel=novel).count() == 1
    assert Thread.objects.get(novel=novel).status == "open"
    assert {t["reason"] for t in report.threads} == {"unmatched-ref"}


def test_a_resolved_thread_is_not_resolved_twice(members):
    novel = members.novel
    add_chapters(novel, 4)
    finalize(novel, 1, extraction=_ops({"action": "open", "summary": "The bell", "deadline_chapter": 5}))
    known = [v.id for v in live_threads(novel=novel, chapter_number=2)]
    finalize(
        novel,
        2,
        known=known,
        extraction=_ops(
            {"action": "resolve", "ref": "T1", "summary": "rung"},
            {"action": "resolve", "ref": "T1", "summary": "rung again"},
        ),
    )
    # A stale list (the thread is resolved now) cited again in chapter 3.
    report = finalize(
        novel, 3, known=known, extraction=_ops({"action": "resolve", "ref": "T1", "summary": "rung a third time"})
    )
    thread = Thread.objects.get(novel=novel)
    assert thread.resolved_at == 2
    assert ThreadEvent.objects.filter(thread=thread, action="resolve").count() == 1
    assert report.threads[0]["reason"] == "already-resolved"


def test_a_record_in_the_wrong_language_is_rejected_and_listed(members):
    novel = members.novel
    add_chapters(novel, 2)
    extraction = ExtractionOut.model_validate(
        {
            "facts": [
                {"text": "Mara keeps the brass key in her coat."},
                {"text": "玛拉把铜钥匙藏在外套里。", "entities": ["玛拉"]},
            ],
            "characters": [{"name": "托比亚斯", "location": "灯塔"}],
            "threads": [{"action": "open", "summary": "谁留下了记号？"}],
        }
    )
    report = finalize(novel, 1, extraction=extraction)
    assert list(Fact.objects.filter(novel=novel).values_list("text", flat=True)) == [
        "Mara keeps the brass key in her coat."
    ]
    assert not Character.objects.filter(name="托比亚斯").exists()
    assert not Thread.objects.filter(novel=novel).exists()
    assert sorted(r["kind"] for r in report.rejected) == ["character_change", "fact", "thread"]


def test_a_global_summary_in_the_wrong_language_keeps_the_previous_version(members):
    novel = members.novel
    add_chapters(novel, 2)
    finalize(novel, 1)
    bad = SummaryOut(
        summary="A fine English summary.", skeleton="Fine.", global_summary="到目前为止，守塔人追寻旧日的誓言。"
    )
    report = finalize(novel, 2, summary=bad)
    assert [r["kind"] for r in report.rejected] == ["global_summary"]
    assert list(GlobalSummary.objects.filter(novel=novel).values_list("chapter", flat=True)) == [1]


def test_an_exception_halfway_through_the_write_leaves_nothing(members, monkeypatch):
    novel = members.novel
    build_book(novel, 2)
    add_chapters(novel, 3)
    before = {n: _chapter_rows(novel, n) for n in (2, 3)}

    import memory.writeback as writeback

    def explode(*args, **kwargs):
        raise RuntimeError("worker died mid-write")

    monkeypatch.setattr(writeback, "threads_apply_extraction", explode)
    for n in (2, 3):  # a re-finalize and a first finalize
        with pytest.raises(RuntimeError), transaction.atomic():
            chapter_memory_write(
                novel=novel,
                chapter_number=n,
                chapter_text=chapter_text(n, marker=" NEW"),
                summary=summary_out(n, tag=" NEW"),
                extraction=extraction_out(n, tag=" NEW"),
                known_thread_ids=[],
            )
            Chapter.objects.filter(novel=novel, number=n).update(status=ChapterStatus.FINALIZED)
    assert {n: _chapter_rows(novel, n) for n in (2, 3)} == before
    assert Chapter.objects.get(novel=novel, number=3).status == ChapterStatus.PLANNED


def test_clearing_a_chapter_restores_threads_it_advanced_and_replays_later_events_and_edits(members):
    novel = members.novel
    add_chapters(novel, 6)
    finalize(novel, 1, extraction=_ops({"action": "open", "summary": "The bell", "deadline_chapter": 9}))
    thread = Thread.objects.get(novel=novel)
    finalize(novel, 2, extraction=_ops({"action": "progress", "ref": "T1", "summary": "the bell is heard"}))
    thread_edit(thread=thread, user=members.editor, summary="The bell of the drowned chapel")
    finalize(novel, 4, extraction=_ops({"action": "open", "summary": "Chapter 4's own thread"}))
    finalize(
        novel,
        3,
        extraction=_ops({"action": "resolve", "ref": "T1", "summary": "the bell rings", "resolution_note": "rung"}),
    )
    # Chapter 2 is re-finalized without mentioning the bell.
    finalize(novel, 2, extraction=_ops())

    thread.refresh_from_db()
    assert (thread.status, thread.resolved_at, thread.last_activated_at) == ("resolved", 3, 3)
    assert thread.summary == "The bell of the drowned chapel"
    assert list(ThreadEvent.objects.filter(thread=thread).values_list("action", "chapter")) == [
        ("open", 1),
        ("edit", None),
        ("resolve", 3),
    ]
    assert Thread.objects.filter(novel=novel, source_chapter=4).exists()

    chapter_memory_clear(novel=novel, chapter_number=3)
    thread.refresh_from_db()
    assert (thread.status, thread.resolved_at, thread.last_activated_at) == ("open", None, 1)
    assert thread.summary == "The bell of the drowned chapel"


def test_clearing_the_chapter_that_opened_a_thread_deletes_it_unless_a_person_edited_it(members):
    novel = members.novel
    add_chapters(novel, 3)
    finalize(
        novel,
        1,
        extraction=_ops(
            {"action": "open", "summary": "Kept by the editor"}, {"action": "open", "summary": "Machine only"}
        ),
    )
    kept = Thread.objects.get(novel=novel, summary="Kept by the editor")
    thread_edit(thread=kept, user=members.editor, deadline=7)

    finalize(
        novel,
        1,
        extraction=_ops(
            {"action": "open", "summary": "Kept by the editor"}, {"action": "open", "summary": "Machine only"}
        ),
    )

    summaries = sorted(Thread.objects.filter(novel=novel).values_list("summary", flat=True))
    assert summaries == ["Kept by the editor", "Machine only"]
    kept.refresh_from_db()
    assert kept.deadline == 7


def test_unknown_characters_are_created_from_the_chapter_and_removed_with_it(members):
    novel = members.novel
    add_chapters(novel, 3)
    finalize(
        novel, 2, extraction=ExtractionOut.model_validate({"characters": [{"name": "Ysolde", "items_gained": ["oar"]}]})
    )
    ysolde = Character.objects.get(novel=novel, name="Ysolde")
    assert ysolde.source_chapter == 2
    assert CharacterState.objects.get(character=ysolde).state["items"] == ["oar"]
    chapter_memory_clear(novel=novel, chapter_number=2)
    assert not Character.objects.filter(novel=novel, name="Ysolde").exists()


def test_character_changes_apply_to_the_latest_state_before_the_chapter(members):
    novel = members.novel
    add_chapters(novel, 4)
    finalize(
        novel,
        1,
        extraction=ExtractionOut.model_validate({"characters": [{"name": "Mara", "items_gained": ["key", "map"]}]}),
    )
    finalize(
        novel,
        3,
        extraction=ExtractionOut.model_validate(
            {"characters": [{"name": "mara", "items_lost": ["map"], "location": "cliffs"}]}
        ),
    )
    state = CharacterState.objects.get(character__name="Mara", chapter=3).state
    assert state["items"] == ["key"] and state["location"] == "cliffs"


def test_passages_follow_paragraph_boundaries_and_name_their_characters(members):
    novel = members.novel
    add_chapters(novel, 2)
    finalize(novel, 1)
    passages = list(Passage.objects.filter(novel=novel, chapter=1))
    text = Chapter.objects.get(novel=novel, number=1).text
    assert len(passages) >= 2
    assert all(800 <= len(p.text) <= 1500 for p in passages[:-1])
    assert "\n\n".join(p.text for p in passages) == text
    assert all(p.entities for p in passages)


def test_chapters_after_lists_later_finalized_chapters(members):
    novel = members.novel
    build_book(novel, 4)
    Chapter.objects.filter(novel=novel, number=3).update(status=ChapterStatus.DRAFTED)
    assert chapters_after(novel=novel, chapter_number=1) == [2, 4]
