"""Front matter, contents lists, restarts and download-site boilerplate."""

from __future__ import annotations

from novels.importing import split_manuscript, strip_boilerplate
from tests.importing.test_split_headings import EN_BODY, ZH_BODY, book

TOC_EN = "Contents\n\n" + "\n".join(f"Chapter {n}. Part {n}" for n in range(1, 6)) + "\n\n"
TOC_ZH = "目录\n" + "\n".join(f"第{n}章 卷{n}" for n in "一二三四五") + "\n\n"


def test_a_table_of_contents_does_not_become_chapters():
    text = "THE NOVEL\nby Someone\n\n" + TOC_EN + book([f"Chapter {n}. Part {n}" for n in range(1, 6)])
    result = split_manuscript(text)
    assert [c.title for c in result.chapters] == [f"Part {n}" for n in range(1, 6)]
    assert all(c.text == EN_BODY.strip() for c in result.chapters)


def test_a_chinese_table_of_contents_does_not_become_chapters():
    text = TOC_ZH + book([f"第{n}章 卷{n}" for n in "一二三四五"], ZH_BODY)
    result = split_manuscript(text)
    assert [c.source_number for c in result.chapters] == [1, 2, 3, 4, 5]
    assert all(c.text == ZH_BODY.strip() for c in result.chapters)


def test_contents_with_page_numbers_followed_by_a_preface_keeps_the_body():
    toc = "\n".join(f"Chapter {n} .......... {n * 10}" for n in range(1, 6))
    preface = "\n\nPreface\n\n" + "A word from the author about how the book came to be.\n" * 4 + "\n"
    result = split_manuscript(toc + preface + book([f"Chapter {n}" for n in range(1, 6)]))
    assert [c.source_number for c in result.chapters] == [1, 2, 3, 4, 5]
    assert "Preface" not in result.chapters[0].text
    assert any("front matter" in w for w in result.warnings)


def test_front_matter_before_the_first_chapter_is_skipped_with_a_warning():
    result = split_manuscript("My Book\nBy Me\nCopyright 2024\n\n" + book(["Chapter 1", "Chapter 2"]))
    assert "Copyright" not in result.chapters[0].text
    assert result.front_matter_chars > 0


def test_numbering_restarting_per_volume_keeps_every_chapter_in_order():
    text = (
        "卷一 风起\n\n"
        + book(["第一章 甲", "第二章 乙"], ZH_BODY)
        + "\n卷二 云涌\n\n"
        + book(["第一章 丙", "第二章 丁"], ZH_BODY)
    )
    result = split_manuscript(text)
    assert [c.title for c in result.chapters] == ["甲", "乙", "丙", "丁"]
    assert [c.number for c in result.chapters] == [1, 2, 3, 4]
    assert "卷二" not in result.chapters[1].text
    assert any("restarts" in w for w in result.warnings)


def test_english_parts_restarting_chapter_numbers_keep_every_chapter():
    text = "PART ONE\n\n" + book(["Chapter 1", "Chapter 2"]) + "\nPART TWO\n\n" + book(["Chapter 1", "Chapter 2"])
    result = split_manuscript(text)
    assert [c.number for c in result.chapters] == [1, 2, 3, 4]
    assert "PART TWO" not in result.chapters[1].text


def test_gaps_in_numbering_are_warned_and_chapters_renumbered():
    result = split_manuscript(book(["Chapter 1", "Chapter 2", "Chapter 4"]))
    assert [c.number for c in result.chapters] == [1, 2, 3]
    assert [c.source_number for c in result.chapters] == [1, 2, 4]
    assert any("2→4" in w for w in result.warnings)


def test_download_site_lines_are_removed_from_chapter_text():
    noise = [
        "本书由某某书友整理上传",
        "更多精彩，尽在 www.example-novels.com",
        "https://m.biquge.example/book/1234/",
        "更新时间:2007-11-16 7:55:51 本章字数:4804",
        "手机用户请访问 m.example.cc",
        "（本章完）",
    ]
    text = book(["第一章 甲", "第二章 乙"], ZH_BODY + "\n".join(noise) + "\n")
    result = split_manuscript(text)
    for chapter in result.chapters:
        assert chapter.text == ZH_BODY.strip()
    assert result.boilerplate_lines == 2 * len(noise)


def test_a_url_inside_a_long_paragraph_is_cut_but_the_paragraph_stays():
    paragraph = "她说：" + "这是一段很长的正文。" * 25 + "见 https://example.com/a 。"
    kept, removed = strip_boilerplate([paragraph])
    assert removed == 0
    assert "https" not in kept[0]
    assert kept[0].startswith("她说：")


def test_project_gutenberg_header_and_footer_are_dropped():
    header = (
        "The Project Gutenberg eBook of Emma, by Jane Austen\n\nThis eBook is for the use of anyone anywhere.\n\n"
        "*** START OF THE PROJECT GUTENBERG EBOOK EMMA ***\n\n"
    )
    footer = (
        "\n\n*** END OF THE PROJECT GUTENBERG EBOOK EMMA ***\n\nSection 1. General Terms of Use\n" + "licence\n" * 50
    )
    result = split_manuscript(header + "EMMA\n\n" + book(["CHAPTER I", "CHAPTER II"]) + footer)
    assert len(result.chapters) == 2
    assert result.chapters[-1].text == EN_BODY.strip()
    assert all("Gutenberg" not in c.text for c in result.chapters)


def test_ordinary_prose_is_not_taken_for_boilerplate():
    lines = ["He said the post office would close at noon.", "“更多的人来了，”他说。", "Mr. Darcy bowed."]
    assert strip_boilerplate(lines) == (lines, 0)
