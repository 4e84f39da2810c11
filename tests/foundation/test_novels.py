"""Novel pages: list, create, settings, members."""

from __future__ import annotations

import pytest
from django.urls import reverse

from novels.models import Membership, Novel, Role

pytestmark = pytest.mark.django_db


def _novel_form(**overrides: object) -> dict[str, object]:
    data: dict[str, object] = {"title": "The Lighthouse Keeper", "genre": "mystery", "premise": "A keeper finds a letter.",
                               "language": "", "target_chapters": 24, "target_chapter_length": 3000, "memory_budget": 6000}
    data.update(overrides)
    return data


# --- list and create ---------------------------------------------------------------------------------


def test_list_shows_only_the_users_novels(client, members):
    from novels.services import novel_create

    novel_create(owner=members.stranger, title="A Stranger's Secret", language="en")
    client.force_login(members.viewer)
    body = client.get(reverse("novels:list")).content.decode()
    assert "The Lighthouse Keeper" in body
    assert "A Stranger's Secret" not in body


def test_empty_list_invites_to_create_a_novel(client, members):
    client.force_login(members.stranger)
    body = client.get(reverse("novels:list")).content.decode()
    assert "No novels yet" in body
    assert reverse("novels:create") in body


def test_create_makes_the_creator_the_owner(client, members):
    client.force_login(members.stranger)
    response = client.post(reverse("novels:create"), _novel_form(title="Salt Roads"))
    novel = Novel.objects.get(title="Salt Roads")
    assert response.status_code == 302 and response["Location"] == reverse("novels:detail", args=[novel.pk])
    assert list(novel.memberships.values_list("user__username", "role")) == [("stranger", Role.OWNER)]
    assert novel.created_by == members.stranger


def test_create_detects_chinese_from_title_and_premise(client, members):
    client.force_login(members.stranger)
    client.post(reverse("novels:create"), _novel_form(title="灯塔看守人", premise="一个守塔人在瓶子里发现了一封信。"))
    novel = Novel.objects.get(title="灯塔看守人")
    assert (novel.language, novel.language_overridden) == ("zh", False)


def test_create_detects_english_from_title_and_premise(client, members):
    client.force_login(members.stranger)
    client.post(reverse("novels:create"), _novel_form(title="Salt Roads", premise="Two smugglers cross the salt flats."))
    novel = Novel.objects.get(title="Salt Roads")
    assert (novel.language, novel.language_overridden) == ("en", False)


def test_create_keeps_a_chosen_language(client, members):
    client.force_login(members.stranger)
    client.post(reverse("novels:create"), _novel_form(title="Salt Roads", language="zh"))
    novel = Novel.objects.get(title="Salt Roads")
    assert (novel.language, novel.language_overridden) == ("zh", True)


def test_create_without_title_shows_the_error(client, members):
    client.force_login(members.stranger)
    response = client.post(reverse("novels:create"), _novel_form(title=""))
    assert response.status_code == 200
    assert "This field is required" in response.content.decode()
    assert not Novel.objects.filter(created_by=members.stranger).exists()


def test_a_2mb_premise_paste_gets_a_clear_error_and_the_text_is_kept(client, members):
    premise = ("The keeper climbed the stairs again. " * 60000)[: 2 * 1024 * 1024]
    client.force_login(members.stranger)
    response = client.post(reverse("novels:create"), _novel_form(title="Very Long", premise=premise))
    body = response.content.decode()
    assert response.status_code == 200
    assert "limited to 20,000 characters" in body
    assert premise.strip() in body  # re-rendered in the textarea: nothing the author pasted is lost
    assert 'value="Very Long"' in body
    assert not Novel.objects.filter(title="Very Long").exists()


def test_premise_field_does_not_let_the_browser_cut_a_paste(client, members):
    client.force_login(members.stranger)
    body = client.get(reverse("novels:create")).content.decode()
    assert 'name="premise"' in body
    assert "maxlength" not in body.split('name="premise"')[1].split(">")[0]


# --- settings ----------------------------------------------------------------------------------------


def test_owner_updates_settings(client, members):
    client.force_login(members.owner)
    url = reverse("novels:settings", args=[members.novel.pk])
    response = client.post(url, _novel_form(title="The Last Keeper", target_chapters=30, memory_budget=8000))
    assert response.status_code == 302 and response["Location"] == url
    novel = Novel.objects.get(pk=members.novel.pk)
    assert (novel.title, novel.target_chapters, novel.memory_budget) == ("The Last Keeper", 30, 8000)


