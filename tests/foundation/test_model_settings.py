"""A model per role, set per novel over site defaults; the API key never reaches a page."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from generation.llm import llm_for

pytestmark = pytest.mark.django_db


def _post_settings(client: Client, novel, **extra):  # type: ignore[no-untyped-def]
    data = {"title": novel.title, "genre": "", "premise": novel.premise, "language": "", "target_chapters": 60,
            "target_chapter_length": 3000, "memory_budget": 6000, **extra}
    return client.post(reverse("novels:settings", args=[novel.pk]), data)


def test_owner_sets_the_writer_model_and_other_roles_keep_site_defaults(members, settings):
    settings.OPENAI_API_KEY = "sk-secret-never-shown"
    settings.LLM_DEFAULT_MODELS = {**settings.LLM_DEFAULT_MODELS, "planner": "site-planner"}
    client = Client()
    client.force_login(members.owner)
    assert _post_settings(client, members.novel, writer_model="my-writer").status_code == 302
    members.novel.refresh_from_db()
    llm = llm_for(members.novel)
    assert (llm.model_for("writer"), llm.model_for("planner")) == ("my-writer", "site-planner")


def test_memory_budget_out_of_range_is_refused_with_a_message(members):
    client = Client()
    client.force_login(members.owner)
    response = _post_settings(client, members.novel, memory_budget=10)
    assert response.status_code == 200
    assert "between 500 and 200,000" in response.content.decode()
    members.novel.refresh_from_db()
    assert members.novel.memory_budget == 6000


def test_settings_page_never_renders_the_api_key(members, settings):
    settings.OPENAI_API_KEY = "sk-secret-never-shown"
    client = Client()
    client.force_login(members.owner)
    for name in ("novels:settings", "novels:detail", "generation:jobs"):
        assert "sk-secret-never-shown" not in client.get(reverse(name, args=[members.novel.pk])).content.decode()
