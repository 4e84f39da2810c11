"""Property: a manuscript with N headings in any mix of supported formats splits back into N chapters."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from novels.importing import split_manuscript

ZH_DIGITS = "零一二三四五六七八九"
EN_UNITS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
EN_TENS = ["_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
LINES = [
    "She walked to the harbour and watched the boats come in.",
    "The lamp guttered; somewhere below, a door banged twice.",
    '"You are late," he said, not looking up from the ledger.',
    "他走到港口，看着船只一艘艘驶进来。",
    "灯火摇曳，楼下的门砰砰响了两声。",
    "“你来晚了，”他说，头也不抬。",
]
EN_TITLES = ["The Letter", "Storm", "A Quiet Morning", "Return"]
ZH_TITLES = ["风起", "夜雨十年灯", "归来", "孔明借箭"]


def zh(n: int) -> str:
    hundreds, rest = divmod(n, 100)
    tens, ones = divmod(rest, 10)
    out = f"{ZH_DIGITS[hundreds]}百" if hundreds else ""
    if tens:
        out += ("" if tens == 1 and not hundreds else ZH_DIGITS[tens]) + "十"
    elif hundreds and ones:
        out += "零"
    return out + (ZH_DIGITS[ones] if ones else "")


def roman(n: int) -> str:
    out = ""
    for value, letters in (
        (100, "C"),
        (90, "XC"),
        (50, "L"),
        (40, "XL"),
        (10, "X"),
        (9, "IX"),
        (5, "V"),
        (4, "IV"),
        (1, "I"),
    ):
        while n >= value:
            out, n = out + letters, n - value
    return out


def words(n: int) -> str:
    hundreds, rest = divmod(n, 100)
    parts = [f"{EN_UNITS[hundreds]} hundred"] if hundreds else []
    if rest:
        tens, ones = divmod(rest, 10)
        parts.append(EN_UNITS[rest] if rest < 20 else EN_TENS[tens] + (f"-{EN_UNITS[ones]}" if ones else ""))
    return " and ".join(parts).title()


FORMATS = [
    lambda n, t: f"Chapter {n}",
    lambda n, t: f"CHAPTER {n}. {t}",
    lambda n, t: f"Chapter {roman(n)}",
    lambda n, t: f"CHAPTER {roman(n)}: {t}",
    lambda n, t: f"Chapter {words(n)}",
    lambda n, t: f"# Chapter {n}: {t}",
    lambda n, t: f"第{zh(n)}章",
    lambda n, t: f"第{n}章 {t}",
    lambda n, t: f"第{zh(n)}回 {t}",
    lambda n, t: f"正文 第{zh(n)}回 {t}",
    lambda n, t: f"卷一 第{zh(n)}章 {t}",
    lambda n, t: f"## 第{zh(n)}章：{t}",
]


@st.composite
def manuscripts(draw):
    count = draw(st.integers(min_value=1, max_value=40))
    start = draw(st.sampled_from([1, 1, 1, 95]))  # crosses 100: 一百零一, C, one hundred and one
    headings = []
    for n in range(start, start + count):
        fmt = draw(st.sampled_from(FORMATS))
        title = draw(st.sampled_from(EN_TITLES + ZH_TITLES))
        headings.append(fmt(n, title))
    bodies = ["\n".join(draw(st.lists(st.sampled_from(LINES), min_size=1, max_size=6))) for _ in headings]
    contents = "Contents\n" + "\n".join(headings) + "\n\n" if draw(st.booleans()) else ""
    text = contents + "\n\n".join(f"{h}\n\n{b}" for h, b in zip(headings, bodies, strict=True))
    return text, list(range(start, start + count)), bodies


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(manuscripts())
def test_generated_manuscripts_split_into_their_chapters(manuscript):
    text, numbers, bodies = manuscript
    result = split_manuscript(text)
    assert [c.source_number for c in result.chapters] == numbers
    assert [c.number for c in result.chapters] == list(range(1, len(numbers) + 1))
    assert [c.text for c in result.chapters] == bodies
