"""Writes on the memory pages: viewers are refused, editors' edits are recorded
with who made them, and bad input comes back with the typed text."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.urls import reverse

from memory.models import ChapterSummary, Character, CharacterState, Fact, GlobalSummary, Thread, ThreadEvent
from tests.memory_pages.conftest import client_for

STATE = {
    "alive": "on", "location": "the chapel", "physical": "bruised", "mental": "afraid",
    "items": "torn letter\nbrass key", "abilities": "reads old script",
    "relationships": "Tobias: distrusts him\nElin: sister",
}

WRITES = {
    "memory:global_summary_edit": (lambda b: {}, lambda b: {"text": "Rewritten by someone."}),
    "memory:chapter_summary_edit": (lambda b: {"chapter": 1}, lambda b: {"summary": "New.", "skeleton": "Ch1: new."}),
    "memory:character_edit": (lambda b: {"character_id": b.character.pk},
                              lambda b: {"name": "Mara Vell", "aliases": "", "description": "d"}),
    "memory:character_state_edit": (lambda b: {"state_id": b.state.pk}, lambda b: STATE),
    "memory:fact_create": (lambda b: {}, lambda b: {"text": "A new fact.", "entities": "Mara"}),
    "memory:fact_edit": (lambda b: {"fact_id": b.fact.pk}, lambda b: {"text": "Changed.", "entities": ""}),
    "memory:fact_delete": (lambda b: {"fact_id": b.fact.pk}, lambda b: {}),
    "memory:thread_edit": (lambda b: {"thread_id": b.thread.pk},
                           lambda b: {"summary": "Changed.", "status": "resolved", "deadline": "", "resolution_note": "n"}),
}


def _url(book, name: str) -> str:  # type: ignore[no-untyped-def]
    return reverse(name, kwargs={"novel_id": book.novel.pk, **WRITES[name][0](book)})


def _snapshot():  # type: ignore[no-untyped-def]
    counts = [(m._meta.label, m._default_manager.count()) for m in apps.get_models() if m._meta.label != "sessions.Session"]
    models = (GlobalSummary, ChapterSummary, Character, CharacterState, Fact, Thread, ThreadEvent)
    return counts, [list(M.objects.order_by("pk").values()) for M in models]


@pytest.mark.parametrize("name", sorted(WRITES))
def test_viewer_write_is_403_and_changes_nothing(memory_book, name):
    before = _snapshot()
    response = client_for(memory_book.viewer).post(_url(memory_book, name), WRITES[name][1](memory_book))
    assert response.status_code == 403
    assert _snapshot() == before


@pytest.mark.parametrize("name", sorted(WRITES))
def test_write_refuses_get(memory_book, name):
    assert client_for(memory_book.owner).get(_url(memory_book, name)).status_code == 405


@pytest.mark.parametrize("name", sorted(WRITES))
def test_editor_write_succeeds(memory_book, name):
    response = client_for(memory_book.editor).post(_url(memory_book, name), WRITES[name][1](memory_book))
    assert response.status_code == 302


def test_foreign_fact_is_404(memory_book):
    from novels.services import novel_create

    other = novel_create(owner=memory_book.stranger, title="Another book", language="en")
    foreign = Fact.objects.create(novel=other, text="Not yours.")
    url = reverse("memory:fact_delete", kwargs={"novel_id": memory_book.novel.pk, "fact_id": foreign.pk})
    assert client_for(memory_book.owner).post(url).status_code == 404
    assert Fact.objects.filter(pk=foreign.pk).exists()


def test_global_summary_edit_records_editor(memory_book):
    client_for(memory_book.editor).post(_url(memory_book, "memory:global_summary_edit"), {"text": "Mara reads the letter."})
    row = GlobalSummary.objects.get(pk=memory_book.global_summary.pk)
    assert row.text == "Mara reads the letter."
    assert row.edited_by == memory_book.editor and row.edited_at is not None


def test_too_long_global_summary_rerenders_with_error_and_text(memory_book):
    text = "The keeper remembers. " * 100  # 2200 characters
    response = client_for(memory_book.editor).post(_url(memory_book, "memory:global_summary_edit"), {"text": text})
    assert response.status_code == 400
    body = response.content.decode()
    assert "the limit is 2000" in body
    assert text.strip() in body
    assert GlobalSummary.objects.get(pk=memory_book.global_summary.pk).text.startswith("Mara keeps")


def test_chapter_summary_edit_records_editor(memory_book):
    client_for(memory_book.editor).post(
        _url(memory_book, "memory:chapter_summary_edit"), {"summary": "Mara reads it.", "skeleton": "Ch1: read."}
    )
    row = ChapterSummary.objects.get(pk=memory_book.summary.pk)
    assert (row.summary, row.skeleton, row.edited_by) == ("Mara reads it.", "Ch1: read.", memory_book.editor)


def test_chapter_summary_too_long_skeleton_keeps_text(memory_book):
    skeleton = "x" * 401
    response = client_for(memory_book.editor).post(
        _url(memory_book, "memory:chapter_summary_edit"), {"summary": "Typed summary.", "skeleton": skeleton}
    )
    assert response.status_code == 400
    assert skeleton in response.content.decode() and "Typed summary." in response.content.decode()
    assert ChapterSummary.objects.get(pk=memory_book.summary.pk).summary == "Mara finds a bottle on the rocks."


def test_chapter_summary_htmx_edit_returns_the_row(memory_book):
    response = client_for(memory_book.editor).post(
        _url(memory_book, "memory:chapter_summary_edit"), {"summary": "Inline.", "skeleton": "Ch1: inline."},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    body = response.content.decode()
    assert body.lstrip().startswith('<tr id="summary-1">') and "edited by editor" in body


def test_character_state_edit_saves_tree_and_records_editor(memory_book):
    client_for(memory_book.editor).post(_url(memory_book, "memory:character_state_edit"), STATE)
    state = CharacterState.objects.get(pk=memory_book.state.pk)
    assert state.state == {
        "alive": True, "location": "the chapel", "physical": "bruised", "mental": "afraid",
        "items": ["torn letter", "brass key"], "abilities": ["reads old script"],
        "relationships": {"Tobias": "distrusts him", "Elin": "sister"},
    }
    assert state.edited_by == memory_book.editor


def test_character_state_unchecked_alive_means_dead(memory_book):
    data = {k: v for k, v in STATE.items() if k != "alive"}
    client_for(memory_book.editor).post(_url(memory_book, "memory:character_state_edit"), data)
    assert CharacterState.objects.get(pk=memory_book.state.pk).state["alive"] is False


def test_bad_relationship_line_rerenders_with_text(memory_book):
    data = {**STATE, "relationships": "Tobias distrusts him"}
    response = client_for(memory_book.editor).post(_url(memory_book, "memory:character_state_edit"), data)
    assert response.status_code == 400
    body = response.content.decode()
    assert "name: relation" in body and "Tobias distrusts him" in body
    assert CharacterState.objects.get(pk=memory_book.state.pk).state["location"] == "the rocks"


def test_character_edit_records_editor(memory_book):
    client_for(memory_book.editor).post(
        _url(memory_book, "memory:character_edit"),
        {"name": "Mara Vell", "aliases": "Mara, the keeper", "description": "Keeper of the light."},
    )
    c = Character.objects.get(pk=memory_book.character.pk)
    assert (c.name, c.aliases, c.edited_by) == ("Mara Vell", ["Mara", "the keeper"], memory_book.editor)


def test_character_rename_to_taken_name_is_refused(memory_book):
    Character.objects.create(novel=memory_book.novel, name="Tobias")
    response = client_for(memory_book.editor).post(
        _url(memory_book, "memory:character_edit"), {"name": "Tobias", "aliases": "", "description": "typed"}
    )
    assert response.status_code == 400
    assert "already called" in response.content.decode()
    assert Character.objects.get(pk=memory_book.character.pk).name == "Mara"


def test_fact_create_records_editor(memory_book):
    client_for(memory_book.editor).post(
        _url(memory_book, "memory:fact_create"), {"text": "The bell is cracked.", "entities": "Elin, Tobias"}
    )
    fact = Fact.objects.get(text="The bell is cracked.")
    assert (fact.entities, fact.edited_by, fact.source_chapter) == (["Elin", "Tobias"], memory_book.editor, None)


def test_empty_fact_is_refused_with_message(memory_book):
    response = client_for(memory_book.editor).post(_url(memory_book, "memory:fact_create"), {"text": "  ", "entities": "Elin"})
    assert response.status_code == 400
    assert "cannot be empty" in response.content.decode()
    assert Fact.objects.count() == 1


def test_fact_edit_records_editor(memory_book):
    client_for(memory_book.editor).post(_url(memory_book, "memory:fact_edit"), {"text": "Red ink.", "entities": "Mara"})
    fact = Fact.objects.get(pk=memory_book.fact.pk)
    assert (fact.text, fact.edited_by) == ("Red ink.", memory_book.editor)


def test_fact_htmx_edit_error_returns_row_with_text(memory_book):
    response = client_for(memory_book.editor).post(
        _url(memory_book, "memory:fact_edit"), {"text": "", "entities": "Typed entity"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 400
    body = response.content.decode()
    assert body.lstrip().startswith(f'<tr id="fact-{memory_book.fact.pk}">') and "Typed entity" in body


def test_deleting_a_fact_removes_it(memory_book):
    client_for(memory_book.editor).post(_url(memory_book, "memory:fact_delete"))
    assert not Fact.objects.filter(pk=memory_book.fact.pk).exists()


def test_thread_edit_creates_an_edit_event(memory_book):
    client_for(memory_book.editor).post(
        _url(memory_book, "memory:thread_edit"),
        {"summary": "Who wrote the letter, and why?", "status": "progressing", "deadline": "9", "resolution_note": ""},
    )
    thread = Thread.objects.get(pk=memory_book.thread.pk)
    assert (thread.summary, thread.status, thread.deadline, thread.edited_by) == (
        "Who wrote the letter, and why?", "progressing", 9, memory_book.editor)
    event = ThreadEvent.objects.filter(thread=thread).latest("id")
    assert (event.action, event.chapter, event.created_by) == ("edit", None, memory_book.editor)
    assert event.after == {"summary": "Who wrote the letter, and why?", "status": "progressing", "deadline": 9}


def test_thread_bad_deadline_rerenders_with_text(memory_book):
    response = client_for(memory_book.editor).post(
        _url(memory_book, "memory:thread_edit"),
        {"summary": "Typed summary", "status": "open", "deadline": "0", "resolution_note": ""},
    )
    assert response.status_code == 400
    body = response.content.decode()
    assert "A deadline is a chapter number" in body and "Typed summary" in body
    assert not ThreadEvent.objects.filter(thread=memory_book.thread, action="edit").exists()


def test_thread_htmx_edit_returns_thread_with_new_event(memory_book):
    response = client_for(memory_book.editor).post(
        _url(memory_book, "memory:thread_edit"),
        {"summary": "Who wrote the letter?", "status": "resolved", "deadline": "6", "resolution_note": "Tobias did."},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    body = response.content.decode()
    assert f'id="thread-{memory_book.thread.pk}"' in body and "<td>edit</td>" in body
