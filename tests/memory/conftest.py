from __future__ import annotations

import pytest

from memory.context import retrieval_cache_clear


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    # The members fixture creates four users; PBKDF2 would dominate these tests.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _fresh_retrieval_cache():
    # Test transactions roll back and the database may then reuse ids, so a
    # cached index keyed by (novel, last passage id, count) could outlive its rows.
    retrieval_cache_clear()
    yield
    retrieval_cache_clear()
