"""Chapter headings people actually use, and the lines that only look like them."""

from __future__ import annotations

import pytest

from novels.importing import parse_chinese_number, parse_english_number, parse_roman, split_manuscript

EN_BODY = "She walked to the harbour and watched the boats come in.\n" * 6
ZH_BODY = "他走到港口，看着船只一艘艘驶进来，心中默默盘算着下一步。\n" * 6


def book(headings: list[str], body: str = EN_BODY) -> str:
    return "\n\n".join(f"{heading}\n\n{body}" for heading in headings)


@pytest.mark.parametrize(
    ("headings", "titles"),
    [
        (["Chapter 1", "Chapter 2", "Chapter 3"], ["", "", ""]),
        (["CHAPTER 1. The Letter", "CHAPTER 2. The Reply", "CHAPTER 3. Storm"], ["The Letter", "The Reply", "Storm"]),
        (["Chapter I", "Chapter II", "Chapter III"], ["", "", ""]),
        (["CHAPTER IV: Dawn", "CHAPTER V: Noon", "CHAPTER VI: Dusk"], ["Dawn", "Noon", "Dusk"]),
        (["Chapter One", "Chapter Two", "Chapter Three"], ["", "", ""]),
        (["Chapter Twenty-One", "Chapter Twenty-Two", "Chapter Twenty Three"], ["", "", ""]),
        (["Chapter the First", "Chapter the Second", "Chapter the Third"], ["", "", ""]),
        (["# Chapter 3: Title", "# Chapter 4: Other", "## Chapter 5 - Last"], ["Title", "Other", "Last"]),
        (["**Chapter 7**", "**Chapter 8**", "**Chapter 9**"], ["", "", ""]),
    ],
)
def test_english_headings_split_into_chapters_with_titles(headings, titles):
    result = split_manuscript(book(headings))
    assert [c.title for c in result.chapters] == titles
    assert [c.number for c in result.chapters] == [1, 2, 3]


@pytest.mark.parametrize(
    ("headings", "numbers", "titles"),
    [
        (["第十二章", "第十三章", "第十四章"], [12, 13, 14], ["", "", ""]),
        (["第12章 风起", "第13章 云涌", "第14章：雷鸣"], [12, 13, 14], ["风起", "云涌", "雷鸣"]),
        (["第十二回", "第十三回", "第十四回"], [12, 13, 14], ["", "", ""]),
        (["第一百一十九回 甲", "第一百二十回 乙", "第一百二十一回 丙"], [119, 120, 121], ["甲", "乙", "丙"]),
        (
            ["正文 第一回 宴桃园", "正文 第二回 怒鞭督邮", "正文 第三回 议温明"],
            [1, 2, 3],
            ["宴桃园", "怒鞭督邮", "议温明"],
        ),
        (["卷一 第三章 夜", "卷一 第四章 昼", "卷一 第五章 晨"], [3, 4, 5], ["夜", "昼", "晨"]),
        (["第一卷 第〇一章", "第一卷 第〇二章", "第一卷 第〇三章"], [1, 2, 3], ["", "", ""]),
        (["## 第二十章 归来", "## 第二十一章 离去", "## 第二十二章 再见"], [20, 21, 22], ["归来", "离去", "再见"]),
        (["第１章", "第２章", "第３章"], [1, 2, 3], ["", "", ""]),
    ],
)
def test_chinese_headings_split_into_chapters_with_titles(headings, numbers, titles):
    result = split_manuscript(book(headings, ZH_BODY))
    assert [c.source_number for c in result.chapters] == numbers
    assert [c.title for c in result.chapters] == titles
    assert [c.number for c in result.chapters] == [1, 2, 3]


def test_heading_lines_are_not_part_of_chapter_text():
    result = split_manuscript(book(["Chapter 1", "Chapter 2"]))
    assert result.chapters[0].text == EN_BODY.strip()


def test_prose_that_starts_like_a_heading_is_not_split():
    text = book(["Chapter 1", "Chapter 2"]).replace(
        "She walked",
        "chapter 3 of the report said nothing.\nChapter 4 of the ledger was missing, she said.\nShe walked",
        1,
    )
    assert len(split_manuscript(text).chapters) == 2


def test_a_bout_is_not_a_chinese_chapter():
    text = book(["第一回", "第二回"], ZH_BODY + "第三回合\n") + "\n第三回合，二人又斗了起来。\n"
    assert len(split_manuscript(text).chapters) == 2


def test_sections_inside_chapters_do_not_split():
    text = "第一章 起\n\n第一节\n" + ZH_BODY + "第二节\n" + ZH_BODY + "\n第二章 承\n\n" + ZH_BODY
    result = split_manuscript(text)
    assert [c.title for c in result.chapters] == ["起", "承"]
    assert "第二节" in result.chapters[0].text


def test_sections_split_a_book_that_has_no_chapters():
    assert len(split_manuscript(book(["第一节", "第二节", "第三节"], ZH_BODY)).chapters) == 3


def test_prologue_and_epilogue_become_chapters_in_order():
    result = split_manuscript(book(["Prologue", "Chapter 1", "Chapter 2", "Epilogue"]))
    assert [c.heading for c in result.chapters] == ["Prologue", "Chapter 1", "Chapter 2", "Epilogue"]
    assert [c.number for c in result.chapters] == [1, 2, 3, 4]


def test_markdown_without_numbered_headings_splits_on_its_repeated_heading_level():
    text = (
        "# My Novel\n\n## The Storm\n\n" + EN_BODY + "\n## The Calm\n\n" + EN_BODY + "\n## The Reckoning\n\n" + EN_BODY
    )
    result = split_manuscript(text, markdown=True)
    assert [c.title for c in result.chapters] == ["The Storm", "The Calm", "The Reckoning"]


def test_text_without_headings_is_one_chapter_with_a_warning():
    result = split_manuscript(EN_BODY)
    assert len(result.chapters) == 1
    assert result.chapters[0].text == EN_BODY.strip()
    assert "No chapter headings" in result.warnings[0]


@pytest.mark.parametrize(
    ("token", "value"),
    [("十", 10), ("十二", 12), ("二十", 20), ("一百", 100), ("一百零一", 101), ("一百一", 101), ("一百十", 110),
     ("一百二十", 120), ("两百", 200), ("一千零二十四", 1024), ("一二〇", 120), ("〇", 0), ("贰拾", 20), ("１２", 12)],
)  # fmt: skip
def test_chinese_numerals_parse(token, value):
    assert parse_chinese_number(token) == value


@pytest.mark.parametrize(("token", "value"), [("I", 1), ("iv", 4), ("XII", 12), ("XLIX", 49), ("MCMXC", 1990)])
def test_roman_numerals_parse(token, value):
    assert parse_roman(token) == value


def test_invalid_roman_numerals_are_rejected():
    assert parse_roman("IIII") is None
    assert parse_roman("VX") is None


@pytest.mark.parametrize(
    ("words", "value"),
    [("one", 1), ("twelve", 12), ("twenty-one", 21), ("one hundred and five", 105), ("Twelfth", 12),
     ("the first", 1), ("Ninetieth", 90), ("two thousand and three", 2003)],
)  # fmt: skip
def test_english_number_words_parse(words, value):
    assert parse_english_number(words.replace("-", " ").split())[0] == value


def test_english_number_stops_before_the_title():
    assert parse_english_number(["Two", "and", "the", "Storm"]) == (2, 1)
