from __future__ import annotations

from django.urls import reverse

from generation.models import GenerationJob, JobKind
from novels.models import Chapter, ChapterRevision, ChapterStatus
from tests.pages.conftest import client_for, make_card


def _finalize_chapter_one(book):  # type: ignore[no-untyped-def]
    Chapter.objects.filter(pk=book.chapter.pk).update(status=ChapterStatus.FINALIZED, finalized_revision=book.revision)


def test_starting_a_draft_creates_exactly_one_job(book, django_capture_on_commit_callbacks):
    _finalize_chapter_one(book)
    make_card(book.novel, 2)
    url = reverse("generation:chapter_draft", args=[book.novel.pk, 2])
    client = client_for(book.editor)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        first = client.post(url)
        second = client.post(url)
    job = GenerationJob.objects.get(kind=JobKind.DRAFT, chapter_number=2)
    assert first["Location"] == second["Location"] == reverse("generation:job", args=[book.novel.pk, job.pk])
    assert len(callbacks) == 1


def test_a_draft_the_service_refuses_shows_its_message(book):
    url = reverse("generation:chapter_draft", args=[book.novel.pk, 2])
    response = client_for(book.editor).post(url, follow=True)
    assert "Finalize chapter 1 first" in response.content.decode()
    assert not GenerationJob.objects.filter(kind=JobKind.DRAFT, chapter_number=2).exists()


def test_a_two_megabyte_paste_shows_the_error_and_keeps_the_text(book):
    text = "The sea rose. " * 150_000  # 2.1 million characters
    url = reverse("generation:chapter_edit", args=[book.novel.pk, 1])
    response = client_for(book.editor).post(url, {"text": text})
    body = response.content.decode()
    assert response.status_code == 400
    assert "limited to 2,000,000 characters" in body
    assert text in body
    assert Chapter.objects.get(pk=book.chapter.pk).text == "The lamp went out."


def test_editing_the_text_saves_a_manual_revision(book):
    url = reverse("generation:chapter_edit", args=[book.novel.pk, 1])
    client_for(book.editor).post(url, {"text": "The lamp flickered."})
    assert Chapter.objects.get(pk=book.chapter.pk).text == "The lamp flickered."
    revision = ChapterRevision.objects.filter(chapter=book.chapter).first()
    assert revision is not None
    assert (revision.source, revision.created_by) == ("manual", book.editor)


def test_refinalize_is_offered_after_a_finalized_chapter_changes(book):
    _finalize_chapter_one(book)
    ChapterRevision.objects.create(chapter=book.chapter, text="New text", source="manual")
    body = client_for(book.editor).get(reverse("generation:chapter", args=[book.novel.pk, 1])).content.decode()
    assert "Re-finalize</button>" in body


def test_cascade_button_appears_when_a_later_chapter_is_stale(book):
    page = reverse("generation:chapter", args=[book.novel.pk, 1])
    assert "Re-finalize later chapters" not in client_for(book.editor).get(page).content.decode()
    Chapter.objects.filter(novel=book.novel, number=2).update(memory_stale=True)
    assert "Re-finalize later chapters" in client_for(book.editor).get(page).content.decode()


def test_cascade_request_creates_a_cascade_job(book, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        response = client_for(book.editor).post(reverse("generation:cascade_request", args=[book.novel.pk]))
    job = GenerationJob.objects.get(kind=JobKind.CASCADE)
    assert response["Location"] == reverse("generation:job", args=[book.novel.pk, job.pk])


def test_a_revision_of_another_chapter_is_404(book):
    url = reverse("generation:revision", args=[book.novel.pk, 2, book.revision.pk])
    assert client_for(book.owner).get(url).status_code == 404


def test_adopting_an_older_revision_makes_it_the_text(book):
    older = ChapterRevision.objects.create(chapter=book.chapter, text="An older opening.", source="draft")
    Chapter.objects.filter(pk=book.chapter.pk).update(text="Something else")
    client_for(book.editor).post(reverse("generation:revision_adopt", args=[book.novel.pk, 1, older.pk]))
    assert Chapter.objects.get(pk=book.chapter.pk).text == "An older opening."


def test_chapter_page_labels_text_from_the_demo_model(book):
    body = client_for(book.viewer).get(reverse("generation:chapter", args=[book.novel.pk, 1])).content.decode()
    assert 'class="demo-label"' in body
