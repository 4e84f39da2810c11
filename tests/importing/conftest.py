from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.conf import settings

from novels.importing import SplitResult, read_manuscript, split_manuscript

CORPORA = Path(os.environ.get("INKSTONE_CORPORA", settings.BASE_DIR.parent / "shared" / "corpora"))


def corpus_path(name: str) -> Path:
    path = CORPORA / name
    if not path.is_file():
        pytest.fail(f"corpus missing: {path}")
    return path


def split_corpus(name: str) -> SplitResult:
    path = corpus_path(name)
    text, _encoding, markdown = read_manuscript(filename=path.name, path=path)
    return split_manuscript(text, markdown=markdown)


@pytest.fixture(scope="session")
def pride() -> SplitResult:
    return split_corpus("pride_and_prejudice.en.txt")


@pytest.fixture(scope="session")
def sanguo() -> SplitResult:
    return split_corpus("sanguo_yanyi.zh.txt")


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    """These tests create users but never log in; PBKDF2 would dominate their run time."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
