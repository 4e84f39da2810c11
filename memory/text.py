"""Text helpers for memory write-back: passage splitting and finding names."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from memory.core.language import is_char_counted_language

# A passage has to be long enough to carry a scene's entities and short enough
# that four of them fit the retrieval share. Dense scripts hold about three
# times as much per character, hence the different ranges.
PASSAGE_RANGE_DENSE = (300, 600)
PASSAGE_RANGE_WORDS = (800, 1500)

_PARAGRAPH = re.compile(r"\n\s*\n|\n")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？…])[\"'”’」』)）]*\s*")
_DENSE_NAME = re.compile("[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af]")


def _dense(language: str) -> bool:
    return language.split("-")[0].lower() in {"zh", "ja", "ko", "th"}


def passage_range(*, language: str, sample: str = "") -> tuple[int, int]:
    if _dense(language) or (sample and is_char_counted_language(sample[:2000])):
        return PASSAGE_RANGE_DENSE
    return PASSAGE_RANGE_WORDS


def _pieces(paragraph: str, hi: int) -> list[str]:
    """A paragraph longer than a whole passage is cut at sentence ends (hard cut as a last resort)."""
    if len(paragraph) <= hi:
        return [paragraph]
    sentences = [s for s in _SENTENCE_END.split(paragraph) if s] if _SENTENCE_END.search(paragraph) else [paragraph]
    out: list[str] = []
    current = ""
    for sentence in sentences:
        while len(sentence) > hi:
            out.extend([current] if current else [])
            current = ""
            out.append(sentence[:hi])
            sentence = sentence[hi:]
        if current and len(current) + len(sentence) > hi:
            out.append(current)
            current = ""
        current += sentence
    if current:
        out.append(current)
    return out


def split_passages(text: str, *, language: str) -> list[str]:
    """Split chapter text on paragraph boundaries into passages of roughly lo..hi characters."""
    lo, hi = passage_range(language=language, sample=text)
    paragraphs = [p.strip() for p in _PARAGRAPH.split(text or "") if p.strip()]
    passages: list[str] = []
    current: list[str] = []
    size = 0
    for paragraph in paragraphs:
        for piece in _pieces(paragraph, hi):
            if current and (size >= lo or size + len(piece) > hi):
                passages.append("\n\n".join(current))
                current, size = [], 0
            current.append(piece)
            size += len(piece) + (2 if size else 0)
    if current:
        tail = "\n\n".join(current)
        # A short tail reads better joined to the previous passage than on its own.
        if passages and len(tail) < lo // 2 and len(passages[-1]) + len(tail) + 2 <= hi * 1.25:
            passages[-1] = passages[-1] + "\n\n" + tail
        else:
            passages.append(tail)
    return passages


def alias_map(characters: Iterable[tuple[str, Iterable[str]]]) -> dict[str, str]:
    """Every name and alias (stripped) -> the character's canonical name."""
    out: dict[str, str] = {}
    for name, aliases in characters:
        for alias in [name, *aliases]:
            alias = (alias or "").strip()
            if alias:
                out.setdefault(alias, name)
    return out


def _name_pattern(alias: str) -> re.Pattern[str]:
    if _DENSE_NAME.search(alias):
        return re.compile(re.escape(alias))
    flags = 0 if alias != alias.lower() else re.IGNORECASE
    return re.compile(r"(?<!\w)" + re.escape(alias) + r"(?!\w)", flags)


def names_in(text: str, aliases: Mapping[str, str]) -> list[str]:
    """Canonical names of the characters mentioned in text, in first-seen order."""
    found: dict[str, int] = {}
    for alias, name in aliases.items():
        match = _name_pattern(alias).search(text or "")
        if match and (name not in found or match.start() < found[name]):
            found[name] = match.start()
    return sorted(found, key=lambda n: found[n])
