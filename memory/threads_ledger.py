"""The thread ledger: every change to a Thread goes through here and leaves a ThreadEvent.

Events store *diffs* (only the fields that changed, before and after). That is
what makes exact undo possible: to remove chapter N's events from a thread we
walk its events back to the first chapter-N event applying each `before`, then
re-apply the `after` of every later event that is not chapter N's, in id order
(the order they were originally applied). Person edits are events too (chapter
None), so an editor's fix is replayed on top and survives a re-finalize.

Threads that chapter N opened are deleted when N is cleared (their existence
came from that chapter's prose) — unless a person edited them. Such a survivor
is "adopted": it keeps the person's version, and when chapter N is written
again an `open` whose summary equals the survivor's original summary (kept in
the open event's `note`) is linked to it instead of creating a duplicate.
Deleting a thread also deletes later chapters' events on it; those chapters
are flagged stale by the chapter loop and re-finalized by the cascade.

Planned threads (from blueprint cards, `planned=True`) exist before their
plant chapter; they are not shown as live until chapter >= opened_at (see
`selectors.live_threads`), so the writer is never told about a promise the
book has not made yet — but at the plant chapter itself they are in the known
list, so the extractor cites the planned thread instead of opening a twin.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import User
from django.db.models import Max

from memory.core.threads import (
    KnownThread,
    RawThreadItem,
    ThreadOp,
    plan_thread_ops,
    resolve_thread_deadline,
)
from memory.models import Thread, ThreadEvent, ThreadStatus
from novels.models import BlueprintCard, Novel

THREAD_FIELDS: tuple[str, ...] = (
    "summary",
    "kind",
    "status",
    "opened_at",
    "last_activated_at",
    "deadline",
    "resolved_at",
    "resolution_note",
)


def normalize_summary(text: str) -> str:
    return " ".join((text or "").split()).casefold()


def thread_state(thread: Thread) -> dict[str, Any]:
    return {name: getattr(thread, name) for name in THREAD_FIELDS}


def thread_change(
    *,
    thread: Thread,
    chapter: int | None,
    action: str,
    changes: dict[str, Any],
    note: str = "",
    user: User | None = None,
    always_record: bool = False,
) -> ThreadEvent | None:
    """Apply `changes` to the thread and record the diff; no event when nothing changed."""
    before = {k: getattr(thread, k) for k, v in changes.items() if getattr(thread, k) != v}
    after = {k: changes[k] for k in before}
    if not after and not always_record:
        return None
    for key, value in after.items():
        setattr(thread, key, value)
    if after:
        thread.save(update_fields=[*after, *(["edited_by", "edited_at"] if action == "edit" else [])])
    return ThreadEvent.objects.create(
        thread=thread,
        chapter=chapter,
        action=action,
        note=note,
        before=before,
        after=after,
        created_by=user,  # type: ignore[misc]
    )


def _next_number(*, novel: Novel) -> int:
    return (Thread.objects.filter(novel=novel).aggregate(m=Max("number"))["m"] or 0) + 1


def thread_open(
    *,
    novel: Novel,
    chapter: int | None,
    summary: str,
    kind: str,
    deadline: int,
    planned: bool = False,
    opened_at: int | None = None,
    user: User | None = None,
) -> Thread:
    opened = opened_at if opened_at is not None else chapter
    thread = Thread.objects.create(
        novel=novel,
        number=_next_number(novel=novel),
        summary=summary,
        kind=kind or "foreshadowing",
        status=ThreadStatus.OPEN,
        opened_at=opened,
        last_activated_at=opened,
        deadline=deadline,
        planned=planned,
        # A planned thread comes from planning, not from a chapter's prose.
        source_chapter=None if planned else chapter,
    )
    ThreadEvent.objects.create(
        thread=thread,
        chapter=None if planned else chapter,
        action="plan" if planned else "open",
        # The original summary, so an adopted survivor can be recognised on re-write.
        note=summary,
        before={},
        after=thread_state(thread),
        created_by=user,  # type: ignore[misc]
    )
    return thread


@dataclass
class UndoResult:
    events_removed: int = 0
    threads_deleted: int = 0
    threads_restored: int = 0
    # normalized original summary -> surviving person-edited thread that chapter N had opened
    adopted: dict[str, Thread] = field(default_factory=dict)


def threads_undo_chapter(*, novel: Novel, chapter_number: int) -> UndoResult:
    """Remove chapter N's thread events and restore every affected thread by replay."""
    result = UndoResult()
    thread_ids = set(
        ThreadEvent.objects.filter(thread__novel=novel, chapter=chapter_number).values_list("thread_id", flat=True)
    )
    if not thread_ids:
        return result
    threads = {t.pk: t for t in Thread.objects.filter(pk__in=thread_ids)}
    events_by_thread: dict[int, list[ThreadEvent]] = {}
    for event in ThreadEvent.objects.filter(thread_id__in=thread_ids).order_by("id"):
        events_by_thread.setdefault(event.thread_id, []).append(event)

    doomed: list[int] = []
    rebased: list[ThreadEvent] = []
    for thread_id, events in events_by_thread.items():
        thread = threads[thread_id]
        mine = [e for e in events if e.chapter == chapter_number]
        # Every thread is born through thread_open, whose event holds the full state.
        creation = events[0] if events[0].action in ("open", "plan") and events[0].before == {} else None
        opened_here = thread.source_chapter == chapter_number and any(e.action == "open" for e in mine)
        if opened_here and thread.edited_by_id is None:
            doomed.append(thread_id)
            continue
        if opened_here:
            result.adopted[normalize_summary(creation.note if creation else thread.summary)] = thread
            if creation is not None and creation.chapter == chapter_number:
                # The survivor keeps its birth record (now the person's) as the replay base.
                creation.chapter = None
                rebased.append(creation)
        remaining = [e for e in events if e.chapter != chapter_number]
        if creation is not None and creation in remaining:
            # Replay from birth, rewriting each later event's `before`: after an
            # earlier chapter is undone the recorded `before` no longer holds.
            state: dict[str, Any] = {}
            for event in remaining:
                if event is not creation:
                    before = {k: state.get(k) for k in event.after}
                    if before != event.before:
                        event.before = before
                        rebased.append(event)
                state.update(event.after)
            state = {**thread_state(thread), **state}
        else:
            state = thread_state(thread)
            first = events.index(mine[0])
            for event in reversed(events[first:]):
                state.update(event.before)
            for event in events[first:]:
                if event.chapter != chapter_number:
                    state.update(event.after)
        changed = [k for k in THREAD_FIELDS if getattr(thread, k) != state[k]]
        for key in changed:
            setattr(thread, key, state[key])
        if changed:
            thread.save(update_fields=changed)
            result.threads_restored += 1
    if rebased:
        ThreadEvent.objects.bulk_update(rebased, ["chapter", "before"])

    result.events_removed, _ = ThreadEvent.objects.filter(thread_id__in=thread_ids, chapter=chapter_number).delete()
    if doomed:
        result.threads_deleted = Thread.objects.filter(pk__in=doomed).delete()[1].get(Thread._meta.label, 0)
    return result


