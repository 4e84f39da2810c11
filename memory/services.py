"""Writes to the book's memory: planning seeds, the chapter write-back (in
`writeback`, re-exported here) and the edits people make on the memory pages.

Every person edit records edited_by/edited_at: that mark is what lets the fix
survive re-finalization of other chapters. Validation errors carry a message
a person can act on and nothing is saved, so the page can show their text
again unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone
from pydantic import ValidationError as PydanticValidationError

from generation.schemas import CharacterSeedOut, CharacterStateOut
from memory.models import ChapterSummary, Character, CharacterState, Fact, GlobalSummary, Thread, ThreadStatus
from memory.selectors import chapters_after, global_summary_current
from memory.threads_ledger import thread_change, threads_link_planned
from memory.writeback import ClearReport, WriteReport, chapter_memory_clear, chapter_memory_write
from novels.models import Novel

__all__ = [
    "ClearReport",
    "WriteReport",
    "chapter_memory_clear",
    "chapter_memory_write",
    "chapter_summary_edit",
    "chapters_after",
    "character_state_edit",
    "characters_create_initial",
    "fact_create",
    "fact_delete",
    "fact_edit",
    "global_summary_edit",
    "thread_edit",
    "threads_link_planned",
]


# --- planning --------------------------------------------------------------------


@transaction.atomic
def characters_create_initial(*, novel: Novel, seeds: Sequence[CharacterSeedOut]) -> list[Character]:
    """Character rows and their chapter-0 state from the planning step.

    Re-running planning replaces what planning made before, except a row a
    person edited (theirs wins) or one a finalized chapter has since given a
    state of its own (chapters built on it).
    """
    stale = Character.objects.filter(novel=novel, source_chapter__isnull=True, edited_by__isnull=True).exclude(
        Exists(CharacterState.objects.filter(character=OuterRef("pk"), chapter__gt=0))
    )
    seed_names = {s.name.strip() for s in seeds}
    stale.exclude(name__in=seed_names).delete()
    existing = {c.name: c for c in Character.objects.filter(novel=novel, name__in=seed_names)}
    replaceable = set(stale.filter(name__in=seed_names).values_list("pk", flat=True))

    result: list[Character] = []
    for seed in seeds:
        name = seed.name.strip()
        character = existing.get(name)
        if character is not None and character.pk not in replaceable:
            result.append(character)
            continue
        if character is None:
            character = Character.objects.create(
                novel=novel, name=name, aliases=seed.aliases, description=seed.description
            )
        else:
            character.aliases, character.description = seed.aliases, seed.description
            character.save(update_fields=["aliases", "description"])
        CharacterState.objects.update_or_create(
            character=character,
            chapter=0,
            defaults={"novel": novel, "state": seed.state.model_dump(), "changes": {}},
        )
        existing[name] = character
        result.append(character)
    return result


# --- person edits ------------------------------------------------------------------


def _mark(row: Any, user: User | None) -> list[str]:
    row.edited_by = user
    row.edited_at = timezone.now()
    return ["edited_by", "edited_at"]


def _required(text: str, label: str) -> str:
    text = (text or "").strip()
    if not text:
        raise ValidationError(f"The {label} cannot be empty.")
    return text


def global_summary_edit(
    *, novel: Novel, text: str, user: User | None, chapter: int | None = None
) -> GlobalSummary:
    """Correct the current global summary (or the version of `chapter`)."""
    text = _required(text, "global summary")
    if len(text) > GlobalSummary.MAX_CHARS:
        raise ValidationError(
            f"The global summary is {len(text)} characters; the limit is {GlobalSummary.MAX_CHARS}. "
            f"Shorten it by {len(text) - GlobalSummary.MAX_CHARS} characters — nothing was saved."
        )
    if chapter is None:
        row = global_summary_current(novel=novel)
    else:
        row = GlobalSummary.objects.filter(novel=novel, chapter=chapter).first()
    if row is None:
        # Before chapter 1 is finalized a person may still set the opening summary.
        row = GlobalSummary(novel=novel, chapter=chapter or 0)
    row.text = text
    _mark(row, user)
    row.save()
    return row


def chapter_summary_edit(
    *, summary: ChapterSummary, text: str, skeleton: str | None = None, user: User | None
) -> ChapterSummary:
    summary.summary = _required(text, "chapter summary")
    fields = ["summary"]
    if skeleton is not None:
        line = " ".join(skeleton.split())
        if len(line) > 400:
            raise ValidationError(
                f"The one-line skeleton is {len(line)} characters; the limit is 400 — nothing was saved."
            )
        summary.skeleton = _required(line, "skeleton line")
        fields.append("skeleton")
    summary.save(update_fields=fields + _mark(summary, user))
    return summary


def character_state_edit(
    *, state: CharacterState, tree: dict[str, Any], user: User | None
) -> CharacterState:
    """Replace a state version's tree; the shape is the one extraction writes."""
    try:
        clean = CharacterStateOut.model_validate(tree)
    except PydanticValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise ValidationError(f"The character state is not valid ({problems}) — nothing was saved.") from exc
    state.state = clean.model_dump()
    state.save(update_fields=["state", *_mark(state, user)])
    return state


def fact_create(*, novel: Novel, text: str, entities: Sequence[str] = (), user: User | None) -> Fact:
    fact = Fact(novel=novel, text=_required(text, "fact"), entities=[e.strip() for e in entities if e.strip()])
    _mark(fact, user)
    fact.save()
    return fact


def fact_edit(*, fact: Fact, text: str, entities: Sequence[str] | None = None, user: User | None) -> Fact:
    fact.text = _required(text, "fact")
    fields = ["text"]
    if entities is not None:
        fact.entities = [e.strip() for e in entities if e.strip()]
        fields.append("entities")
    fact.save(update_fields=fields + _mark(fact, user))
    return fact


def fact_delete(*, fact: Fact) -> None:
    fact.delete()


_UNSET: Any = object()


@transaction.atomic
def thread_edit(
    *,
    thread: Thread,
    user: User | None,
    summary: str | None = None,
    status: str | None = None,
    deadline: int | None = _UNSET,
    resolution_note: str | None = None,
) -> Thread:
    """A person's correction, recorded as an `edit` event (chapter None) so a
    re-finalize replays it on top of the chapters' events."""
    changes: dict[str, Any] = {}
    if summary is not None:
        changes["summary"] = _required(summary, "thread summary")
    if status is not None:
        if status not in ThreadStatus.values:
            raise ValidationError(f"Unknown thread status '{status}'; use one of {', '.join(ThreadStatus.values)}.")
        changes["status"] = status
        if status != ThreadStatus.RESOLVED:
            changes["resolved_at"] = None
    if deadline is not _UNSET:
        if deadline is not None and deadline < 1:
            raise ValidationError("A deadline is a chapter number (1 or more), or empty for none.")
        changes["deadline"] = deadline
    if resolution_note is not None:
        changes["resolution_note"] = resolution_note.strip()
    _mark(thread, user)
    event = thread_change(thread=thread, chapter=None, action="edit", changes=changes, user=user)
    if event is None:
        thread.save(update_fields=["edited_by", "edited_at"])
    return thread
