"""Reading a manuscript and splitting it into chapters: pure functions, no database.

The browser upload will reuse these; novels.import_services writes the result.
Splitting is line based: find every line that looks like a chapter heading,
then decide which of them are real by how much text follows them (a table of
contents lists headings with no bodies) and by how their numbers run (a
contents list, or a second copy, restarts the numbering).
"""

from __future__ import annotations

import codecs
import io
import itertools
import re
import statistics
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "MAX_BYTES",
    "SUPPORTED_SUFFIXES",
    "ManuscriptError",
    "SplitChapter",
    "SplitResult",
    "decode_text",
    "parse_chinese_number",
    "parse_english_number",
    "parse_roman",
    "read_manuscript",
    "split_manuscript",
    "strip_boilerplate",
]

MAX_BYTES = 20 * 1024 * 1024
SUPPORTED_SUFFIXES = (".txt", ".text", ".md", ".markdown", ".docx")
# A heading is one short line; anything longer is prose that happens to start like one.
_MAX_HEADING_CHARS = 100
_MAX_TITLE_CHARS = 80
# A heading whose body is under this share of the median body is a contents
# entry, not a chapter (capped so one huge chapter cannot hide short real ones).
_THIN_BODY_SHARE = 20
_THIN_BODY_CAP = 200
# A run of headings holding under this share of the main run's text is a
# contents list or stray copy rather than a second volume.
_THIN_RUN_SHARE = 10


class ManuscriptError(ValueError):
    """The file cannot be imported; the message is meant for the author."""


@dataclass(frozen=True)
class SplitChapter:
    number: int
    title: str
    text: str
    # The heading line as written, and the number it carried (None for a prologue or epilogue).
    heading: str = ""
    source_number: int | None = None


@dataclass
class SplitResult:
    chapters: list[SplitChapter]
    warnings: list[str] = field(default_factory=list)
    encoding: str = "utf-8"
    boilerplate_lines: int = 0
    front_matter_chars: int = 0


# --- reading ---------------------------------------------------------------------------------------------------------


def read_manuscript(*, filename: str, path: Path | None = None, data: bytes | None = None) -> tuple[str, str, bool]:
    """Return (text, encoding, is_markdown) for a .txt, .md or .docx manuscript."""
    suffix = Path(filename).suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise ManuscriptError(
            f"Cannot import '{filename}': unsupported file type '{suffix or '(none)'}'. "
            f"Use one of {', '.join(SUPPORTED_SUFFIXES)}."
        )
    if data is None:
        if path is None:
            raise ManuscriptError("Give either a path or the file's bytes.")
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise ManuscriptError(_too_big(filename, size))
        data = path.read_bytes()
    if len(data) > MAX_BYTES:
        raise ManuscriptError(_too_big(filename, len(data)))
    if suffix == ".docx":
        return _read_docx(data, filename), "docx", True
    text, encoding = decode_text(data)
    return text, encoding, suffix in (".md", ".markdown")


def _too_big(filename: str, size: int) -> str:
    return f"Cannot import '{filename}': {size / 1048576:.1f} MB is over the {MAX_BYTES // 1048576} MB limit."


def _read_docx(data: bytes, filename: str) -> str:
    import docx  # python-docx; imported here so plain-text imports never pay for it

    try:
        document = docx.Document(io.BytesIO(data))
    except Exception as exc:  # python-docx raises several unrelated types for a damaged zip
        raise ManuscriptError(f"Cannot read '{filename}' as a Word document: {exc}") from exc
    lines = []
    for paragraph in document.paragraphs:
        style = (paragraph.style.name if paragraph.style is not None else "") or ""
        level = re.match(r"Heading (\d)", style)
        # Word's heading styles become markdown headings so one splitter serves both.
        lines.append(f"{'#' * int(level.group(1))} {paragraph.text}" if level else paragraph.text)
    return "\n".join(lines)


