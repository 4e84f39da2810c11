from __future__ import annotations

from django.urls import reverse

from generation.models import GenerationJob, JobKind, JobStatus
from tests.pages.conftest import client_for


def _running(book, **fields):  # type: ignore[no-untyped-def]
    values = {"novel": book.novel, "kind": JobKind.DRAFT, "chapter_number": 2, "status": JobStatus.RUNNING,
              "model": "demo", "stream_text": "Waves broke over the rocks", "progress": 1, "progress_total": 3}
    values.update(fields)
    return GenerationJob.objects.create(**values)


def test_job_page_shows_the_streamed_text_and_the_demo_label(book):
    job = _running(book)
    body = client_for(book.viewer).get(reverse("generation:job", args=[book.novel.pk, job.pk])).content.decode()
    assert "Waves broke over the rocks" in body
    assert 'class="demo-label"' in body


def test_an_active_job_polls_every_two_seconds(book):
    job = _running(book)
    body = client_for(book.viewer).get(reverse("generation:job_status", args=[book.novel.pk, job.pk])).content.decode()
    assert 'hx-trigger="every 2s"' in body
    assert reverse("generation:job_status", args=[book.novel.pk, job.pk]) in body


def test_a_finished_job_does_not_poll(book):
    body = client_for(book.viewer).get(reverse("generation:job", args=[book.novel.pk, book.job.pk])).content.decode()
    assert "every 2s" not in body


def test_job_page_shows_the_context_snapshot_sections(book):
    snapshot = {"mode": "memory", "budget": 6000, "used": 4100,
                "global_summary": {"chapter": 1, "tokens": 300, "kept": True},
                "sections": {"retrieval": {"share": 900, "used": 850, "kept": ["p:1", "p:2"], "dropped": ["p:3"]}}}
    job = _running(book, context_snapshot=snapshot)
    body = client_for(book.viewer).get(reverse("generation:job", args=[book.novel.pk, job.pk])).content.decode()
    assert "retrieval" in body and "850" in body and "p:3" in body


def test_pausing_a_running_job_pauses_the_row(book):
    job = _running(book)
    client_for(book.editor).post(reverse("generation:job_pause", args=[book.novel.pk, job.pk]))
    job.refresh_from_db()
    assert job.status == JobStatus.PAUSED


def test_cancelling_a_finished_job_says_so_and_changes_nothing(book):
    response = client_for(book.editor).post(reverse("generation:job_cancel", args=[book.novel.pk, book.job.pk]), follow=True)
    assert "already finished" in response.content.decode()
    book.job.refresh_from_db()
    assert book.job.status == JobStatus.SUCCEEDED


def test_resume_through_htmx_returns_the_status_partial(book, django_capture_on_commit_callbacks):
    job = _running(book, status=JobStatus.PAUSED)
    with django_capture_on_commit_callbacks(execute=False):
        response = client_for(book.editor).post(
            reverse("generation:job_resume", args=[book.novel.pk, job.pk]), headers={"HX-Request": "true"}
        )
    body = response.content.decode()
    assert response.status_code == 200 and 'id="job-status"' in body and "<html" not in body
    job.refresh_from_db()
    assert job.status == JobStatus.QUEUED


def test_jobs_list_shows_kind_tokens_and_error(book):
    _running(book, status=JobStatus.FAILED, error="The model answered in the wrong language.", tokens_in=77)
    body = client_for(book.viewer).get(reverse("generation:jobs", args=[book.novel.pk])).content.decode()
    assert "Draft" in body and "77" in body and "The model answered in the wrong language." in body


def test_a_job_of_another_novel_is_404(book):
    from novels.services import novel_create

    other = novel_create(owner=book.stranger, title="Other", language="en")
    job = GenerationJob.objects.create(novel=other, kind=JobKind.PROBE, status=JobStatus.RUNNING)
    assert client_for(book.owner).get(reverse("generation:job", args=[book.novel.pk, job.pk])).status_code == 404
    assert client_for(book.owner).post(reverse("generation:job_cancel", args=[book.novel.pk, job.pk])).status_code == 404
    job.refresh_from_db()
    assert job.status == JobStatus.RUNNING
