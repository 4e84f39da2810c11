from __future__ import annotations

from django.urls import reverse

from generation.models import GenerationJob, JobKind
from novels.models import Architecture, BlueprintCard
from tests.pages.conftest import client_for

CARD = {"title": "The Bottle", "position": "opening", "core_function": "hook", "suspense_density": 4,
        "cognitive_twist": 1, "brief": "The keeper reads the letter twice."}


def test_editing_a_card_saves_it_and_records_who(book):
    url = reverse("generation:card_edit", args=[book.novel.pk, 1])
    response = client_for(book.editor).post(url, CARD)
    assert response.status_code == 302
    card = BlueprintCard.objects.get(novel=book.novel, number=1)
    assert (card.title, card.suspense_density, card.brief) == ("The Bottle", 4, "The keeper reads the letter twice.")
    assert card.edited_by == book.editor and card.edited_at is not None


def test_a_suspense_outside_one_to_five_is_refused_and_the_text_kept(book):
    url = reverse("generation:card_edit", args=[book.novel.pk, 1])
    response = client_for(book.editor).post(url, {**CARD, "suspense_density": 9})
    body = response.content.decode()
    assert response.status_code == 400
    assert "from 1 to 5" in body and "The keeper reads the letter twice." in body
    card = BlueprintCard.objects.get(novel=book.novel, number=1)
    assert card.suspense_density == 3 and card.edited_by is None


def test_editing_a_card_of_a_missing_number_is_404(book):
    url = reverse("generation:card_edit", args=[book.novel.pk, 99])
    assert client_for(book.editor).post(url, CARD).status_code == 404


def test_replanning_without_the_confirmation_starts_nothing(book):
    Architecture.objects.filter(novel=book.novel).update(plot_arcs="Three arcs.")
    url = reverse("generation:blueprint_plan", args=[book.novel.pk])
    response = client_for(book.editor).post(url, {"start": 1, "replan": "True", "guidance": "Darker."})
    assert response.status_code == 400
    assert "tick the box to confirm" in response.content.decode()
    assert not GenerationJob.objects.filter(kind=JobKind.BLUEPRINT).exists()


def test_planning_before_the_plot_arcs_shows_the_service_message(book):
    url = reverse("generation:blueprint_plan", args=[book.novel.pk])
    response = client_for(book.editor).post(url, {"start": 26, "guidance": "Keep the storm."})
    body = response.content.decode()
    assert response.status_code == 400
    assert "Plan the architecture (through the plot arcs) before the blueprint." in body
    assert "Keep the storm." in body


def test_planning_the_next_window_creates_a_job(book, django_capture_on_commit_callbacks):
    Architecture.objects.filter(novel=book.novel).update(plot_arcs="Three arcs.")
    url = reverse("generation:blueprint_plan", args=[book.novel.pk])
    with django_capture_on_commit_callbacks(execute=False):
        response = client_for(book.editor).post(url, {"start": 1, "replan": "True", "confirm": "on"})
    job = GenerationJob.objects.get(kind=JobKind.BLUEPRINT)
    assert (job.step, job.params["replan"]) == ("1", True)
    assert response["Location"] == reverse("generation:job", args=[book.novel.pk, job.pk])


def test_after_a_full_window_the_next_plan_starts_at_26(book):
    from tests.pages.conftest import make_card

    for number in range(2, 26):
        make_card(book.novel, number, foreshadowing=[])
    body = client_for(book.editor).get(reverse("generation:blueprint", args=[book.novel.pk])).content.decode()
    assert "Plan the window from chapter 26" in body
