"""Writing an imported manuscript: chapters and their first revisions, in one transaction.

Building memory from the chapters (finalizing them in order) is the chapter
loop's job; it calls this service first and then walks the returned novel.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from novels.importing import ManuscriptError, SplitChapter, read_manuscript, split_manuscript
from novels.models import Chapter, ChapterRevision, ChapterStatus, Novel, RevisionSource
from novels.services import novel_create

__all__ = ["ImportResult", "ManuscriptError", "manuscript_import"]

# Rows per INSERT/UPDATE: keeps each statement well under SQLite's variable limit with book-size texts.
_BATCH = 200
_LANGUAGE_SAMPLE_CHARS = 4000
_TITLE_MAX = 200


@dataclass
class ImportResult:
    novel: Novel
    novel_created: bool
    chapters_found: int
    chapters_created: int
    chapters_updated: int
    chapters_unchanged: int
    encoding: str
    boilerplate_lines: int
    first_title: str = ""
    last_title: str = ""
    warnings: list[str] = field(default_factory=list)


def manuscript_import(
    *,
    path: Path | None = None,
    data: bytes | None = None,
    filename: str,
    owner: User,
    title: str | None = None,
    novel: Novel | None = None,
) -> ImportResult:
    """Split a manuscript and store its chapters as drafted, each with an "import" revision.

    Re-importing into the same novel is safe: a chapter whose text is unchanged
    is left alone, a changed one gets the new text and a new revision."""
    # Reading and splitting happen before the transaction: they can take a second on a big book.
    text, encoding, markdown = read_manuscript(filename=filename, path=path, data=data)
    split = split_manuscript(text, markdown=markdown)
    if not split.chapters:
        raise ManuscriptError(f"'{filename}' contains no text to import.")
    with transaction.atomic():
        created_novel = novel is None
        if novel is None:
            novel = novel_create(
                owner=owner,
                title=(title or Path(filename).stem or "Imported manuscript")[:_TITLE_MAX],
                language=_detect_language(split.chapters),
                target_chapters=len(split.chapters),
            )
        else:
            # Two imports into one novel would race on the same chapter numbers; the row lock orders them.
            novel = Novel.objects.select_for_update().get(pk=novel.pk)
            if title:
                novel.title = title[:_TITLE_MAX]
        created, updated, unchanged = _write_chapters(novel=novel, chapters=split.chapters, owner=owner)
        novel.target_chapters = max(novel.target_chapters, max(c.number for c in split.chapters))
        novel.save(update_fields=["title", "target_chapters", "updated_at"])
    return ImportResult(
        novel=novel,
        novel_created=created_novel,
        chapters_found=len(split.chapters),
        chapters_created=created,
        chapters_updated=updated,
        chapters_unchanged=unchanged,
        encoding=encoding,
        boilerplate_lines=split.boilerplate_lines,
        first_title=_label(split.chapters[0]),
        last_title=_label(split.chapters[-1]),
        warnings=split.warnings,
    )


def _label(chapter: SplitChapter) -> str:
    return chapter.title or chapter.heading or f"Chapter {chapter.number}"


def _detect_language(chapters: list[SplitChapter]) -> str:
    from memory.core.language import resolve_language

    sample = "\n".join(c.text[:1000] for c in chapters[:4])[:_LANGUAGE_SAMPLE_CHARS]
    return resolve_language(sample).code or "en"


def _write_chapters(*, novel: Novel, chapters: list[SplitChapter], owner: User) -> tuple[int, int, int]:
    existing = {c.number: c for c in Chapter.objects.filter(novel=novel, number__in=[c.number for c in chapters])}
    now = timezone.now()
    new_rows: list[Chapter] = []
    changed: list[Chapter] = []
    unchanged = 0
    for item in chapters:
        row = existing.get(item.number)
        if row is None:
            new_rows.append(
                Chapter(
                    novel=novel,
                    number=item.number,
                    title=item.title[:300],
                    text=item.text,
                    status=ChapterStatus.DRAFTED,
                )
            )
        elif row.text != item.text:
            row.text = item.text
            row.title = item.title[:300] or row.title
            # A planned chapter now has prose; a finalized one keeps its status so re-finalize sees the change.
            if row.status == ChapterStatus.PLANNED:
                row.status = ChapterStatus.DRAFTED
            row.updated_at = now
            changed.append(row)
        else:
            unchanged += 1
    Chapter.objects.bulk_create(new_rows, batch_size=_BATCH)
    if any(row.pk is None for row in new_rows):
        # Backends without RETURNING from bulk inserts: fetch the ids by number.
        ids = dict(
            Chapter.objects.filter(novel=novel, number__in=[r.number for r in new_rows]).values_list("number", "pk")
        )
        for row in new_rows:
            row.pk = ids[row.number]
    Chapter.objects.bulk_update(changed, ["text", "title", "status", "updated_at"], batch_size=_BATCH)
    ChapterRevision.objects.bulk_create(
        [
            ChapterRevision(chapter=row, text=row.text, source=RevisionSource.IMPORT, created_by=owner)  # type: ignore[misc]
            for row in [*new_rows, *changed]
        ],
        batch_size=_BATCH,
    )
    return len(new_rows), len(changed), unchanged
