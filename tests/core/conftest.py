"""Shared helpers for the memory-core tests (no database, no Django)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from memory.core.retrieval import Passage

# The repo root's parent holds `shared/`; read it, never write it.
# Under mutmut the tests run from <repo>/mutants/, one level deeper.
_HERE = Path(__file__).resolve()
SHARED = next(
    (c for c in (_HERE.parents[2] / ".." / "shared", _HERE.parents[3] / ".." / "shared") if c.is_dir()),
    _HERE.parents[2] / ".." / "shared",
)
REFERENCE = SHARED / "reference"
CORPORA = SHARED / "corpora"


def load_json(name: str) -> Any:
    return json.loads((REFERENCE / name).read_text(encoding="utf-8"))


def split_passages(chapters: list[str], size: int) -> list[Passage]:
    passages = []
    for number, body in enumerate(chapters, 1):
        paragraphs = [p for p in re.split(r"\n\s*\n", body) if p.strip()]
        chunk: list[str] = []
        part = 0
        for paragraph in paragraphs:
            chunk.append(paragraph)
            if sum(len(x) for x in chunk) >= size:
                passages.append(Passage(f"{number}-{part}", number, "\n\n".join(chunk)))
                chunk, part = [], part + 1
        if chunk:
            passages.append(Passage(f"{number}-{part}", number, "\n\n".join(chunk)))
    return passages


@pytest.fixture(scope="session")
def wire() -> Any:
    return load_json("longform_memory_wire_fixtures.json")


@pytest.fixture(scope="session")
def budget_cases() -> Any:
    return load_json("longform_memory_budget_cases.json")


@pytest.fixture(scope="session")
def english_chapters() -> list[str]:
    text = (CORPORA / "pride_and_prejudice.en.txt").read_text(encoding="utf-8")
    return re.split(r"(?m)^Chapter \d+", text)[1:]


@pytest.fixture(scope="session")
def chinese_chapters() -> list[str]:
    text = (CORPORA / "sanguo_yanyi.zh.txt").read_text(encoding="utf-8")
    chapters = re.split(r"第.{1,4}回", text)[1:]
    # The file wraps lines with full-width indents instead of blank lines.
    return [re.sub(r"\n\u3000\u3000", "\n\n\u3000\u3000", c) for c in chapters]
