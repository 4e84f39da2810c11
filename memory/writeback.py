"""Finalize and re-finalize: fold one chapter into the book's memory.

`chapter_memory_write` first removes exactly chapter N's previous
contributions (`chapter_memory_clear`) and then writes the new ones, so a
first finalize and a re-finalize are the same path and running it twice
equals running it once. It runs inside the caller's transaction (the chapter
loop updates the Chapter row in the same one); its own `atomic()` is only a
savepoint, so standalone use is atomic too.

Rows produced by other chapters are never touched here, so a person's fix of
a chapter-3 fact survives re-finalizing chapter 5. Rows of chapter N are
replaced even when a person edited them — they describe text that changed —
with one exception, threads (see `threads_ledger`). Later chapters' character
state versions are not rebased on the new chapter-N state: those chapters are
flagged stale (`chapters_after`) and the cascade re-finalizes them in order.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from django.contrib.auth.models import User
from django.db import models, transaction
from django.db.models import Exists, OuterRef

from generation.schemas import CharacterChangeOut, ExtractionOut, SummaryOut
from memory.core.language import language_mismatch
from memory.core.threads import RawThreadItem
from memory.models import (
    ChapterSummary,
    Character,
    CharacterState,
    Fact,
    GlobalSummary,
    Passage,
)
from memory.selectors import character_states_latest
from memory.text import alias_map, names_in, split_passages
from memory.threads_ledger import UndoResult, threads_apply_extraction, threads_undo_chapter
from novels.models import Novel

EMPTY_STATE: dict[str, Any] = {
    "alive": True,
    "location": "",
    "physical": "",
    "mental": "",
    "items": [],
    "abilities": [],
    "relationships": {},
}


@dataclass
class ClearReport:
    chapter_summaries: int = 0
    global_summaries: int = 0
    character_states: int = 0
    characters: int = 0
    facts: int = 0
    passages: int = 0
    thread_events: int = 0
    threads_deleted: int = 0
    threads_restored: int = 0


@dataclass
class WriteReport:
    chapter: int
    cleared: ClearReport
    written: dict[str, int] = field(default_factory=dict)
    threads: list[dict[str, Any]] = field(default_factory=list)
    rejected: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """JSON-serialisable, for the job row."""
        return asdict(self)


def _deleted(result: tuple[int, dict[str, int]], model: type[models.Model]) -> int:
    return result[1].get(model._meta.label, 0)


def _clear(*, novel: Novel, chapter_number: int) -> tuple[ClearReport, UndoResult]:
    report = ClearReport()
    n = chapter_number
    report.chapter_summaries = _deleted(ChapterSummary.objects.filter(novel=novel, chapter=n).delete(), ChapterSummary)
    report.global_summaries = _deleted(GlobalSummary.objects.filter(novel=novel, chapter=n).delete(), GlobalSummary)
    report.character_states = _deleted(
        CharacterState.objects.filter(character__novel=novel, chapter=n).delete(), CharacterState
    )
    # A character this chapter introduced goes with it, unless a person edited
    # it or another chapter (or planning) gave it a state of its own.
    orphaned = Character.objects.filter(novel=novel, source_chapter=n, edited_by__isnull=True).exclude(
        Exists(CharacterState.objects.filter(character=OuterRef("pk")))
    )
    report.characters = _deleted(orphaned.delete(), Character)
    report.facts = _deleted(Fact.objects.filter(novel=novel, source_chapter=n).delete(), Fact)
    undo = threads_undo_chapter(novel=novel, chapter_number=n)
    report.thread_events = undo.events_removed
    report.threads_deleted = undo.threads_deleted
    report.threads_restored = undo.threads_restored
    report.passages = _deleted(Passage.objects.filter(novel=novel, chapter=n).delete(), Passage)
    return report, undo


def _lock_novel(novel: Novel) -> None:
    # Serialises memory writes per book: thread numbers are max+1 and a chapter's
    # replace must not interleave with another finalize of the same book.
    Novel.objects.select_for_update().filter(pk=novel.pk).values_list("pk", flat=True).first()


def chapter_memory_clear(*, novel: Novel, chapter_number: int) -> ClearReport:
    """Remove exactly chapter N's contributions to memory."""
    if chapter_number < 1:
        raise ValueError("chapter_number starts at 1")
    with transaction.atomic():
        _lock_novel(novel)
        report, _ = _clear(novel=novel, chapter_number=chapter_number)
    return report


def _wrong_language(novel: Novel, *texts: str) -> bool:
    return language_mismatch(" ".join(t for t in texts if t), document_language=novel.language)


def _apply_change(state: dict[str, Any], change: CharacterChangeOut) -> dict[str, Any]:
    new = {**EMPTY_STATE, **state}
    for key in ("alive", "location", "physical", "mental"):
        value = getattr(change, key)
        if value is not None:
            new[key] = value
    lost = set(change.items_lost)
    items = [i for i in new.get("items", []) if i not in lost]
    new["items"] = items + [i for i in change.items_gained if i not in items and i not in lost]
    abilities = list(new.get("abilities", []))
    new["abilities"] = abilities + [a for a in change.abilities_gained if a not in abilities]
    new["relationships"] = {**new.get("relationships", {}), **change.relationships}
    return new


def _change_text(change: CharacterChangeOut) -> str:
    parts = [change.name, change.location or "", change.physical or "", change.mental or ""]
    parts += change.items_gained + change.items_lost + change.abilities_gained
    parts += [f"{k} {v}" for k, v in change.relationships.items()]
    return " ".join(p for p in parts if p)


