"""The editor's deterministic checks: findings that need no model."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from memory.core.language import language_mismatch, resolve_language


@dataclass(frozen=True)
class Finding:
    dimension: str
    severity: str
    quote: str
    suggestion: str


def _quote_around(text: str, needle: str, width: int = 60) -> str:
    at = text.find(needle)
    if at < 0:
        return ""
    return text[max(0, at - width) : at + len(needle) + width].strip()


def check_language(*, text: str, language: str) -> list[Finding]:
    # A chapter is judged by its majority script (a stray foreign name or quote is
    # fine in prose); records are held to the stricter language_mismatch at write time.
    if text.strip() and resolve_language(text).code != language and language_mismatch(text, document_language=language):
        return [
            Finding(
                "language",
                "critical",
                text[:120],
                f"The chapter is not written in the novel's language ({language}); regenerate or translate it.",
            )
        ]
    return []


def check_dead_characters(*, text: str, dead_names: list[str]) -> list[Finding]:
    findings = []
    for name in dead_names:
        if name and name in text:
            findings.append(
                Finding(
                    "consistency",
                    "major",
                    _quote_around(text, name),
                    f"{name} is dead in the character state, yet appears here. "
                    "Make it a memory or flashback, or fix the state.",
                )
            )
    return findings


_WORD = re.compile(r"[A-Za-z][A-Za-z'-]{3,}")
_STOP = {
    "that",
    "this",
    "with",
    "from",
    "have",
    "will",
    "into",
    "their",
    "there",
    "about",
    "which",
    "when",
    "what",
    "been",
    "were",
    "they",
    "them",
    "than",
    "then",
    "thread",
    "payoff",
    "reveal",
    "finally",
}


def _salient_terms(summary: str) -> list[str]:
    if re.search(r"[\u4e00-\u9fff]", summary):
        han = re.sub(r"[^\u4e00-\u9fff]", "", summary)
        return [han[i : i + 2] for i in range(0, max(0, len(han) - 1))]
    return [w.lower() for w in _WORD.findall(summary) if w.lower() not in _STOP]


def check_planned_payoffs(*, text: str, card: dict[str, Any] | None) -> list[Finding]:
    """A payoff the card planned should leave a trace in the prose: at least a
    third of the thread summary's salient terms (or Chinese bigrams) appear."""
    if not card:
        return []
    lowered = text.lower()
    findings = []
    for op in card.get("foreshadowing", []):
        if op.get("op") != "payoff":
            continue
        terms = _salient_terms(op.get("summary", ""))
        if not terms:
            continue
        hits = sum(1 for t in set(terms) if t in lowered)
        if hits * 3 < len(set(terms)):
            findings.append(
                Finding(
                    "threads",
                    "major",
                    "",
                    f"The card plans to pay off “{op.get('summary', '')}” here, but the chapter never does.",
                )
            )
    return findings


def check_length(*, text: str, target_length: int) -> list[Finding]:
    length = len(text)
    if target_length and length < target_length * 0.5:
        return [
            Finding(
                "length",
                "major",
                "",
                f"The chapter has {length} characters against a target of {target_length}; it is far too short.",
            )
        ]
    return []


def deterministic_findings(
    *, text: str, language: str, dead_names: list[str], card: dict[str, Any] | None, target_length: int
) -> list[Finding]:
    return [
        *check_language(text=text, language=language),
        *check_dead_characters(text=text, dead_names=dead_names),
        *check_planned_payoffs(text=text, card=card),
        *check_length(text=text, target_length=target_length),
    ]