def threads_apply_extraction(
    *,
    novel: Novel,
    chapter_number: int,
    items: Sequence[RawThreadItem],
    known_thread_ids: Sequence[int],
    adopted: dict[str, Thread],
    user: User | None = None,
) -> list[dict[str, Any]]:
    """Run plan_thread_ops against the cited list and write each op as a ThreadEvent."""
    rows = {t.pk: t for t in Thread.objects.filter(novel=novel, pk__in=list(known_thread_ids))}
    # A thread deleted since the list was sent can be neither advanced nor resolved.
    known = [
        KnownThread(id=str(tid), status=rows[tid].status if tid in rows else "missing") for tid in known_thread_ids
    ]
    total = novel.target_chapters
    ops: list[ThreadOp] = plan_thread_ops(items, known, chapter_number, total)
    report: list[dict[str, Any]] = []
    for op in ops:
        entry: dict[str, Any] = {"kind": op.kind, "summary": op.summary}
        if op.kind == "skip":
            entry["reason"] = op.reason
        elif op.kind == "open":
            survivor = adopted.get(normalize_summary(op.summary))
            if survivor is not None:
                # The person's version wins; only the link to this chapter is recorded.
                thread_change(
                    thread=survivor,
                    chapter=chapter_number,
                    action="open",
                    changes={},
                    note=op.summary,
                    user=user,
                    always_record=True,
                )
                entry.update(thread=survivor.number, adopted=True)
            else:
                deadline = resolve_thread_deadline(op.deadline_chapter, chapter_number, total)
                thread = thread_open(
                    novel=novel,
                    chapter=chapter_number,
                    summary=op.summary,
                    kind=op.thread_type or "",
                    deadline=deadline,
                    user=user,
                )
                entry.update(thread=thread.number, deadline=deadline)
        else:
            thread = rows[int(op.id or 0)]
            changes: dict[str, Any] = {"last_activated_at": chapter_number}
            if op.kind == "resolve":
                changes.update(status=ThreadStatus.RESOLVED, resolved_at=chapter_number)
                if op.resolution_note:
                    changes["resolution_note"] = op.resolution_note
            else:
                changes["status"] = ThreadStatus.PROGRESSING
            thread_change(
                thread=thread,
                chapter=chapter_number,
                action=op.kind,
                changes=changes,
                note=op.summary,
                user=user,
                always_record=True,
            )
            entry["thread"] = thread.number
        report.append(entry)
    return report


