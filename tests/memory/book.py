"""Synthetic books for the memory tests: deterministic English prose, summaries
and extraction output shaped like what the finalize calls return."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from generation.schemas import ExtractionOut, SummaryOut
from memory.selectors import live_threads
from memory.writeback import WriteReport, chapter_memory_write
from novels.models import BlueprintCard, Chapter, ChapterStatus, Novel

CAST = ["Mara", "Tobias", "Elin", "Corwin"]
PLACES = ["harbour", "lighthouse", "chapel", "market", "cliffs", "archive", "forge", "orchard"]
OBJECTS = ["brass key", "torn letter", "green lantern", "silver compass", "sealed ledger", "iron bell"]


def chapter_text(n: int, *, length: int = 3000, marker: str = "") -> str:
    """Paragraphs of plain English naming the cast, a place and an object unique-ish to the chapter."""
    place = PLACES[n % len(PLACES)]
    thing = OBJECTS[n % len(OBJECTS)]
    paragraphs: list[str] = []
    i = 0
    while sum(len(p) + 2 for p in paragraphs) < length:
        who = CAST[(n + i) % len(CAST)]
        paragraphs.append(
            f"In chapter {n}, paragraph {i}, {who} walked to the {place} carrying the {thing}{marker}. "
            f"The wind off the water tasted of salt and rust, and {who} remembered the promise made "
            f"at the {PLACES[(n + i + 3) % len(PLACES)]} long before the storm season began in earnest. "
            f"Nobody in the village spoke of it, yet everybody watched the {thing} as it passed."
        )
        i += 1
    return "\n\n".join(paragraphs)


def summary_out(n: int, *, size: int = 1200, tag: str = "") -> SummaryOut:
    base = (
        f"Chapter {n}{tag}: Mara and Tobias follow the {OBJECTS[n % len(OBJECTS)]} to the {PLACES[n % len(PLACES)]}. "
    )
    return SummaryOut(
        summary=(base * (size // len(base) + 1))[:size],
        skeleton=f"Ch{n}{tag}: the {OBJECTS[n % len(OBJECTS)]} reaches the {PLACES[n % len(PLACES)]}.",
        global_summary=(f"Up to chapter {n}{tag} the keepers chase the old promise. " * 60)[:2000],
    )


def extraction_out(
    n: int, *, facts: int = 4, threads: list[dict[str, Any]] | None = None, tag: str = ""
) -> ExtractionOut:
    return ExtractionOut.model_validate(
        {
            "characters": [
                {
                    "name": CAST[n % len(CAST)],
                    "location": f"the {PLACES[n % len(PLACES)]}{tag}",
                    "items_gained": [f"token {n}"],
                },
            ],
            "facts": [
                {
                    "text": f"In chapter {n}{tag}, fact {k}: the {OBJECTS[(n + k) % len(OBJECTS)]} was seen near the {PLACES[k % len(PLACES)]} by Elin.",
                    "entities": ["Elin"],
                }
                for k in range(facts)
            ],
            "threads": threads
            if threads is not None
            else [{"action": "open", "summary": f"Who left the mark in chapter {n}?", "deadline_chapter": n + 6}],
        }
    )


def add_chapters(novel: Novel, upto: int) -> None:
    Chapter.objects.bulk_create(
        [Chapter(novel=novel, number=n, title=f"Chapter {n}", text=chapter_text(n)) for n in range(1, upto + 1)],
        ignore_conflicts=True,
    )
    BlueprintCard.objects.bulk_create(
        [
            BlueprintCard(
                novel=novel,
                number=n,
                window_start=1,
                title=f"The {OBJECTS[n % len(OBJECTS)]}",
                position="middle",
                core_function="advance",
                suspense_density=3,
                cognitive_twist=2,
                brief=f"Mara brings the {OBJECTS[n % len(OBJECTS)]} to the {PLACES[n % len(PLACES)]}.",
            )
            for n in range(1, upto + 2)
        ],
        ignore_conflicts=True,
    )


def finalize(
    novel: Novel,
    n: int,
    *,
    text: str | None = None,
    summary: SummaryOut | None = None,
    extraction: ExtractionOut | None = None,
    known: list[int] | None = None,
    user: Any = None,
) -> WriteReport:
    """What the chapter loop does at finalize: one transaction, chapter row and memory together."""
    chapter = Chapter.objects.get(novel=novel, number=n)
    body = text if text is not None else chapter.text
    known_ids = known if known is not None else [v.id for v in live_threads(novel=novel, chapter_number=n)]
    with transaction.atomic():
        report = chapter_memory_write(
            novel=novel,
            chapter_number=n,
            chapter_text=body,
            summary=summary or summary_out(n),
            extraction=extraction or extraction_out(n),
            known_thread_ids=known_ids,
            user=user,
        )
        Chapter.objects.filter(pk=chapter.pk).update(text=body, status=ChapterStatus.FINALIZED)
    return report


def build_book(novel: Novel, finalized: int) -> None:
    """Chapters 1..finalized written and finalized; chapter finalized+1 ready to draft."""
    add_chapters(novel, finalized + 1)
    for n in range(1, finalized + 1):
        finalize(novel, n)
