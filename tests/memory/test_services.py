from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from generation.schemas import CharacterSeedOut
from memory.models import ChapterSummary, Character, CharacterState, Fact, GlobalSummary, Thread, ThreadEvent
from memory.selectors import character_history, memory_overview, thread_ledger
from memory.services import (
    chapter_summary_edit,
    character_state_edit,
    characters_create_initial,
    fact_create,
    fact_delete,
    global_summary_edit,
    thread_edit,
    threads_link_planned,
)
from novels.models import BlueprintCard
from tests.memory.book import add_chapters, build_book, finalize


def _seed(name, **kw):
    return CharacterSeedOut.model_validate({"name": name, "description": f"{name} of the coast", **kw})


def test_global_summary_over_2000_characters_is_refused_and_nothing_saved(members):
    novel = members.novel
    build_book(novel, 2)
    current = GlobalSummary.objects.get(novel=novel, chapter=2)
    with pytest.raises(ValidationError, match="2001 characters; the limit is 2000"):
        global_summary_edit(novel=novel, text="x" * 2001, user=members.editor)
    assert GlobalSummary.objects.get(pk=current.pk).text == current.text


def test_global_summary_edit_records_who_edited_the_current_version(members):
    novel = members.novel
    build_book(novel, 2)
    row = global_summary_edit(novel=novel, text="The keepers found the letter.", user=members.editor)
    assert row.chapter == 2 and row.edited_by == members.editor and row.edited_at is not None


def test_chapter_summary_edit_keeps_the_skeleton_to_one_line(members):
    novel = members.novel
    build_book(novel, 1)
    row = chapter_summary_edit(
        summary=ChapterSummary.objects.get(novel=novel, chapter=1),
        text="New.",
        skeleton="one\nline",
        user=members.owner,
    )
    assert row.skeleton == "one line" and row.edited_by == members.owner


def test_character_state_edit_rejects_a_malformed_tree(members):
    novel = members.novel
    [mara] = characters_create_initial(novel=novel, seeds=[_seed("Mara")])
    state = CharacterState.objects.get(character=mara, chapter=0)
    with pytest.raises(ValidationError, match="items"):
        character_state_edit(state=state, tree={"items": "not a list"}, user=members.editor)
    edited = character_state_edit(state=state, tree={"alive": False, "items": ["oar"]}, user=members.editor)
    assert edited.state["alive"] is False and edited.edited_by == members.editor


def test_fact_create_edit_and_delete(members):
    novel = members.novel
    fact = fact_create(novel=novel, text="The lighthouse has 212 steps.", entities=["lighthouse"], user=members.editor)
    assert fact.source_chapter is None and fact.edited_by == members.editor
    with pytest.raises(ValidationError):
        fact_create(novel=novel, text="   ", user=members.editor)
    fact_delete(fact=fact)
    assert not Fact.objects.filter(novel=novel).exists()


def test_thread_edit_is_an_edit_event_with_before_and_after(members):
    novel = members.novel
    add_chapters(novel, 2)
    finalize(novel, 1)
    thread = Thread.objects.get(novel=novel)
    thread_edit(thread=thread, user=members.editor, status="resolved", resolution_note="Closed by hand")
    event = ThreadEvent.objects.get(thread=thread, action="edit")
    assert event.chapter is None and event.created_by == members.editor
    assert event.before == {"status": "open", "resolution_note": ""}
    assert event.after == {"status": "resolved", "resolution_note": "Closed by hand"}
    with pytest.raises(ValidationError, match="Unknown thread status"):
        thread_edit(thread=thread, user=members.editor, status="paused")
    with pytest.raises(ValidationError, match="deadline"):
        thread_edit(thread=thread, user=members.editor, deadline=0)


def test_characters_create_initial_is_idempotent_and_spares_edited_rows(members):
    novel = members.novel
    characters_create_initial(novel=novel, seeds=[_seed("Mara"), _seed("Tobias")])
    tobias = Character.objects.get(novel=novel, name="Tobias")
    tobias.description, tobias.edited_by = "Edited by a person", members.editor
    tobias.save()
    for _ in range(2):
        characters_create_initial(novel=novel, seeds=[_seed("Mara", aliases=["M"]), _seed("Elin"), _seed("Tobias")])
    names = sorted(Character.objects.filter(novel=novel).values_list("name", flat=True))
    assert names == ["Elin", "Mara", "Tobias"]
    assert Character.objects.get(novel=novel, name="Mara").aliases == ["M"]
    assert Character.objects.get(novel=novel, name="Tobias").description == "Edited by a person"
    assert CharacterState.objects.filter(character__novel=novel, chapter=0).count() == 3


