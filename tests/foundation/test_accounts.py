"""Sign up, log in, log out."""

from __future__ import annotations

import pytest
from django.contrib.auth import SESSION_KEY, get_user_model
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_signup_creates_the_user_and_logs_them_in(client):
    response = client.post(reverse("signup"), {"username": "ada", "password1": "lamp-and-letter-9", "password2": "lamp-and-letter-9"})
    assert response.status_code == 302 and response["Location"] == reverse("novels:list")
    user = get_user_model().objects.get(username="ada")
    assert user.check_password("lamp-and-letter-9")
    assert client.session[SESSION_KEY] == str(user.pk)


def test_signup_with_mismatched_passwords_shows_the_error_and_creates_no_user(client):
    response = client.post(reverse("signup"), {"username": "ada", "password1": "lamp-and-letter-9", "password2": "other-9-letters"})
    assert response.status_code == 200
    assert "didn’t match" in response.content.decode() or "didn't match" in response.content.decode()
    assert not get_user_model().objects.filter(username="ada").exists()


def test_signup_with_taken_username_shows_the_error(client, members):
    response = client.post(reverse("signup"), {"username": "owner", "password1": "lamp-and-letter-9", "password2": "lamp-and-letter-9"})
    assert response.status_code == 200
    assert "already exists" in response.content.decode()


def test_login_with_the_right_password_reaches_the_novel_list(client, members):
    response = client.post(reverse("login"), {"username": "owner", "password": "pw-owner-123"})
    assert response.status_code == 302 and response["Location"] == reverse("novels:list")
    assert client.session[SESSION_KEY] == str(members.owner.pk)


def test_login_with_a_wrong_password_shows_an_error(client, members):
    response = client.post(reverse("login"), {"username": "owner", "password": "nope"})
    assert response.status_code == 200
    assert "correct username and password" in response.content.decode()
    assert SESSION_KEY not in client.session


def test_login_keeps_the_next_page(client, members):
    target = reverse("novels:detail", args=[members.novel.pk])
    response = client.post(reverse("login"), {"username": "owner", "password": "pw-owner-123", "next": target})
    assert response["Location"] == target


def test_logout_by_post_ends_the_session(client, members):
    client.force_login(members.owner)
    response = client.post(reverse("logout"))
    assert response.status_code == 302 and response["Location"] == reverse("login")
    assert SESSION_KEY not in client.session


def test_logout_by_get_is_refused(client, members):
    client.force_login(members.owner)
    response = client.get(reverse("logout"))
    assert response.status_code == 405
    assert client.session[SESSION_KEY] == str(members.owner.pk)
