from __future__ import annotations

from django.urls import reverse

from generation.models import GenerationJob, JobKind
from novels.models import Architecture
from tests.pages.conftest import client_for


def test_editing_a_part_saves_the_text_and_records_who(book):
    url = reverse("generation:architecture_edit", args=[book.novel.pk])
    response = client_for(book.editor).post(url, {"part": "world", "text": "A rock in a cold sea."})
    assert response.status_code == 302
    architecture = Architecture.objects.get(novel=book.novel)
    assert architecture.world == "A rock in a cold sea."
    assert architecture.updated_by == book.editor
    assert architecture.sources["world"] == "author"


def test_editing_an_unknown_part_changes_nothing_and_says_so(book):
    url = reverse("generation:architecture_edit", args=[book.novel.pk])
    response = client_for(book.editor).post(url, {"part": "villains", "text": "Nope"})
    assert response.status_code == 400
    assert "Unknown architecture part" in response.content.decode()
    assert Architecture.objects.get(novel=book.novel).updated_by is None


def test_generating_a_part_before_earlier_parts_shows_why_and_keeps_the_guidance(book):
    url = reverse("generation:architecture_generate", args=[book.novel.pk])
    response = client_for(book.editor).post(url, {"part": "plot_arcs", "guidance": "Make the sea a character."})
    body = response.content.decode()
    assert response.status_code == 400
    assert "first: each step builds on the ones before it" in body
    assert "Make the sea a character." in body
    assert not GenerationJob.objects.filter(kind=JobKind.ARCHITECTURE).exists()


def test_generating_a_part_creates_one_job_and_redirects_to_it(book, django_capture_on_commit_callbacks):
    url = reverse("generation:architecture_generate", args=[book.novel.pk])
    with django_capture_on_commit_callbacks(execute=False):
        response = client_for(book.editor).post(url, {"part": "characters", "guidance": "Two keepers."})
    job = GenerationJob.objects.get(kind=JobKind.ARCHITECTURE)
    assert (job.step, job.params["guidance"], job.created_by) == ("characters", "Two keepers.", book.editor)
    assert response["Location"] == reverse("generation:job", args=[book.novel.pk, job.pk])
