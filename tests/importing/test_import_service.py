"""manuscript_import: chapters and revisions written in one go, re-imports idempotent."""

from __future__ import annotations

import time

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext

from novels.import_services import ManuscriptError, manuscript_import
from novels.models import Chapter, ChapterRevision, ChapterStatus, Novel
from tests.importing.test_split_headings import EN_BODY, ZH_BODY, book

ZH_BOOK = book(["第一章 风起", "第二章 云涌", "第三章 雷鸣"], ZH_BODY).encode("gb18030")
EN_BOOK = book(["Chapter 1. Arrival", "Chapter 2. Departure"]).encode()


@pytest.fixture
def owner(db):
    return get_user_model().objects.create_user("writer", password="pw-writer-123")


def test_import_creates_a_novel_with_drafted_chapters(owner):
    result = manuscript_import(data=ZH_BOOK, filename="风云.txt", owner=owner)
    chapters = list(Chapter.objects.filter(novel=result.novel).order_by("number"))
    assert [(c.number, c.title, c.status) for c in chapters] == [
        (1, "风起", ChapterStatus.DRAFTED),
        (2, "云涌", ChapterStatus.DRAFTED),
        (3, "雷鸣", ChapterStatus.DRAFTED),
    ]
    assert chapters[0].text == ZH_BODY.strip()
    assert result.novel_created and result.chapters_created == 3


def test_new_novel_takes_its_language_from_the_text_and_title_from_the_file(owner):
    result = manuscript_import(data=ZH_BOOK, filename="风云.txt", owner=owner)
    assert (result.novel.title, result.novel.language) == ("风云", "zh")
    english = manuscript_import(data=EN_BOOK, filename="keeper.txt", owner=owner, title="The Keeper")
    assert (english.novel.title, english.novel.language) == ("The Keeper", "en")


def test_importer_owns_the_new_novel(owner):
    result = manuscript_import(data=EN_BOOK, filename="keeper.txt", owner=owner)
    assert result.novel.memberships.get().user == owner
    assert result.novel.memberships.get().role == "owner"


def test_each_imported_chapter_gets_one_import_revision(owner):
    result = manuscript_import(data=ZH_BOOK, filename="b.txt", owner=owner)
    revisions = ChapterRevision.objects.filter(chapter__novel=result.novel)
    assert revisions.count() == 3
    assert {r.source for r in revisions} == {"import"}
    assert all(r.text == r.chapter.text and r.created_by == owner for r in revisions)


def test_target_chapters_grows_to_the_imported_count(members):
    members.novel.target_chapters = 2
    members.novel.save()
    manuscript_import(data=ZH_BOOK, filename="b.txt", owner=members.owner, novel=members.novel)
    members.novel.refresh_from_db()
    assert members.novel.target_chapters == 3


def test_target_chapters_never_shrinks(members):
    manuscript_import(data=ZH_BOOK, filename="b.txt", owner=members.owner, novel=members.novel)
    members.novel.refresh_from_db()
    assert members.novel.target_chapters == 60


def test_reimporting_the_same_file_changes_nothing(owner):
    first = manuscript_import(data=ZH_BOOK, filename="b.txt", owner=owner)
    again = manuscript_import(data=ZH_BOOK, filename="b.txt", owner=owner, novel=first.novel)
    assert (again.chapters_created, again.chapters_updated, again.chapters_unchanged) == (0, 0, 3)
    assert ChapterRevision.objects.filter(chapter__novel=first.novel).count() == 3
    assert Chapter.objects.filter(novel=first.novel).count() == 3


def test_reimporting_a_changed_chapter_updates_it_with_a_new_revision(owner):
    first = manuscript_import(data=ZH_BOOK, filename="b.txt", owner=owner)
    edited = book(["第一章 风起", "第二章 云涌", "第三章 雷鸣"], ZH_BODY).replace(
        ZH_BODY, "新的第二章正文，内容改写了。\n" * 5, 2
    )
    edited = edited.replace("新的第二章正文，内容改写了。\n" * 5, ZH_BODY, 1)
    again = manuscript_import(data=edited.encode(), filename="b.txt", owner=owner, novel=first.novel)
    assert (again.chapters_updated, again.chapters_unchanged) == (1, 2)
    chapter = Chapter.objects.get(novel=first.novel, number=2)
    assert chapter.text.startswith("新的第二章正文")
    assert [r.text for r in chapter.revisions.all()] == [chapter.text, ZH_BODY.strip()]


def test_reimporting_keeps_a_finalized_chapter_finalized(owner):
    first = manuscript_import(data=EN_BOOK, filename="b.txt", owner=owner)
    Chapter.objects.filter(novel=first.novel, number=1).update(status=ChapterStatus.FINALIZED)
    changed = book(["Chapter 1. Arrival", "Chapter 2. Departure"], EN_BODY + "One more line.\n").encode()
    manuscript_import(data=changed, filename="b.txt", owner=owner, novel=first.novel)
    chapter = Chapter.objects.get(novel=first.novel, number=1)
    assert chapter.status == ChapterStatus.FINALIZED
    assert chapter.text.endswith("One more line.")


def test_import_into_a_planned_chapter_makes_it_drafted(members):
    Chapter.objects.create(novel=members.novel, number=1, title="Planned", status=ChapterStatus.PLANNED)
    manuscript_import(data=EN_BOOK, filename="b.txt", owner=members.owner, novel=members.novel)
    chapter = Chapter.objects.get(novel=members.novel, number=1)
    assert (chapter.status, chapter.title) == (ChapterStatus.DRAFTED, "Arrival")


def test_import_issues_a_bounded_number_of_queries(owner):
    big = book([f"Chapter {n}" for n in range(1, 301)]).encode()
    with CaptureQueriesContext(connection) as queries:
        manuscript_import(data=big, filename="big.txt", owner=owner)
    assert len(queries) < 40


def test_a_file_with_no_text_is_refused(owner):
    with pytest.raises(ManuscriptError, match="no text"):
        manuscript_import(data=b"\n\n  \n", filename="empty.txt", owner=owner)
    assert not Novel.objects.exists()


def test_an_unsupported_file_creates_nothing(owner):
    with pytest.raises(ManuscriptError):
        manuscript_import(data=b"x", filename="book.pdf", owner=owner)
    assert not Novel.objects.exists()


def test_a_two_megabyte_paste_imports_quickly(owner):
    paragraph = "他走到港口，看着船只一艘艘驶进来，心中默默盘算着下一步该怎么走。" * 3 + "\n"
    chapters = [f"第{n}章 第{n}段\n\n" + paragraph * 30 for n in range(1, 251)]
    data = "\n".join(chapters).encode()
    assert len(data) > 2 * 1024 * 1024
    started = time.perf_counter()
    result = manuscript_import(data=data, filename="paste.txt", owner=owner)
    assert time.perf_counter() - started < 15
    assert result.chapters_found == 250
    assert Chapter.objects.filter(novel=result.novel).count() == 250
