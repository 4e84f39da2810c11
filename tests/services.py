"""Which real services this test run has, and how a test that needs a missing one behaves.

Locally a missing service skips with the reason; with INKSTONE_REQUIRE_SERVICES=1
(as in CI) it fails, so a CI run can never pass by skipping."""

from __future__ import annotations

import os
import socket
from urllib.parse import urlparse

import pytest
from django.conf import settings

REQUIRE = os.environ.get("INKSTONE_REQUIRE_SERVICES") == "1"


def _answers(url: str, default_port: int) -> bool:
    parsed = urlparse(url)
    try:
        socket.create_connection((parsed.hostname or "127.0.0.1", parsed.port or default_port), timeout=1).close()
    except OSError:
        return False
    return True


def database_vendor() -> str:
    return str(settings.DATABASES["default"]["ENGINE"]).rsplit(".", 1)[-1]


def redis_available() -> bool:
    return bool(settings.REDIS_URL) and _answers(settings.REDIS_URL, 6379)


def missing(reason: str) -> None:
    if REQUIRE:
        pytest.fail(f"required service missing: {reason}")
    pytest.skip(reason)


def require_postgres() -> None:
    if database_vendor() != "postgresql":
        missing("needs PostgreSQL: set DATABASE_URL or start PostgreSQL on 127.0.0.1:5432")


def require_redis() -> None:
    if not redis_available():
        missing("needs Redis: set REDIS_URL or start Redis on 127.0.0.1:6379")
