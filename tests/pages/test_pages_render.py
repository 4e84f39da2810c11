"""Every generation page renders for the owner, an editor and a viewer."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.pages.conftest import client_for

PAGES = {
    "novels:detail": lambda b: {},
    "generation:architecture": lambda b: {},
    "generation:blueprint": lambda b: {},
    "generation:chapter": lambda b: {"number": 1},
    "generation:revision": lambda b: {"number": 1, "revision_id": b.revision.pk},
    "generation:jobs": lambda b: {},
    "generation:job": lambda b: {"job_id": b.job.pk},
    "generation:job_status": lambda b: {"job_id": b.job.pk},
    "generation:autopilot": lambda b: {},
}


@pytest.mark.parametrize("role", ["owner", "editor", "viewer"])
@pytest.mark.parametrize("name", sorted(PAGES))
def test_page_renders_for_every_member(book, role, name):
    url = reverse(name, kwargs={"novel_id": book.novel.pk, **PAGES[name](book)})
    response = client_for(getattr(book, role)).get(url)
    assert response.status_code == 200


@pytest.mark.parametrize("name", sorted(PAGES))
def test_page_is_404_for_a_stranger(book, name):
    url = reverse(name, kwargs={"novel_id": book.novel.pk, **PAGES[name](book)})
    assert client_for(book.stranger).get(url).status_code == 404


def test_viewer_sees_no_edit_forms_on_the_chapter_page(book):
    response = client_for(book.viewer).get(reverse("generation:chapter", args=[book.novel.pk, 1]))
    body = response.content.decode()
    assert "<textarea" not in body and "Draft</button>" not in body
    assert "The lamp went out." in body


def test_detail_page_links_each_chapter_with_its_stale_flag(book):
    book.chapter.memory_stale = True
    book.chapter.save()
    body = client_for(book.viewer).get(reverse("novels:detail", args=[book.novel.pk])).content.decode()
    assert reverse("generation:chapter", args=[book.novel.pk, 1]) in body
    assert "memory may be stale" in body
    for name in ("generation:architecture", "generation:blueprint", "generation:jobs", "novels:settings"):
        assert reverse(name, args=[book.novel.pk]) in body


def test_architecture_page_shows_the_demo_label_for_a_demo_part(book):
    body = client_for(book.viewer).get(reverse("generation:architecture", args=[book.novel.pk])).content.decode()
    assert 'class="demo-label"' in body


def test_blueprint_page_shows_fields_and_thread_labels(book):
    from memory.models import Thread

    Thread.objects.create(novel=book.novel, number=1, summary="Who wrote the letter?", planned=True)
    body = client_for(book.viewer).get(reverse("generation:blueprint", args=[book.novel.pk])).content.decode()
    assert "Card 1" in body and "hook the reader" in body and "3/5" in body
    assert "#1" in body and "plant" in body
    assert 'class="demo-label"' in body


def test_chapter_page_shows_review_findings(book):
    body = client_for(book.viewer).get(reverse("generation:chapter", args=[book.novel.pk, 1])).content.decode()
    assert "pacing" in body and "Slow the opening down." in body and "Minor" in body
