"""The two books in ../shared/corpora split exactly (issue 5's acceptance criterion)."""

from __future__ import annotations

import re

from tests.importing.conftest import corpus_path

BOILERPLATE_MARKERS = ("更新时间", "本章字数", "作品仅供读者预览", "章节内容开始", "http", "www.")


def _nonspace(text: str) -> int:
    return len(re.sub(r"\s+", "", text))


def test_pride_and_prejudice_has_61_chapters_in_order(pride):
    assert [c.number for c in pride.chapters] == list(range(1, 62))
    assert [c.source_number for c in pride.chapters] == list(range(1, 62))


def test_pride_and_prejudice_chapters_start_and_end_where_the_book_does(pride):
    assert pride.chapters[0].heading == "Chapter 1"
    assert pride.chapters[0].text.startswith("It is a truth universally acknowledged")
    assert pride.chapters[-1].heading == "Chapter 61"
    assert pride.chapters[-1].text.endswith("had been the means of uniting them.")
    assert all(not c.text.startswith("Chapter") for c in pride.chapters)


def test_pride_and_prejudice_keeps_all_its_text(pride):
    raw = corpus_path("pride_and_prejudice.en.txt").read_text(encoding="utf-8")
    body = "\n".join(line for line in raw.splitlines() if not re.fullmatch(r"Chapter \d+", line.strip()))
    kept = sum(_nonspace(c.text) for c in pride.chapters)
    assert kept >= 0.98 * _nonspace(body)
    assert pride.boilerplate_lines == 0


def test_sanguo_has_120_hui_in_order(sanguo):
    assert [c.number for c in sanguo.chapters] == list(range(1, 121))
    assert [c.source_number for c in sanguo.chapters] == list(range(1, 121))


def test_sanguo_titles_come_from_the_hui_headings(sanguo):
    titles = {c.number: c.title for c in sanguo.chapters}
    assert titles[1] == "宴桃园豪杰三结义 斩黄巾英雄首立功"
    assert titles[2] == "张翼德怒鞭督邮 何国舅谋诛宦竖"
    assert titles[100] == "汉兵劫寨破曹真 武侯斗阵辱仲达"
    assert titles[101] == "出陇上诸葛妆神 奔剑阁张郃中计"
    assert titles[110] == "文鸯单骑退雄兵 姜维背水破大敌"
    assert titles[120] == "荐杜预老将献新谋 降孙皓三分归一统"


def test_sanguo_chapter_texts_carry_no_download_site_boilerplate(sanguo):
    for chapter in sanguo.chapters:
        for marker in BOILERPLATE_MARKERS:
            assert marker not in chapter.text, (chapter.number, marker)
    # 120 "更新时间…本章字数" lines, the notice at both ends, and the "章节内容开始" banner.
    assert sanguo.boilerplate_lines == 123


def test_sanguo_ignores_the_title_page(sanguo):
    assert "三国演义 / 罗贯中" not in sanguo.chapters[0].text
    assert sanguo.chapters[0].text.startswith("滚滚长江东逝水")
    assert sanguo.chapters[-1].text.endswith("后人凭吊空牢骚。")


def test_sanguo_keeps_all_of_its_body_text(sanguo):
    raw = corpus_path("sanguo_yanyi.zh.txt").read_text(encoding="utf-8")
    lines = raw.splitlines()
    first = next(i for i, line in enumerate(lines) if "第一回" in line)
    body = [
        line
        for line in lines[first:]
        if "正文 第" not in line and not any(marker in line for marker in BOILERPLATE_MARKERS)
    ]
    kept = sum(_nonspace(c.text) for c in sanguo.chapters)
    assert kept >= 0.98 * _nonspace("\n".join(body))