def _thread_number(label: str) -> int | None:
    digits = label.strip().lstrip("#").strip().lstrip("Tt").strip()
    return int(digits) if digits.isascii() and digits.isdigit() else None


def threads_link_planned(*, novel: Novel, cards: Sequence[BlueprintCard]) -> list[dict[str, Any]]:
    """Create planned threads for blank `plant` ops and link `#n` references.

    Re-running for a regenerated window first removes the planned threads of
    those card numbers that no chapter has touched and no person edited, so
    planning twice does not double the ledger.
    """
    cards = sorted(cards, key=lambda c: c.number)
    numbers = [c.number for c in cards]
    # Cards outside this window still point at their threads by number; those must stay.
    others = (
        BlueprintCard.objects.filter(novel=novel).exclude(number__in=numbers).values_list("foreshadowing", flat=True)
    )
    all_ops = [op for c in cards for op in c.foreshadowing or []] + [op for ops in others for op in ops or []]
    referenced = {n for op in all_ops if (n := _thread_number(str(op.get("thread", "")))) is not None}
    untouched = (
        Thread.objects.filter(novel=novel, planned=True, opened_at__in=numbers, edited_by__isnull=True)
        .exclude(number__in=referenced)
        .exclude(events__chapter__isnull=False)
    )
    blank_plants = {
        c.number
        for c in cards
        for op in c.foreshadowing or []
        if op.get("op") == "plant" and not str(op.get("thread", "")).strip()
    }
    untouched.filter(opened_at__in=blank_plants).delete()

    payoff_at: dict[str, int] = {}
    for card in cards:
        for op in card.foreshadowing or []:
            if op.get("op") == "payoff":
                payoff_at.setdefault(normalize_summary(str(op.get("summary", ""))), card.number)

    by_number = {t.number: t for t in Thread.objects.filter(novel=novel)}
    # A reinforce or payoff the planner left blank names its thread by repeating the
    # plant's summary (guessing a label the ledger has not assigned yet would mislink).
    by_summary = {normalize_summary(t.summary): t for t in by_number.values() if t.status != "resolved"}
    linked: list[dict[str, Any]] = []
    changed_cards: list[BlueprintCard] = []
    for card in cards:
        ops = [dict(op) for op in card.foreshadowing or []]
        for i, op in enumerate(ops):
            action = op.get("op")
            label = str(op.get("thread", "")).strip()
            summary = str(op.get("summary", "")).strip()
            if action == "plant" and not label:
                later = payoff_at.get(normalize_summary(summary))
                deadline = (
                    later
                    if later is not None and later > card.number
                    else resolve_thread_deadline(0, card.number, novel.target_chapters)
                )
                thread = thread_open(
                    novel=novel,
                    chapter=card.number,
                    summary=summary,
                    kind="foreshadowing",
                    deadline=deadline,
                    planned=True,
                    opened_at=card.number,
                )
                by_number[thread.number] = thread
                by_summary[normalize_summary(summary)] = thread
                ops[i] = {**op, "thread": f"#{thread.number}", "thread_id": thread.pk}
                linked.append({"card": card.number, "op": action, "thread": thread.number, "created": True})
                continue
            number = _thread_number(label) if label else None
            thread_row = by_number.get(number) if number is not None else by_summary.get(normalize_summary(summary))
            if thread_row is None:
                linked.append({"card": card.number, "op": action, "thread": None, "label": label, "created": False})
                continue
            ops[i] = {**op, "thread": f"#{thread_row.number}", "thread_id": thread_row.pk}
            if (
                action == "payoff"
                and thread_row.planned
                and thread_row.edited_by_id is None
                and (thread_row.opened_at or 0) < card.number
            ):
                thread_change(thread=thread_row, chapter=None, action="plan", changes={"deadline": card.number})
            linked.append({"card": card.number, "op": action, "thread": thread_row.number, "created": False})
        if ops != card.foreshadowing:
            card.foreshadowing = ops
            changed_cards.append(card)
    if changed_cards:
        BlueprintCard.objects.bulk_update(changed_cards, ["foreshadowing"])
    return linked
