"""A viewer's POST to any write action is refused with 403 and changes nothing."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.urls import reverse

from tests.pages.conftest import client_for

WRITES = {
    "generation:architecture_edit": (lambda b: {}, lambda b: {"part": "core_seed", "text": "Overwritten"}),
    "generation:architecture_generate": (lambda b: {}, lambda b: {"part": "core_seed", "guidance": "g"}),
    "generation:blueprint_plan": (lambda b: {}, lambda b: {"start": 1, "replan": "True", "confirm": "on"}),
    "generation:card_edit": (lambda b: {"card_number": 1}, lambda b: {
        "title": "X", "position": "p", "core_function": "c", "suspense_density": 5, "cognitive_twist": 5, "brief": "b"}),
    "generation:chapter_draft": (lambda b: {"number": 2}, lambda b: {}),
    "generation:chapter_review": (lambda b: {"number": 1}, lambda b: {}),
    "generation:chapter_revise": (lambda b: {"number": 1}, lambda b: {}),
    "generation:chapter_finalize": (lambda b: {"number": 1}, lambda b: {}),
    "generation:chapter_edit": (lambda b: {"number": 1}, lambda b: {"text": "Viewer's text"}),
    "generation:revision_adopt": (lambda b: {"number": 1, "revision_id": b.revision.pk}, lambda b: {}),
    "generation:cascade_request": (lambda b: {}, lambda b: {}),
    "generation:job_pause": (lambda b: {"job_id": b.running.pk}, lambda b: {}),
    "generation:job_resume": (lambda b: {"job_id": b.running.pk}, lambda b: {}),
    "generation:job_cancel": (lambda b: {"job_id": b.running.pk}, lambda b: {}),
    "generation:autopilot": (lambda b: {}, lambda b: {"start": 1, "end": 2, "token_cap": 0, "cost_cap": 0}),
}


def _snapshot():  # type: ignore[no-untyped-def]
    from generation.models import GenerationJob
    from novels.models import Architecture, BlueprintCard, Chapter

    counts = [(m._meta.label, m._default_manager.count()) for m in apps.get_models() if m._meta.label != "sessions.Session"]
    rows = [list(M.objects.order_by("pk").values()) for M in (Architecture, BlueprintCard, Chapter, GenerationJob)]
    return counts, rows


@pytest.fixture
def running_book(book):  # type: ignore[no-untyped-def]
    from generation.models import GenerationJob, JobKind, JobStatus

    book.running = GenerationJob.objects.create(novel=book.novel, kind=JobKind.AUTOPILOT, status=JobStatus.RUNNING)
    return book


@pytest.mark.parametrize("name", sorted(WRITES))
def test_viewer_post_is_403_and_changes_nothing(running_book, name):
    kwargs, data = WRITES[name]
    url = reverse(name, kwargs={"novel_id": running_book.novel.pk, **kwargs(running_book)})
    before = _snapshot()
    response = client_for(running_book.viewer).post(url, data(running_book))
    assert response.status_code == 403
    assert _snapshot() == before


@pytest.mark.parametrize("name", sorted(set(WRITES) - {"generation:autopilot"}))  # autopilot's GET is its form
def test_write_actions_refuse_get(running_book, name):
    kwargs, _ = WRITES[name]
    url = reverse(name, kwargs={"novel_id": running_book.novel.pk, **kwargs(running_book)})
    assert client_for(running_book.owner).get(url).status_code == 405
