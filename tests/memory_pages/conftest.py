"""A small remembered book for the memory page tests: a finalized chapter's
global summary and chapter summary, a character with two state versions, a
fact and a thread with its opening event."""

from __future__ import annotations

import pytest
from django.test import Client

from memory.models import ChapterSummary, Character, CharacterState, Fact, GlobalSummary
from memory.threads_ledger import thread_open
from novels.models import Chapter, ChapterStatus


@pytest.fixture
def memory_book(members):  # type: ignore[no-untyped-def]
    novel = members.novel
    Chapter.objects.create(novel=novel, number=1, title="The Bottle", text="The lamp went out.",
                           status=ChapterStatus.FINALIZED)
    members.global_summary = GlobalSummary.objects.create(
        novel=novel, chapter=1, text="Mara keeps the lighthouse and finds a letter.", source_chapter=1
    )
    members.summary = ChapterSummary.objects.create(
        novel=novel, chapter=1, summary="Mara finds a bottle on the rocks.", skeleton="Ch1: the bottle.",
        source_chapter=1,
    )
    members.character = Character.objects.create(novel=novel, name="Mara", aliases=["the keeper"],
                                                 description="The lighthouse keeper.")
    members.initial_state = CharacterState.objects.create(
        novel=novel, character=members.character, chapter=0, state={"alive": True, "location": "the lighthouse"}
    )
    members.state = CharacterState.objects.create(
        novel=novel, character=members.character, chapter=1, source_chapter=1,
        state={"alive": True, "location": "the rocks", "physical": "", "mental": "curious",
               "items": ["torn letter"], "abilities": [], "relationships": {"Tobias": "old friend"}},
        changes={"changes": [{"name": "Mara", "location": "the rocks", "items_gained": ["torn letter"]}]},
    )
    members.fact = Fact.objects.create(novel=novel, text="The letter is written in green ink.", entities=["Mara"],
                                       source_chapter=1)
    members.thread = thread_open(novel=novel, chapter=1, summary="Who wrote the letter?", kind="mystery", deadline=6)
    return members


def client_for(user) -> Client:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(user)
    return client
