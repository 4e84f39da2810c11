"""Every memory page renders for every member, shows provenance, and hides novels from strangers."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.memory_pages.conftest import client_for

PAGES = {
    "memory:overview": lambda b: {},
    "memory:global_summary": lambda b: {},
    "memory:chapter_summaries": lambda b: {},
    "memory:characters": lambda b: {},
    "memory:character_history": lambda b: {"character_id": b.character.pk},
    "memory:facts": lambda b: {},
    "memory:threads": lambda b: {},
}


def _url(book, name: str) -> str:  # type: ignore[no-untyped-def]
    return reverse(name, kwargs={"novel_id": book.novel.pk, **PAGES[name](book)})


@pytest.mark.parametrize("role", ["viewer", "editor", "owner"])
@pytest.mark.parametrize("name", sorted(PAGES))
def test_page_renders_for_every_member(memory_book, name, role):
    response = client_for(getattr(memory_book, role)).get(_url(memory_book, name))
    assert response.status_code == 200


@pytest.mark.parametrize("name", sorted(PAGES))
def test_stranger_gets_404(memory_book, name):
    assert client_for(memory_book.stranger).get(_url(memory_book, name)).status_code == 404


def test_viewer_sees_no_edit_forms(memory_book):
    body = client_for(memory_book.viewer).get(_url(memory_book, "memory:facts")).content.decode()
    assert "The letter is written in green ink." in body
    assert reverse("memory:fact_edit", kwargs={"novel_id": memory_book.novel.pk, "fact_id": memory_book.fact.pk}) not in body


def test_editor_sees_edit_forms(memory_book):
    body = client_for(memory_book.editor).get(_url(memory_book, "memory:facts")).content.decode()
    assert reverse("memory:fact_edit", kwargs={"novel_id": memory_book.novel.pk, "fact_id": memory_book.fact.pk}) in body


def test_overview_shows_current_global_summary_and_history_link(memory_book):
    body = client_for(memory_book.viewer).get(_url(memory_book, "memory:overview")).content.decode()
    assert "Mara keeps the lighthouse and finds a letter." in body
    assert _url(memory_book, "memory:global_summary") in body


def test_rows_show_the_chapter_that_produced_them(memory_book):
    body = client_for(memory_book.viewer).get(_url(memory_book, "memory:facts")).content.decode()
    assert reverse("generation:chapter", kwargs={"novel_id": memory_book.novel.pk, "number": 1}) in body
    assert "from <a" in body


def test_rows_show_who_edited_them(memory_book):
    from memory.services import fact_edit

    fact_edit(fact=memory_book.fact, text="The letter is written in red ink.", user=memory_book.editor)
    body = client_for(memory_book.viewer).get(_url(memory_book, "memory:facts")).content.decode()
    assert "edited by editor" in body


def test_character_page_shows_state_tree_and_history(memory_book):
    body = client_for(memory_book.viewer).get(_url(memory_book, "memory:character_history")).content.decode()
    assert "Tobias: old friend" in body
    assert "the lighthouse" in body and "the rocks" in body
    assert "items gained: torn letter" in body


def test_thread_ledger_shows_label_deadline_and_events(memory_book):
    body = client_for(memory_book.viewer).get(_url(memory_book, "memory:threads")).content.decode()
    assert f"[#{memory_book.thread.number}]" in body
    assert "Who wrote the letter?" in body
    assert "chapter 6" in body
    assert "<td>open</td>" in body


def test_facts_filter_by_chapter(memory_book):
    from memory.models import Fact

    Fact.objects.create(novel=memory_book.novel, text="The bell rang at noon.", source_chapter=2)
    body = client_for(memory_book.viewer).get(_url(memory_book, "memory:facts") + "?chapter=2").content.decode()
    assert "The bell rang at noon." in body
    assert "green ink" not in body