def test_viewer_cannot_post_settings(client, members):
    client.force_login(members.viewer)
    response = client.post(reverse("novels:settings", args=[members.novel.pk]), _novel_form(title="Hijacked"))
    assert response.status_code == 403
    novel = Novel.objects.get(pk=members.novel.pk)
    assert (novel.title, novel.target_chapters) == ("The Lighthouse Keeper", 60)


def test_editor_cannot_post_settings(client, members):
    client.force_login(members.editor)
    response = client.post(reverse("novels:settings", args=[members.novel.pk]), _novel_form(title="Hijacked"))
    assert response.status_code == 403
    assert Novel.objects.get(pk=members.novel.pk).title == "The Lighthouse Keeper"


def test_viewer_sees_settings_read_only(client, members):
    client.force_login(members.viewer)
    body = client.get(reverse("novels:settings", args=[members.novel.pk])).content.decode()
    assert "Only the owner can change settings" in body
    assert reverse("novels:member_set", args=[members.novel.pk]) not in body


# --- members -----------------------------------------------------------------------------------------


def _role_of(novel: Novel, username: str) -> str | None:
    return Membership.objects.filter(novel=novel, user__username=username).values_list("role", flat=True).first()


def test_owner_adds_a_member(client, members):
    client.force_login(members.owner)
    response = client.post(reverse("novels:member_set", args=[members.novel.pk]), {"username": "stranger", "role": Role.EDITOR})
    assert response.status_code == 302
    assert _role_of(members.novel, "stranger") == Role.EDITOR


def test_owner_changes_a_members_role(client, members):
    client.force_login(members.owner)
    client.post(reverse("novels:member_set", args=[members.novel.pk]), {"username": "viewer", "role": Role.EDITOR})
    assert _role_of(members.novel, "viewer") == Role.EDITOR


def test_owner_removes_a_member(client, members):
    client.force_login(members.owner)
    membership = Membership.objects.get(novel=members.novel, user=members.editor)
    response = client.post(reverse("novels:member_remove", args=[members.novel.pk, membership.pk]))
    assert response.status_code == 302
    assert _role_of(members.novel, "editor") is None


def test_adding_an_unknown_user_shows_the_error(client, members):
    client.force_login(members.owner)
    response = client.post(reverse("novels:member_set", args=[members.novel.pk]), {"username": "nobody", "role": Role.VIEWER})
    assert response.status_code == 400
    assert "No user named" in response.content.decode()
    assert members.novel.memberships.count() == 3


def test_the_last_owner_cannot_be_removed(client, members):
    client.force_login(members.owner)
    membership = Membership.objects.get(novel=members.novel, user=members.owner)
    response = client.post(reverse("novels:member_remove", args=[members.novel.pk, membership.pk]))
    assert response.status_code == 400
    assert "at least one owner" in response.content.decode()
    assert _role_of(members.novel, "owner") == Role.OWNER


def test_the_last_owner_cannot_be_demoted(client, members):
    client.force_login(members.owner)
    response = client.post(reverse("novels:member_set", args=[members.novel.pk]), {"username": "owner", "role": Role.EDITOR})
    assert response.status_code == 400
    assert "at least one owner" in response.content.decode()
    assert _role_of(members.novel, "owner") == Role.OWNER


def test_an_owner_can_step_down_once_there_is_another_owner(client, members):
    client.force_login(members.owner)
    client.post(reverse("novels:member_set", args=[members.novel.pk]), {"username": "editor", "role": Role.OWNER})
    client.post(reverse("novels:member_set", args=[members.novel.pk]), {"username": "owner", "role": Role.VIEWER})
    assert (_role_of(members.novel, "editor"), _role_of(members.novel, "owner")) == (Role.OWNER, Role.VIEWER)


def test_editor_cannot_add_members(client, members):
    client.force_login(members.editor)
    response = client.post(reverse("novels:member_set", args=[members.novel.pk]), {"username": "stranger", "role": Role.OWNER})
    assert response.status_code == 403
    assert _role_of(members.novel, "stranger") is None


def test_owner_deletes_the_novel(client, members):
    client.force_login(members.owner)
    response = client.post(reverse("novels:delete", args=[members.novel.pk]))
    assert response.status_code == 302 and response["Location"] == reverse("novels:list")
    assert not Novel.objects.filter(pk=members.novel.pk).exists()
