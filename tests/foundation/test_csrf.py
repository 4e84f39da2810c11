"""CSRF protection stays on: a POST without the token is refused and changes nothing."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from novels.models import Novel

pytestmark = pytest.mark.django_db


def test_post_without_csrf_token_is_refused_and_changes_nothing(members):
    client = Client(enforce_csrf_checks=True)
    client.force_login(members.owner)
    response = client.post(reverse("novels:settings", args=[members.novel.pk]), {
        "title": "Forged", "premise": "", "genre": "", "language": "en",
        "target_chapters": 10, "target_chapter_length": 3000, "memory_budget": 6000,
    })
    assert response.status_code == 403
    assert Novel.objects.get(pk=members.novel.pk).title == "The Lighthouse Keeper"


def test_login_post_without_csrf_token_is_refused(members):
    client = Client(enforce_csrf_checks=True)
    response = client.post(reverse("login"), {"username": "owner", "password": "pw-owner-123"})
    assert response.status_code == 403


def test_post_with_the_pages_csrf_token_is_accepted(members):
    client = Client(enforce_csrf_checks=True)
    client.get(reverse("login"))
    token = client.cookies["csrftoken"].value
    response = client.post(reverse("login"), {"username": "owner", "password": "pw-owner-123", "csrfmiddlewaretoken": token})
    assert response.status_code == 302
