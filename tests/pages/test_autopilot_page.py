from __future__ import annotations

from django.urls import reverse

from generation.models import GenerationJob, JobKind
from tests.pages.conftest import client_for


def test_starting_autopilot_creates_a_job_with_the_caps(book, django_capture_on_commit_callbacks):
    url = reverse("generation:autopilot", args=[book.novel.pk])
    with django_capture_on_commit_callbacks(execute=False):
        response = client_for(book.editor).post(url, {"start": 1, "end": 5, "token_cap": 50000, "cost_cap": "1.5"})
    job = GenerationJob.objects.get(kind=JobKind.AUTOPILOT)
    assert job.params == {"start": 1, "end": 5, "token_cap": 50000, "cost_cap": 1.5}
    assert response["Location"] == reverse("generation:job", args=[book.novel.pk, job.pk])


def test_a_backwards_range_shows_the_service_message_and_keeps_the_input(book):
    url = reverse("generation:autopilot", args=[book.novel.pk])
    response = client_for(book.editor).post(url, {"start": 9, "end": 3, "token_cap": 777, "cost_cap": 0})
    body = response.content.decode()
    assert response.status_code == 400
    assert "start ≥ 1 and end ≥ start" in body and 'value="777"' in body
    assert not GenerationJob.objects.filter(kind=JobKind.AUTOPILOT).exists()
