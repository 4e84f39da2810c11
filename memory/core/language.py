"""Script detection for prompt language, and the write-time language guard.

Detection is a majority test against every other script, so one stray
character of another script never flips a Russian, Arabic or Chinese text.
The guard and the detector share no shortcut: the guard is a deterministic
check on the record itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "ARABIC",
    "CYRILLIC",
    "DEVANAGARI",
    "GREEK",
    "HAN",
    "HANGUL",
    "HEBREW",
    "KANA",
    "LATIN",
    "SAMPLE_CHARS",
    "THAI",
    "LanguageHint",
    "ScriptCounts",
    "count_scripts",
    "document_scripts",
    "dominates",
    "is_char_counted_language",
    "language_mismatch",
    "resolve_language",
]

# Each range is a superset of the reference's for the same name.
HANGUL = re.compile("[\u1100-\u11ff\u3130-\u318f\ua960-\ua97f\uac00-\ud7af\ud7b0-\ud7ff\uffa0-\uffdc]")
KANA = re.compile("[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9d\U0001b000-\U0001b16f]")
HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003ffff]")
CYRILLIC = re.compile("[\u0400-\u052f]")
ARABIC = re.compile("[\u0600-\u06ff\u0750-\u077f\ufb50-\ufdff\ufe70-\ufeff]")
DEVANAGARI = re.compile("[\u0900-\u097f]")
THAI = re.compile("[\u0e00-\u0e7f]")
HEBREW = re.compile("[\u0590-\u05ff]")
GREEK = re.compile("[\u0370-\u03ff\u1f00-\u1fff]")
# Latin letters only: the reference's À-ÿ also counted × and ÷.
LATIN = re.compile("[A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f\u1e00-\u1eff]")

_SCRIPTS: dict[str, re.Pattern[str]] = {
    "Latn": LATIN,
    "Hani": HAN,
    "Kana": KANA,
    "Hang": HANGUL,
    "Thai": THAI,
    "Cyrl": CYRILLIC,
    "Arab": ARABIC,
    "Hebr": HEBREW,
    "Deva": DEVANAGARI,
    "Grek": GREEK,
}
# Scripts written without spaces, whose length is counted in characters.
_CHAR_COUNTED = ("Hani", "Kana", "Hang", "Thai")
_CJK = ("Hani", "Kana", "Hang")
# Kana or hangul must reach a fifth of the Han count (and be more than one
# stray letter) to make a text Japanese or Korean: kanji-heavy Japanese prose
# is ~30% kana, while a Chinese text with one stray の is not Japanese.
_SECONDARY_SHARE = 5
_STRAY = 1
# "Almost entirely another script": more than this many of its letters and
# none of the document's.
_WHOLE_RECORD_LETTERS = 10

SAMPLE_CHARS = 120


@dataclass(frozen=True)
class ScriptCounts:
    """Letters per script (ISO 15924 codes) in one text."""

    counts: dict[str, int]

    def __getitem__(self, script: str) -> int:
        return self.counts.get(script, 0)

    def total(self, scripts: tuple[str, ...]) -> int:
        return sum(self[s] for s in scripts)


def count_scripts(text: str) -> ScriptCounts:
    """Count letters of every known script in ``text``."""
    return ScriptCounts({name: len(p.findall(text or "")) for name, p in _SCRIPTS.items()})


def dominates(text: str, script: re.Pattern[str]) -> bool:
    """Is ``text`` predominantly in ``script``?

    A majority test against every other known script, not only Latin: a
    Russian text with one hangul letter is still Russian. A Chinese title
    (2 Han : 0 other) still counts as Chinese.
    """
    n = len(script.findall(text or ""))
    if n == 0:
        return False
    rest = script.sub("", text)
    return all(n >= len(p.findall(rest)) for p in _SCRIPTS.values() if p.pattern != script.pattern)


@dataclass(frozen=True)
class LanguageHint:
    """The output-language decision for one sample.

    ``directive``, ``unit`` and ``char_counted`` mean what they mean in the
    reference. ``code`` is a language code ('zh', 'ja', 'ko', 'th', 'ru',
    'ar', 'he', 'hi', 'el', 'en'); 'en' means "Latin script" — glyphs cannot
    tell English from Spanish, which is why the directive then quotes the
    sample. ``script`` is the ISO 15924 code of the deciding script.
    """

    directive: str
    unit: str
    char_counted: bool
    code: str = "en"
    script: str = "Latn"


def _same_as(text: str, guess: str) -> str:
    sample = re.sub(r"\s+", " ", text)[:SAMPLE_CHARS]
    named = f" (it looks like {guess})" if guess else ""
    return (
        f'EXACTLY the same language as this sample{named} — "{sample}" — '
        "do NOT translate or switch to another language"
    )


def _cjk_code(c: ScriptCounts) -> str:
    han, kana, hangul = c["Hani"], c["Kana"], c["Hang"]
    if hangul > (_STRAY if han else 0) and hangul >= kana and hangul * _SECONDARY_SHARE >= han:
        return "ko"
    if kana > (_STRAY if han else 0) and kana * _SECONDARY_SHARE >= han:
        return "ja"
    return "zh"


def _leader(c: ScriptCounts) -> str | None:
    """The script family holding a (tie-inclusive) majority, or None."""
    cjk = c.total(_CJK)
    word = {s: c[s] for s in ("Latn", "Thai", "Cyrl", "Arab", "Hebr", "Deva", "Grek")}
    if cjk > 0 and cjk >= max(word.values()):
        return "CJK"
    # Same order as the reference, so ties resolve the same way.
    for s in ("Thai", "Cyrl", "Arab", "Hebr", "Deva", "Grek", "Latn"):
        others = [v for k, v in word.items() if k != s] + [cjk]
        if word[s] > 0 and word[s] >= max(others):
            return s
    return None


def resolve_language(sample: str) -> LanguageHint:
    """Decide the output language of a sample of user content (title plus
    outline; never your own prompt text)."""
    text = (sample or "").strip()
    c = count_scripts(text)
    leader = _leader(c)
    if leader == "CJK":
        code = _cjk_code(c)
        if code == "ko":
            return LanguageHint("한국어 (Korean)", "chars", True, "ko", "Kore")
        if code == "ja":
            return LanguageHint("日本語 (Japanese)", "chars", True, "ja", "Jpan")
        return LanguageHint("中文", "chars", True, "zh", "Hani")
    if leader == "Thai":
        return LanguageHint("ไทย (Thai)", "chars", True, "th", "Thai")
    named = {
        "Cyrl": ("Russian or another Cyrillic-script language", "ru"),
        "Arab": ("Arabic", "ar"),
        "Hebr": ("Hebrew", "he"),
        "Deva": ("Hindi or another Devanagari-script language", "hi"),
    }
    if leader in named:
        guess, code = named[leader]
        return LanguageHint(_same_as(text, guess), "words", False, code, leader)
    if not text:
        return LanguageHint("English", "words", False, "en", "Latn")
    if leader == "Grek":
        return LanguageHint(_same_as(text, ""), "words", False, "el", "Grek")
    return LanguageHint(_same_as(text, ""), "words", False, "en" if leader else "und", leader or "Zyyy")


def is_char_counted_language(sample: str) -> bool:
    """Is the sample in a script counted by character (CJK, Thai)?"""
    return resolve_language(sample).char_counted


_CODE_SCRIPTS: dict[str, tuple[str, ...]] = {
    "zh": ("Hani",),
    "ja": ("Kana", "Hani"),
    "ko": ("Hang", "Hani"),
    "th": ("Thai",),
    "el": ("Grek",),
    "he": ("Hebr",),
    "yi": ("Hebr",),
}
_CODE_SCRIPTS.update({c: ("Cyrl",) for c in ("ru", "uk", "be", "bg", "sr", "mk", "kk", "ky", "mn", "tg")})
_CODE_SCRIPTS.update({c: ("Arab",) for c in ("ar", "fa", "ur", "ps", "ug")})
_CODE_SCRIPTS.update({c: ("Deva",) for c in ("hi", "mr", "ne", "sa")})


def document_scripts(language: str) -> tuple[str, ...]:
    """The scripts a document in ``language`` is written in.

    Any code not listed (es, fr, de, vi, ...) is taken to be Latin script.
    """
    base = re.split("[-_]", (language or "").strip().lower(), maxsplit=1)[0]
    return _CODE_SCRIPTS.get(base, ("Latn",))


def language_mismatch(
    text: str,
    document_is_char_counted: bool | None = None,
    *,
    document_language: str | None = None,
) -> bool:
    """Write-time guard: is this record in the wrong script for the document?

    With only ``document_is_char_counted`` (the reference's form) it can tell
    the two families apart; pass ``document_language`` to catch a whole record
    in the wrong script for any pair of scripts (a Russian record in an
    English book, a Chinese record in a Thai one, Japanese in Chinese).

    Deliberately asymmetric, as in the reference: char-counted records
    routinely embed Latin names, so only an (almost) entirely foreign record
    is rejected; a word-script document should hold no ideographs at all.
    """
    if not text:
        return False
    c = count_scripts(text)
    dense = c.total(_CHAR_COUNTED)
    words = c.total(("Latn", "Cyrl", "Arab", "Hebr", "Deva", "Grek"))
    if document_language is None:
        if document_is_char_counted:
            return dense == 0 and words > _WHOLE_RECORD_LETTERS
        return dense > 0
    scripts = document_scripts(document_language)
    own = c.total(scripts)
    foreign_dense = dense - c.total(tuple(s for s in scripts if s in _CHAR_COUNTED))
    foreign_words = words - c.total(tuple(s for s in scripts if s not in _CHAR_COUNTED))
    if any(s in _CHAR_COUNTED for s in scripts):
        if own == 0:
            return foreign_dense > 0 or foreign_words > _WHOLE_RECORD_LETTERS
        if scripts[0] in _CJK and c.total(_CJK) > 0:
            # Japanese in a Chinese book shares its Han, so compare the
            # CJK-family decision instead of the raw script.
            want = {"Hani": "zh", "Kana": "ja", "Hang": "ko"}[scripts[0]]
            got = _cjk_code(c)
            return got != want and not (want == "ja" and got == "zh")
        return False
    if dense > 0:
        return True
    return own == 0 and foreign_words > _WHOLE_RECORD_LETTERS
