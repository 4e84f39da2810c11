from __future__ import annotations

import pytest
from django.conf import settings

from tests.fakeopenai import fake_openai, llm_worker_env, use_fake_openai  # noqa: F401  (fixtures)
from tests.services import REQUIRE, database_vendor, redis_available
from tests.worker import celery_worker  # noqa: F401  (fixture)


def pytest_report_header(config: pytest.Config) -> list[str]:
    return [
        f"inkstone: database vendor={database_vendor()} broker={settings.BROKER_KIND}"
        f" (redis reachable={redis_available()}) require_services={REQUIRE}",
    ]


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):  # type: ignore[no-untyped-def]
    """The members fixture creates four users; the default hasher costs seconds per test."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def settings_llm_env() -> dict[str, str]:
    """Environment a worker process needs to reach the test's model server; overridden by LLM tests."""
    return {}


@pytest.fixture
def members(db: None):  # type: ignore[no-untyped-def]
    """The base fixture: one novel with an owner, an editor, a viewer, and a stranger outside it."""
    from django.contrib.auth import get_user_model

    from novels.models import Membership, Role
    from novels.services import novel_create

    user_model = get_user_model()
    owner = user_model.objects.create_user("owner", password="pw-owner-123")
    editor = user_model.objects.create_user("editor", password="pw-editor-123")
    viewer = user_model.objects.create_user("viewer", password="pw-viewer-123")
    stranger = user_model.objects.create_user("stranger", password="pw-stranger-123")
    novel = novel_create(owner=owner, title="The Lighthouse Keeper", premise="A keeper finds a letter in a bottle.", language="en")
    Membership.objects.create(novel=novel, user=editor, role=Role.EDITOR)
    Membership.objects.create(novel=novel, user=viewer, role=Role.VIEWER)

    class Members:
        pass

    m = Members()
    m.owner, m.editor, m.viewer, m.stranger, m.novel = owner, editor, viewer, stranger, novel  # type: ignore[attr-defined]
    return m
