"""A small book the page tests share: architecture, one card, two chapters, a revision, a job."""

from __future__ import annotations

import pytest
from django.test import Client

from generation.models import GenerationJob, JobKind, JobStatus, ReviewFinding
from novels.models import Architecture, BlueprintCard, Chapter, ChapterRevision, ChapterStatus


def make_card(novel, number: int, **fields) -> BlueprintCard:  # type: ignore[no-untyped-def]
    values = {
        "window_start": 1, "title": f"Card {number}", "position": "opening", "core_function": "hook the reader",
        "suspense_density": 3, "cognitive_twist": 2, "brief": "The keeper finds the bottle.", "model_label": "demo",
        "foreshadowing": [{"op": "plant", "thread": "#1", "summary": "Who wrote the letter?"}],
    }
    values.update(fields)
    return BlueprintCard.objects.create(novel=novel, number=number, **values)


@pytest.fixture
def book(members):  # type: ignore[no-untyped-def]
    novel = members.novel
    Architecture.objects.filter(novel=novel).update(
        core_seed="A keeper and a letter.", sources={"core_seed": "demo"}
    )
    card = make_card(novel, 1)
    chapter = Chapter.objects.create(novel=novel, number=1, title="The Bottle", text="The lamp went out.",
                                     status=ChapterStatus.DRAFTED)
    Chapter.objects.create(novel=novel, number=2, title="The Reply")
    revision = ChapterRevision.objects.create(chapter=chapter, text="The lamp went out.", source="draft", model_label="demo")
    job = GenerationJob.objects.create(
        novel=novel, chapter=chapter, chapter_number=1, kind=JobKind.DRAFT, status=JobStatus.SUCCEEDED,
        model="demo", stream_text="The lamp went out.", tokens_in=120, tokens_out=40,
    )
    ReviewFinding.objects.create(job=job, chapter=chapter, dimension="pacing", severity="minor",
                                 quote="The lamp went out.", suggestion="Slow the opening down.")
    members.card, members.chapter, members.revision, members.job = card, chapter, revision, job
    return members


def client_for(user) -> Client:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(user)
    return client