def _write_characters(
    *, novel: Novel, chapter_number: int, changes: list[CharacterChangeOut], report: WriteReport
) -> dict[str, str]:
    """New state versions for chapter N; returns the alias map including new characters."""
    characters = list(Character.objects.filter(novel=novel))
    aliases = alias_map((c.name, c.aliases or []) for c in characters)
    folded = {alias.casefold(): name for alias, name in aliases.items()}
    by_name = {c.name: c for c in characters}

    merged: dict[str, list[CharacterChangeOut]] = {}
    for change in changes:
        if _wrong_language(novel, _change_text(change)):
            report.rejected.append({"kind": "character_change", "name": change.name, "reason": "language"})
            continue
        name = folded.get(change.name.strip().casefold(), change.name.strip())
        merged.setdefault(name, []).append(change)

    new_names = [name for name in merged if name not in by_name]
    created = Character.objects.bulk_create(
        [Character(novel=novel, name=name, source_chapter=chapter_number) for name in new_names]
    )
    by_name.update({c.name: c for c in created})
    aliases.update({c.name: c.name for c in created})

    latest = {
        s.character.name: s.state
        for s in character_states_latest(novel=novel, before_chapter=chapter_number, names=list(merged))
    }
    states = []
    for name, their_changes in merged.items():
        state = dict(latest.get(name) or EMPTY_STATE)
        for change in their_changes:
            state = _apply_change(state, change)
        record = [c.model_dump(exclude_defaults=True) for c in their_changes]
        states.append(
            CharacterState(
                novel=novel,
                character=by_name[name],
                chapter=chapter_number,
                state=state,
                changes={"changes": record},
                source_chapter=chapter_number,
            )
        )
    CharacterState.objects.bulk_create(states)
    report.written["characters_created"] = len(created)
    report.written["character_states"] = len(states)
    return aliases


def chapter_memory_write(
    *,
    novel: Novel,
    chapter_number: int,
    chapter_text: str,
    summary: SummaryOut,
    extraction: ExtractionOut,
    known_thread_ids: list[int],
    user: User | None = None,
) -> WriteReport:
    """Replace chapter N's contributions to memory with those of this finalization.

    `known_thread_ids` is the exact [T1..Tn] list the extractor saw, in order.
    Records in the wrong language for the book are rejected and listed.
    """
    if chapter_number < 1:
        raise ValueError("chapter_number starts at 1")
    n = chapter_number
    with transaction.atomic():
        _lock_novel(novel)
        cleared, undo = _clear(novel=novel, chapter_number=n)
        report = WriteReport(chapter=n, cleared=cleared)
        written = report.written

        if _wrong_language(novel, summary.summary, summary.skeleton):
            report.rejected.append({"kind": "chapter_summary", "text": summary.summary[:200], "reason": "language"})
            written["chapter_summary"] = 0
        else:
            ChapterSummary.objects.create(
                novel=novel, chapter=n, summary=summary.summary, skeleton=summary.skeleton[:400], source_chapter=n
            )
            written["chapter_summary"] = 1
        if _wrong_language(novel, summary.global_summary):
            # The previous version stays current: a stale summary beats a foreign one.
            report.rejected.append(
                {"kind": "global_summary", "text": summary.global_summary[:200], "reason": "language"}
            )
            written["global_summary"] = 0
        else:
            GlobalSummary.objects.create(
                novel=novel, chapter=n, text=summary.global_summary[: GlobalSummary.MAX_CHARS], source_chapter=n
            )
            written["global_summary"] = 1

        aliases = _write_characters(novel=novel, chapter_number=n, changes=extraction.characters, report=report)

        facts = []
        for fact in extraction.facts:
            if _wrong_language(novel, fact.text, " ".join(fact.entities)):
                report.rejected.append({"kind": "fact", "text": fact.text, "reason": "language"})
                continue
            entities = list(
                dict.fromkeys([*(e.strip() for e in fact.entities if e.strip()), *names_in(fact.text, aliases)])
            )
            facts.append(Fact(novel=novel, text=fact.text, entities=entities, source_chapter=n))
        Fact.objects.bulk_create(facts)
        written["facts"] = len(facts)

        items = []
        for op in extraction.threads:
            if _wrong_language(novel, op.summary, op.resolution_note):
                report.rejected.append({"kind": "thread", "ref": op.ref, "text": op.summary, "reason": "language"})
                continue
            items.append(
                RawThreadItem(
                    action=op.action,
                    ref=op.ref,
                    summary=op.summary,
                    thread_type=op.thread_type,
                    deadline_chapter=op.deadline_chapter,
                    resolution_note=op.resolution_note,
                )
            )
        report.threads = threads_apply_extraction(
            novel=novel,
            chapter_number=n,
            items=items,
            known_thread_ids=known_thread_ids,
            adopted=undo.adopted,
            user=user,
        )
        written["thread_events"] = sum(1 for t in report.threads if t["kind"] != "skip")

        passages = [
            Passage(novel=novel, chapter=n, ordinal=i, text=text, entities=names_in(text, aliases), source_chapter=n)
            for i, text in enumerate(split_passages(chapter_text, language=novel.language))
        ]
        Passage.objects.bulk_create(passages)
        written["passages"] = len(passages)
    return report
