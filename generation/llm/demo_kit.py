"""Shared helpers of the offline demo model: deterministic choice and reading its context.

No randomness and no clock: every choice is a hash of the inputs, so the same
request always gets the same answer (tests and the test server rely on it)."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")

_SENTENCE = re.compile(r"[^。！？!?.\n]+[。！？!?.]?")
# "[T3] ..." (memory.core.threads.render_known_threads) or "#3 [open] ..." (the planner's ledger view).
_THREAD_LINE = re.compile(r"^\s*(?:\[\s*[Tt]\s*(\d+)\s*\]|#\s*(\d+))\s*(.*)$")
# "[in progress] ", "[planned, plant at ch. 30] " or "【进行中】" style tags in front of a thread.
_TAG = re.compile(r"^(?:\[([^\]]*)\]|【([^】]*)】)\s*")
# " (due by Ch.12)" / "（第12章前）" behind it.
_DUE = re.compile(r"\s*[（(][^（）()]*\d+[^（）()]*[)）]\s*$")
_NAME_LINE = re.compile(
    r"^\s*(?:[-*•#]+\s*)?(?:\*\*)?([^\s:：—(（,，*-][^:：—(（,，*\n]{0,24}?)(?:\*\*)?\s*(?:[:：—(（,，]| - )"
)


def lang_of(language: str) -> str:
    return "zh" if (language or "").lower().startswith("zh") else "en"


def digest(*parts: Any) -> int:
    raw = json.dumps(parts, ensure_ascii=False, sort_keys=True, default=str)
    return int(hashlib.sha256(raw.encode("utf-8")).hexdigest()[:16], 16)


def pick(options: Sequence[T], *parts: Any) -> T:
    return options[digest(*parts) % len(options)]


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.findall(text or "") if len(s.strip()) > 1]


def clip(text: str, limit: int) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


@dataclass(frozen=True)
class KnownThread:
    label: str  # as listed: "T3" or "#3"; the model cites it back in that form
    summary: str
    due: int | None = None
    planned: bool = False


def parse_threads(rendered: str) -> list[KnownThread]:
    """A rendered thread list: "[T3] [in progress] summary (due by Ch.12)" or "#3 [planned, ...] summary (...)"."""
    found = []
    for line in (rendered or "").splitlines():
        m = _THREAD_LINE.match(line)
        if not m:
            continue
        label = f"T{int(m.group(1))}" if m.group(1) else f"#{int(m.group(2))}"
        rest = m.group(3).strip()
        tags = []
        while (tag := _TAG.match(rest)) is not None:
            tags.append(tag.group(1) or tag.group(2) or "")
            rest = rest[tag.end() :]
        due_match = _DUE.search(rest)
        due_digits = re.search(r"\d+", due_match.group(0)) if due_match else None
        summary = _DUE.sub("", rest).strip()
        if summary:
            planned = any("planned" in t or "计划" in t for t in tags)
            due = int(due_digits.group(0)) if due_digits else None
            found.append(KnownThread(label=label, summary=summary, due=due, planned=planned))
    return found


def names_in(text: str) -> list[str]:
    """Names at the head of lines ("Name — role", "- Name: ...", "**Name** (...)")."""
    names: list[str] = []
    for line in (text or "").splitlines():
        m = _NAME_LINE.match(line)
        if m:
            name = m.group(1).strip()
            if name and name not in names and len(name.split()) <= 4:
                names.append(name)
    return names


def cast(*texts: str, mention: str = "") -> list[str]:
    """Candidate character names from the given texts, those mentioned in `mention` first."""
    seen: list[str] = []
    for text in texts:
        for name in names_in(text):
            if name not in seen:
                seen.append(name)
    if mention:
        mentioned = [n for n in seen if n in mention]
        return mentioned + [n for n in seen if n not in mentioned]
    return seen


def mentioned_thread(text: str, thread: KnownThread) -> bool:
    summary = thread.summary
    return summary in text or (len(summary) > 12 and summary[:12] in text)
