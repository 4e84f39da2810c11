"""Reading .txt in the encodings people have, .md and .docx; refusing what cannot be imported."""

from __future__ import annotations

import docx
import pytest

from novels.importing import MAX_BYTES, ManuscriptError, decode_text, read_manuscript, split_manuscript
from tests.importing.test_split_headings import EN_BODY, ZH_BODY, book

ZH_BOOK = book(["第一章 风起", "第二章 云涌"], ZH_BODY)


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "gb18030", "gbk", "utf-16", "utf-16-le", "utf-16-be"])
def test_chinese_text_decodes_in_common_encodings(encoding):
    text, _ = decode_text(ZH_BOOK.encode(encoding))
    assert text == ZH_BOOK


def test_a_utf8_bom_is_not_left_in_the_text():
    text, encoding = decode_text(ZH_BOOK.encode("utf-8-sig"))
    assert encoding == "utf-8-sig"
    assert not text.startswith("\ufeff")


def test_gbk_bytes_are_reported_as_gb18030():
    assert decode_text(ZH_BOOK.encode("gbk"))[1] == "gb18030"


def test_windows_latin_text_decodes_as_cp1252():
    text, encoding = decode_text("Chapter 1\n\nThe café’s owner smiled — naïvely.\n".encode("cp1252"))
    assert encoding == "cp1252"
    assert "café’s" in text


def test_windows_line_endings_are_normalised():
    text, _ = decode_text(b"Chapter 1\r\n\r\nHello.\r\nChapter 2\rBye.")
    assert "\r" not in text


def test_txt_file_is_read_from_a_path(tmp_path):
    path = tmp_path / "book.txt"
    path.write_bytes(ZH_BOOK.encode("gb18030"))
    text, encoding, markdown = read_manuscript(filename=path.name, path=path)
    assert (text, encoding, markdown) == (ZH_BOOK, "gb18030", False)


def test_markdown_file_splits_on_markdown_headings(tmp_path):
    path = tmp_path / "book.md"
    path.write_text("# A Novel\n\n# Chapter 1: Arrival\n\n" + EN_BODY + "\n# Chapter 2: Departure\n\n" + EN_BODY)
    text, _, markdown = read_manuscript(filename=path.name, path=path)
    result = split_manuscript(text, markdown=markdown)
    assert [c.title for c in result.chapters] == ["Arrival", "Departure"]


def test_docx_paragraphs_are_read_and_split(tmp_path):
    document = docx.Document()
    document.add_heading("The Keeper", level=0)
    for n, title in ((1, "Light"), (2, "Dark"), (3, "Dawn")):
        document.add_heading(f"Chapter {n}: {title}", level=1)
        for line in EN_BODY.strip().splitlines():
            document.add_paragraph(line)
    path = tmp_path / "book.docx"
    document.save(path)
    text, encoding, markdown = read_manuscript(filename=path.name, path=path)
    result = split_manuscript(text, markdown=markdown)
    assert encoding == "docx"
    assert [c.title for c in result.chapters] == ["Light", "Dark", "Dawn"]
    assert result.chapters[0].text.splitlines()[0] == EN_BODY.splitlines()[0]


def test_docx_heading_styles_split_a_book_without_chapter_words(tmp_path):
    document = docx.Document()
    for title in ("风起", "云涌"):
        document.add_heading(title, level=1)
        document.add_paragraph(ZH_BODY)
    path = tmp_path / "book.docx"
    document.save(path)
    text, _, markdown = read_manuscript(filename=path.name, path=path)
    assert [c.title for c in split_manuscript(text, markdown=markdown).chapters] == ["风起", "云涌"]


def test_a_damaged_docx_is_refused_with_a_clear_message():
    with pytest.raises(ManuscriptError, match="Word document"):
        read_manuscript(filename="book.docx", data=b"not a zip file")


def test_unknown_file_types_are_refused_with_a_clear_message():
    with pytest.raises(ManuscriptError, match=r"unsupported file type '\.pdf'"):
        read_manuscript(filename="book.pdf", data=b"%PDF-1.4")


def test_files_over_the_size_limit_are_refused_before_reading(tmp_path):
    path = tmp_path / "huge.txt"
    with path.open("wb") as fh:
        fh.truncate(MAX_BYTES + 1)  # sparse: no 20 MB written to disk
    with pytest.raises(ManuscriptError, match="over the 20 MB limit"):
        read_manuscript(filename=path.name, path=path)


def test_bytes_over_the_size_limit_are_refused():
    with pytest.raises(ManuscriptError, match="limit"):
        read_manuscript(filename="paste.txt", data=b"a" * (MAX_BYTES + 1))
