"""python manage.py import_manuscript PATH --owner USER [--title T] [--novel ID]."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from novels.models import Chapter
from tests.importing.conftest import corpus_path
from tests.importing.test_split_headings import EN_BODY, book


def run(*args: str) -> str:
    out = StringIO()
    call_command("import_manuscript", *args, stdout=out)
    return out.getvalue()


def test_command_imports_the_sanguo_corpus_and_reports_it(members):
    output = run(str(corpus_path("sanguo_yanyi.zh.txt")), "--owner", "owner", "--title", "三国演义")
    assert "Chapters found: 120" in output
    assert "first: 宴桃园豪杰三结义 斩黄巾英雄首立功" in output
    assert "last:  荐杜预老将献新谋 降孙皓三分归一统" in output
    assert "Boilerplate lines removed: 123" in output
    assert Chapter.objects.filter(novel__title="三国演义", status="drafted").count() == 120


def test_command_imports_into_an_existing_novel_by_id(members, tmp_path):
    path = tmp_path / "more.txt"
    path.write_text(book(["Chapter 1", "Chapter 2"]))
    output = run(str(path), "--owner", "editor", "--novel", str(members.novel.pk))
    assert f"Updated novel #{members.novel.pk}" in output
    assert Chapter.objects.filter(novel=members.novel).count() == 2


def test_command_refuses_a_novel_the_user_cannot_edit(members, tmp_path):
    path = tmp_path / "more.txt"
    path.write_text(book(["Chapter 1"]) + EN_BODY)
    with pytest.raises(CommandError, match="not an owner or editor"):
        run(str(path), "--owner", "viewer", "--novel", str(members.novel.pk))


def test_command_reports_an_unsupported_file_as_an_error(members, tmp_path):
    path = tmp_path / "book.pdf"
    path.write_bytes(b"%PDF")
    with pytest.raises(CommandError, match="unsupported file type"):
        run(str(path), "--owner", "owner")


def test_command_reports_an_unknown_owner(db, tmp_path):
    path = tmp_path / "book.txt"
    path.write_text(book(["Chapter 1"]))
    with pytest.raises(CommandError, match="No user named 'nobody'"):
        run(str(path), "--owner", "nobody")