def _card(novel, number, ops):
    return BlueprintCard.objects.create(
        novel=novel,
        number=number,
        window_start=1,
        title=f"C{number}",
        position="p",
        core_function="f",
        suspense_density=3,
        cognitive_twist=2,
        brief="b",
        foreshadowing=ops,
    )


def test_planned_plant_gets_the_deadline_of_its_payoff_and_a_label_in_the_card(members):
    novel = members.novel
    cards = [
        _card(
            novel,
            3,
            [
                {"op": "plant", "thread": "", "summary": "The iron bell"},
                {"op": "plant", "thread": "", "summary": "Lonely"},
            ],
        ),
        _card(novel, 9, [{"op": "payoff", "thread": "", "summary": "the iron  bell"}]),
    ]
    linked = threads_link_planned(novel=novel, cards=cards)
    bell = Thread.objects.get(novel=novel, summary="The iron bell")
    lonely = Thread.objects.get(novel=novel, summary="Lonely")
    assert bell.planned and bell.opened_at == 3 and bell.deadline == 9 and bell.status == "open"
    assert lonely.deadline == novel.target_chapters
    cards[0].refresh_from_db()
    assert cards[0].foreshadowing[0]["thread"] == f"#{bell.number}"
    assert [entry["created"] for entry in linked] == [True, True, False]


def test_blank_payoff_repeating_a_plant_summary_links_to_that_thread(members):
    novel = members.novel
    cards = [
        _card(novel, 3, [{"op": "plant", "thread": "", "summary": "The iron bell"}]),
        _card(novel, 5, [{"op": "reinforce", "thread": "", "summary": "The iron bell"}]),
        _card(novel, 9, [{"op": "payoff", "thread": "", "summary": "the iron  bell"}]),
    ]
    linked = threads_link_planned(novel=novel, cards=cards)
    bell = Thread.objects.get(novel=novel, summary="The iron bell")
    assert [entry["thread"] for entry in linked] == [bell.number] * 3
    for card in cards:
        card.refresh_from_db()
        assert card.foreshadowing[0]["thread"] == f"#{bell.number}"
    assert Thread.objects.filter(novel=novel).count() == 1


def test_reinforce_and_payoff_link_to_the_numbered_thread_and_replanning_does_not_duplicate(members):
    novel = members.novel
    first = [_card(novel, 3, [{"op": "plant", "thread": "", "summary": "The iron bell"}])]
    threads_link_planned(novel=novel, cards=first)
    bell = Thread.objects.get(novel=novel)
    later = [
        _card(novel, 5, [{"op": "reinforce", "thread": f"#{bell.number}", "summary": "rings"}]),
        _card(novel, 8, [{"op": "payoff", "thread": f"#{bell.number}", "summary": "tolls"}]),
    ]
    linked = threads_link_planned(novel=novel, cards=later)
    assert [entry["thread"] for entry in linked] == [bell.number, bell.number]
    bell.refresh_from_db()
    assert bell.deadline == 8
    # A regenerated window: card 3 arrives again with a blank plant.
    BlueprintCard.objects.filter(novel=novel, number=3).delete()
    threads_link_planned(
        novel=novel, cards=[_card(novel, 3, [{"op": "plant", "thread": "", "summary": "The brass bell"}])]
    )
    assert Thread.objects.filter(novel=novel, planned=True).count() == 2  # the bell is referenced by #n, so it stays


def test_selectors_for_the_memory_pages(members):
    novel = members.novel
    characters_create_initial(novel=novel, seeds=[_seed("Mara")])
    build_book(novel, 3)
    overview = memory_overview(novel=novel)
    assert overview["global_summary"].chapter == 3 and len(overview["chapter_summaries"]) == 3
    assert [t.number for t in thread_ledger(novel=novel)] == [1, 2, 3]
    mara = Character.objects.get(novel=novel, name="Mara")
    assert next(iter(character_history(character=mara))).chapter == 0


def test_replanning_a_window_replaces_its_untouched_planned_threads(members):
    novel = members.novel
    for _ in range(2):
        BlueprintCard.objects.filter(novel=novel, number=4).delete()
        threads_link_planned(
            novel=novel, cards=[_card(novel, 4, [{"op": "plant", "thread": "", "summary": "The tide clock"}])]
        )
    assert Thread.objects.filter(novel=novel).count() == 1