_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
# Characters a manuscript is made of; the wrong byte order of UTF-16 yields mostly others.
_PLAUSIBLE = re.compile("[\t\n\r\x20-\x7e\u00a0-\u024f\u2000-\u206f\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
_HAN_OR_PUNCT = re.compile("[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")


def decode_text(data: bytes) -> tuple[str, str]:
    """Decode manuscript bytes, returning (text, encoding name)."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return _newlines(data.decode(encoding, errors="replace")), encoding
    head = data[:65536]
    # UTF-16 without a BOM: text files never hold NUL bytes, but UTF-16 puts one beside every
    # ASCII character (newlines, spaces), and always on the same side.
    if len(data) % 2 == 0 and 0 in head:
        scored = []
        for encoding in ("utf-16-le", "utf-16-be"):
            sample = head.decode(encoding, errors="replace")
            scored.append((sum(1 for ch in sample if _PLAUSIBLE.match(ch)) / max(1, len(sample)), encoding))
        if scored and max(scored)[0] >= 0.9:
            encoding = max(scored)[1]
            return _newlines(data.decode(encoding, errors="replace")), encoding
    try:
        return _newlines(data.decode("utf-8")), "utf-8"
    except UnicodeDecodeError:
        pass
    try:
        text = data.decode("gb18030")
    except UnicodeDecodeError:
        text = ""
    # gb18030 accepts many byte strings; believe it only if what it made is mostly Chinese.
    wide = [ch for ch in text[:20000] if ord(ch) > 127]
    if wide and sum(1 for ch in wide if _HAN_OR_PUNCT.match(ch)) >= 0.9 * len(wide):
        return _newlines(text), "gb18030"
    return _newlines(data.decode("cp1252", errors="replace")), "cp1252"


def _newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\ufeff", "")


# --- numbers ---------------------------------------------------------------------------------------------------------

_ROMAN_RE = re.compile(r"^m{0,4}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$", re.IGNORECASE)
_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}


def parse_roman(token: str) -> int | None:
    if not token or not _ROMAN_RE.match(token):
        return None
    values = [_ROMAN_VALUES[c] for c in token.lower()]
    return sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))


_EN_UNITS = {
    w: i
    for i, w in enumerate(
        ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
         "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")
    )
}  # fmt: skip
_EN_TENS = {
    w: 10 * i
    for i, w in enumerate(("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"), start=2)
}
_EN_ORDINALS = {"first": "one", "second": "two", "third": "three", "fifth": "five", "eighth": "eight",
                "ninth": "nine", "twelfth": "twelve"}  # fmt: skip


def _cardinal(word: str) -> str:
    word = _EN_ORDINALS.get(word, word)
    if word.endswith("ieth"):
        return word[:-4] + "y"
    if word.endswith("th") and word[:-2] in _EN_UNITS | {"hundred": 0, "thousand": 0}:
        return word[:-2]
    return word


def parse_english_number(words: list[str]) -> tuple[int | None, int]:
    """Parse a leading number written in English words; return (value, words consumed)."""
    total = current = used = 0
    seen = False
    for raw in words:
        word = _cardinal(raw.lower())
        if word in _EN_UNITS:
            current += _EN_UNITS[word]
        elif word in _EN_TENS:
            current += _EN_TENS[word]
        elif word == "hundred" and seen:
            current = max(current, 1) * 100
        elif word == "thousand" and seen:
            total += max(current, 1) * 1000
            current = 0
        elif (word == "the" and not seen) or (word == "and" and seen):
            used += 1
            continue
        else:
            break
        seen = True
        used += 1
    if not seen:
        return None, 0
    while used and words[used - 1].lower() in ("and", "the"):
        used -= 1  # "Chapter Two and the Storm": "and the" belongs to the title
    return total + current, used


_ZH_DIGITS = (
    {c: i for i, c in enumerate("零一二三四五六七八九")}
    | {"〇": 0, "两": 2}
    | {c: i for i, c in enumerate("零壹贰叁肆伍陆柒捌玖")}
)
_ZH_UNITS = {"十": 10, "拾": 10, "百": 100, "佰": 100, "千": 1000, "仟": 1000, "万": 10000}
ZH_NUMERALS = "0-9０-９〇零一二两三四五六七八九十百千万壹贰叁肆伍陆柒捌玖拾佰仟"


def parse_chinese_number(token: str) -> int | None:
    """Parse 十二, 一百二十, 一百十 (=110), 一〇五, ２３ and the like."""
    token = token.strip()
    if not token:
        return None
    if token.isdigit():
        return int(token)  # int() reads full-width digits too
    if not any(c in _ZH_UNITS for c in token):
        # Digit-by-digit, as in 一二〇.
        digits = [_ZH_DIGITS.get(c) for c in token]
        return None if None in digits else int("".join(str(d) for d in digits))
    total = section = 0
    digit: int | None = None
    for c in token:
        if c in _ZH_DIGITS:
            digit = _ZH_DIGITS[c]
        elif c in _ZH_UNITS:
            unit = _ZH_UNITS[c]
            if unit == 10000:
                total += (section + (digit or 0)) * unit
                section = 0
            else:
                section += (1 if digit is None else digit) * unit
            digit = None
        else:
            return None
    return total + section + (digit or 0)


# --- boilerplate -----------------------------------------------------------------------------------------------------

_URL = re.compile(
    r"(?:https?://|www\.)\S+|\b[\w-]+\.(?:com|net|org|cn|cc|info|top|xyz|me|tw)(?:/\S*)?\b", re.IGNORECASE
)
_BOILERPLATE_ZH = re.compile(
    r"本书由.{0,30}(?:整理|提供|收集)|更多精彩|更新时间\s*[:：]|本章字数\s*[:：]|作品仅供.{0,6}预览|小时内删除"
    r"|不得用作商业用途|购买正版|章节内容(?:开始|结束)|(?:最新|全部)章节|免费(?:阅读|下载)|全文阅读"
    r"|(?:txt|TXT|电子书)\s*(?:全集)?\s*下载|(?:收藏|推荐|访问)本站|(?:本站|本书)首发|^[（(]?本章完[）)]?$"
    r"|手机(?:用户)?(?:请)?(?:阅读|访问|浏览)"
)
_BOILERPLATE_EN = re.compile(r"project gutenberg|gutenberg\.org|this e-?book is for the use of anyone", re.IGNORECASE)
_URL_HINT = re.compile(r"https?:|www\.|\.(?:com|net|org|cn|cc|info|top|xyz|me|tw)\b", re.IGNORECASE)
_GUTENBERG_START = re.compile(r"^\s*\*{3}\s*START OF (?:THE|THIS) PROJECT GUTENBERG", re.IGNORECASE)
_GUTENBERG_END = re.compile(r"^\s*(?:\*{3}\s*)?END OF (?:THE |THIS )?PROJECT GUTENBERG", re.IGNORECASE)
# A boilerplate phrase inside a long paragraph is prose quoting it; only short lines are site furniture.
_MAX_BOILERPLATE_LINE = 200


def strip_boilerplate(lines: list[str]) -> tuple[list[str], int]:
    """Drop download-site and Project Gutenberg furniture; return (lines, non-blank lines removed)."""
    removed = 0
    start = next((i for i, line in enumerate(lines) if _GUTENBERG_START.match(line)), None)
    if start is not None:
        removed += sum(1 for line in lines[: start + 1] if line.strip())
        lines = lines[start + 1 :]
    end = next((i for i, line in enumerate(lines) if _GUTENBERG_END.match(line)), None)
    if end is not None:
        removed += sum(1 for line in lines[end:] if line.strip())
        lines = lines[:end]
    kept = []
    for line in lines:
        stripped = line.strip()
        has_url = _URL_HINT.search(stripped) is not None and _URL.search(stripped) is not None
        if stripped and len(stripped) <= _MAX_BOILERPLATE_LINE and (has_url or _is_furniture(stripped)):
            removed += 1
            continue
        if has_url:
            line = _URL.sub("", line)
        kept.append(line)
    return kept, removed


def _is_furniture(line: str) -> bool:
    # The cheap tests first: most lines of an English book never reach a regex.
    if not line.isascii():
        return _BOILERPLATE_ZH.search(line) is not None
    return ("utenberg" in line or "ook is for" in line) and _BOILERPLATE_EN.search(line) is not None


# --- headings --------------------------------------------------------------------------------------------------------

_MARKDOWN = re.compile(r"^(#{1,6})\s+(.*?)\s*#*$")
_DECORATION = re.compile(r"^[*_\s]+|[*_\s]+$")
_ZH_VOLUME = rf"(?:第\s*[{ZH_NUMERALS}]+\s*[卷部集篇]|卷\s*[{ZH_NUMERALS}]+)"
_ZH_HEADING = re.compile(
    rf"^(?:正文\s*)?(?:{_ZH_VOLUME}[^第]{{0,20}}?\s*)?第\s*(?P<num>[{ZH_NUMERALS}]+)\s*(?P<unit>[章回节])(?P<rest>.*)$"
)
_ZH_VOLUME_ONLY = re.compile(rf"^(?:正文\s*)?{_ZH_VOLUME}(?:[\s:：、.．]+.{{0,30}})?$")
_EN_HEADING = re.compile(r"^(?:CHAPTER|Chapter|Chap\.)\s+(?P<rest>.+)$")
_EN_VOLUME_ONLY = re.compile(
    r"^(?:BOOK|Book|PART|Part|VOLUME|Volume)\s+(?:[IVXLC]+|\d+|[A-Za-z]+)\b[.:]?(?:\s.{0,60})?$"
)
_SPECIAL = re.compile(r"^(?P<word>Prologue|PROLOGUE|Epilogue|EPILOGUE|序章|楔子|尾声)(?P<rest>.*)$")
_SEPARATOR = " \t\u3000.:：、,，-–—·"
_TOC_PAGE = re.compile(r"(?:\s*[.·…]{2,}\s*|\s+)\d+$")
_SENTENCE_END = re.compile(r"[。！？!?”\"]$|。|[,，;；]$")


@dataclass
class _Heading:
    index: int
    number: int | None
    title: str
    line: str
    body: int = 0


def _clean_title(rest: str) -> str:
    title = rest.strip(_SEPARATOR + "*_")
    title = _TOC_PAGE.sub("", title) if re.search(r"[.·…]{2,}\s*\d+$", title) else title
    return re.sub(r"\s+", " ", title).strip()


def _parse_heading(line: str) -> tuple[int | None, str] | None:
    """(number, title) if the line is a chapter heading; number None for a prologue or epilogue."""
    text = line.strip()
    if not text or len(text) > _MAX_HEADING_CHARS:
        return None
    md = _MARKDOWN.match(text)
    text = _DECORATION.sub("", md.group(2) if md else text)
    zh = _ZH_HEADING.match(text)
    if zh:
        rest = zh.group("rest")
        if (zh.group("unit") == "回" and rest.startswith("合")) or _SENTENCE_END.search(rest):
            return None  # 第三回合 is a bout, not a chapter; a sentence is prose
        number = parse_chinese_number(zh.group("num"))
        return None if number is None else (number, _clean_title(rest))
    en = _EN_HEADING.match(text)
    if en:
        return _parse_english(en.group("rest"))
    special = _SPECIAL.match(text)
    if special and not _SENTENCE_END.search(special.group("rest")):
        rest = special.group("rest")
        if rest and rest[0] not in _SEPARATOR:
            return None
        return None, _clean_title(rest) or special.group("word").capitalize()
    return None


def _parse_english(rest: str) -> tuple[int | None, str] | None:
    match = re.match(r"(\d{1,4}|[IVXLCDMivxlcdm]{1,9})(?=$|[\s.:\-–—])(.*)$", rest)
    number: int | None = None
    if match:
        token, tail = match.groups()
        number = int(token) if token.isdigit() else parse_roman(token)
    if number is None:
        words = re.findall(r"[A-Za-z]+|[^A-Za-z]+", rest)
        tokens = [w for w in words if w.isalpha()]
        number, used = parse_english_number(tokens)
        if number is None:
            return None
        # Drop the consumed words (and the joins between them) from the front of the text.
        consumed, seen = 0, 0
        for piece in words:
            if seen == used:
                break
            consumed += len(piece)
            seen += piece.isalpha()
        tail = rest[consumed:]
        if tail and tail[0].isalpha():
            return None
    title = _clean_title(tail)
    if len(title) > _MAX_TITLE_CHARS or _SENTENCE_END.search(title) or (title and title[0].islower()):
        return None
    return number, title


def _markdown_headings(lines: list[str]) -> list[_Heading]:
    """Unnumbered markdown headings at the shallowest level used more than once (the book title is used once)."""
    found: dict[int, list[_Heading]] = {}
    for i, line in enumerate(lines):
        md = _MARKDOWN.match(line.strip())
        if md and md.group(2):
            found.setdefault(len(md.group(1)), []).append(_Heading(i, None, _clean_title(md.group(2)), line.strip()))
    for level in sorted(found):
        if len(found[level]) > 1:
            return found[level]
    return []


def _nonspace(lines: list[str]) -> int:
    return sum(len("".join(line.split())) for line in lines)


# --- splitting -------------------------------------------------------------------------------------------------------


def split_manuscript(text: str, *, markdown: bool = False) -> SplitResult:
    """Split a manuscript's text into chapters numbered 1..N in reading order."""
    lines, boilerplate = strip_boilerplate(_newlines(text).split("\n"))
    warnings: list[str] = []
    headings: list[_Heading] = []
    volumes: set[int] = set()
    for i, line in enumerate(lines):
        parsed = _parse_heading(line)
        if parsed is not None:
            headings.append(_Heading(i, parsed[0], parsed[1], line.strip()))
        elif _ZH_VOLUME_ONLY.match(line.strip()) or _EN_VOLUME_ONLY.match(line.strip()):
            volumes.add(i)
    # 节 are sections inside 章; they split chapters only in a book that has no 章.
    if any(re.search(r"第.+[章回]", h.line) for h in headings):
        headings = [h for h in headings if not re.search(r"第[^章回]+节", h.line)]
    if not any(h.number is not None for h in headings) and markdown:
        headings = _markdown_headings(lines)
    if not headings:
        body = "\n".join(lines).strip()
        warnings.append("No chapter headings found; the whole manuscript is one chapter.")
        chapters = [SplitChapter(number=1, title="", text=_tidy(body.split("\n")))] if body else []
        return SplitResult(chapters, warnings, boilerplate_lines=boilerplate)

    bounds = [*sorted({h.index for h in headings} | volumes), len(lines)]
    for h in headings:
        following = bounds[bounds.index(h.index) + 1]
        h.body = _nonspace(lines[h.index + 1 : following])
    kept = _drop_thin(headings, warnings)
    kept = _drop_thin_runs(kept, warnings)
    if not kept:
        warnings.append("Every heading was followed by almost no text; the whole manuscript is one chapter.")
        return SplitResult([SplitChapter(1, "", _tidy(lines))], warnings, boilerplate_lines=boilerplate)

    front = _nonspace(lines[: kept[0].index])
    if front:
        warnings.append(f"Skipped {front} characters of front matter before the first chapter (title page, contents).")
    _warn_numbering(kept, warnings)
    chapters = []
    for n, h in enumerate(kept, start=1):
        end = kept[n].index if n < len(kept) else len(lines)
        own = [line for i, line in enumerate(lines[h.index + 1 : end], start=h.index + 1) if i not in volumes]
        chapters.append(SplitChapter(number=n, title=h.title, text=_tidy(own), heading=h.line, source_number=h.number))
    return SplitResult(chapters, warnings, boilerplate_lines=boilerplate, front_matter_chars=front)


def _drop_thin(headings: list[_Heading], warnings: list[str]) -> list[_Heading]:
    bodies = [h.body for h in headings if h.body > 0]
    median = statistics.median(bodies) if bodies else 0
    threshold = max(1, min(_THIN_BODY_CAP, int(median) // _THIN_BODY_SHARE))
    kept = [h for h in headings if h.body >= threshold]
    thin = len(headings) - len(kept)
    if thin:
        warnings.append(f"Ignored {thin} heading(s) followed by almost no text (a contents list or empty chapters).")
    return kept


def _runs(headings: list[_Heading]) -> list[list[_Heading]]:
    """Split where the numbering goes back (or repeats); prologues and epilogues stay in their run."""
    runs: list[list[_Heading]] = [[]]
    last: int | None = None
    for h in headings:
        if h.number is not None and last is not None and h.number <= last:
            runs.append([])
        runs[-1].append(h)
        last = h.number if h.number is not None else last
    return runs


def _drop_thin_runs(headings: list[_Heading], warnings: list[str]) -> list[_Heading]:
    runs = _runs(headings)
    if len(runs) == 1:
        return headings
    main = max(runs, key=lambda run: sum(h.body for h in run))
    main_text = sum(h.body for h in main)
    main_numbers = {h.number for h in main}
    main_first = next((h.number for h in main if h.number is not None), None)
    kept: list[_Heading] = []
    for position, run in enumerate(runs):
        if run is main or not any(h.number in main_numbers for h in run if h.number is not None):
            kept.extend(run)
            continue
        thin = sum(h.body for h in run) * _THIN_RUN_SHARE < main_text
        # The last entry of a contents list keeps whatever preface follows it as its "body";
        # a second volume would restart at the first number instead.
        contents_tail = position < runs.index(main) and len(run) <= 2 and run[0].number != main_first
        if thin or contents_tail:
            warnings.append(
                f"Numbering restarts at '{run[0].line}'; ignored {len(run)} repeated heading(s) with little text "
                "(a contents list or duplicate)."
            )
            continue
        kept.extend(run)
    if len(_runs(kept)) > 1:
        warnings.append("Chapter numbering restarts (volumes or parts numbered separately); chapters renumbered 1..N.")
    return kept


def _warn_numbering(kept: list[_Heading], warnings: list[str]) -> None:
    numbers = [h.number for h in kept if h.number is not None]
    if len(_runs(kept)) == 1 and numbers and numbers != list(range(numbers[0], numbers[0] + len(numbers))):
        gaps = [f"{a}→{b}" for a, b in itertools.pairwise(numbers) if b != a + 1]
        warnings.append(f"Chapter numbering has gaps ({', '.join(gaps[:5])}); chapters renumbered 1..N.")
    elif numbers and numbers[0] != 1 and len(_runs(kept)) == 1:
        warnings.append(f"The first chapter is numbered {numbers[0]}; chapters renumbered from 1.")


def _tidy(lines: list[str]) -> str:
    """Trim trailing spaces and collapse blank runs; indentation (Chinese 　　) is the author's and stays."""
    out: list[str] = []
    for line in lines:
        line = line.rstrip()
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip("\n")
