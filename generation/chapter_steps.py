"""The chapter loop's steps: draft, review, revise, finalize, re-finalize, cascade.

Per chapter: one writer call, one reviewer call, and at most two finalize calls
(summary; extraction). No transaction is open across a model call: each step
reads, calls the model, then writes in one short transaction that also marks
the job done, so a crash at any point leaves the chapter exactly as before."""

from __future__ import annotations

import logging
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from generation.faults import fault_point
from generation.jobs import (
    JobFailed,
    job_handler,
    job_progress,
    job_request,
    job_succeed,
    job_succeed_or_stop,
)
from generation.llm import LLMError, llm_for
from generation.models import GenerationJob, JobKind, ReviewFinding
from generation.planning import blueprint_plan_next_if_due, card_as_context
from generation.review_checks import deterministic_findings
from generation.schemas import ExtractionOut, ReviewOut, SummaryOut
from novels.models import BlueprintCard, Chapter, ChapterRevision, ChapterStatus, Novel, RevisionSource

logger = logging.getLogger(__name__)


def _chapter(novel: Novel, number: int) -> Chapter:
    chapter = Chapter.objects.filter(novel=novel, number=number).first()
    if chapter is None:
        raise ValidationError(f"Chapter {number} does not exist.")
    return chapter


def _require_open(chapter: Chapter) -> None:
    if chapter.status == ChapterStatus.FINALIZED:
        raise ValidationError(f"Chapter {chapter.number} is finalized; edit it by hand and re-finalize instead.")


def _require_text(chapter: Chapter, what: str) -> None:
    if not chapter.text.strip():
        raise ValidationError(f"Chapter {chapter.number} has no {what}.")


def _previous_finalized(novel: Novel, number: int) -> bool:
    return (
        number == 1 or Chapter.objects.filter(novel=novel, number=number - 1, status=ChapterStatus.FINALIZED).exists()
    )


# --- requests (what views, commands and autopilot call) ------------------------------


def chapter_draft_request(
    *, novel: Novel, number: int, user: User | None = None, enqueue: bool = True
) -> tuple[GenerationJob, bool]:
    _require_open(_chapter(novel, number))
    if not _previous_finalized(novel, number):
        raise ValidationError(
            f"Finalize chapter {number - 1} first: the draft is written from the book's memory up to it."
        )
    if not BlueprintCard.objects.filter(novel=novel, number=number).exists():
        raise ValidationError(f"Chapter {number} has no blueprint card yet; plan its window first.")
    return job_request(novel=novel, kind=JobKind.DRAFT, chapter_number=number, user=user, enqueue=enqueue)


def chapter_review_request(
    *, novel: Novel, number: int, user: User | None = None, enqueue: bool = True
) -> tuple[GenerationJob, bool]:
    _require_text(_chapter(novel, number), "text to review")
    return job_request(novel=novel, kind=JobKind.REVIEW, chapter_number=number, user=user, enqueue=enqueue)


def chapter_revise_request(
    *, novel: Novel, number: int, user: User | None = None, enqueue: bool = True
) -> tuple[GenerationJob, bool]:
    chapter = _chapter(novel, number)
    _require_open(chapter)
    _require_text(chapter, "draft to revise")
    return job_request(novel=novel, kind=JobKind.REVISE, chapter_number=number, user=user, enqueue=enqueue)


def chapter_finalize_request(
    *, novel: Novel, number: int, user: User | None = None, enqueue: bool = True, force: bool = False
) -> tuple[GenerationJob, bool]:
    chapter = _chapter(novel, number)
    _require_text(chapter, "text to finalize")
    if not _previous_finalized(novel, number):
        raise ValidationError(f"Finalize chapter {number - 1} first: memory is built in chapter order.")
    # Both finalize and re-finalize share one step key, so two requests for the
    # same chapter can never run side by side.
    kind = JobKind.REFINALIZE if chapter.status == ChapterStatus.FINALIZED else JobKind.FINALIZE
    return job_request(
        novel=novel,
        kind=JobKind.FINALIZE,
        chapter_number=number,
        step="",
        params={"mode": kind, "force": force},
        user=user,
        enqueue=enqueue,
    )


def chapter_text_edit(*, chapter: Chapter, text: str, user: User | None) -> ChapterRevision | None:
    """The author's own edit: a new revision; a finalized chapter keeps its status and
    offers re-finalize (its memory came from the previous text)."""
    if len(text) > 2_000_000:
        raise ValidationError("A chapter is limited to 2,000,000 characters; split it into several chapters.")
    if text == chapter.text:
        return None
    with transaction.atomic():
        locked = Chapter.objects.select_for_update().get(pk=chapter.pk)
        revision = ChapterRevision.objects.create(
            chapter=locked, text=text, source=RevisionSource.MANUAL, created_by=user
        )
        locked.text = text
        if locked.status == ChapterStatus.PLANNED:
            locked.status = ChapterStatus.DRAFTED
        locked.save(update_fields=["text", "status", "updated_at"])
    return revision


def chapter_needs_refinalize(*, chapter: Chapter) -> bool:
    return chapter.status == ChapterStatus.FINALIZED and (
        chapter.memory_stale
        or chapter.finalized_revision_id is None
        or _latest_revision_id(chapter) != chapter.finalized_revision_id
    )


def _latest_revision_id(chapter: Chapter) -> int | None:
    return (
        ChapterRevision.objects.filter(chapter=chapter)
        .order_by("-created_at", "-id")
        .values_list("pk", flat=True)
        .first()
    )


# --- draft ------------------------------------------------------------------------------


def draft_prompt_context(*, novel: Novel, number: int) -> tuple[dict[str, Any], Any]:
    """The writer's context for chapter N (also the reviewer's, with the text added)."""
    from memory.context import context_assemble

    assembled = context_assemble(
        novel=novel, chapter_number=number, query_vector=_query_vector(novel=novel, number=number)
    )
    cards = {c["number"]: c for c in assembled.cards}
    context = {
        "chapter_number": number,
        "card": cards.get(number),
        "next_card": cards.get(number + 1),
        "memory_block": assembled.memory_block,
        "previous_tail": assembled.previous_tail,
        "architecture_text": assembled.architecture,
        "owed_payoffs": assembled.owed_payoffs,
        "target_length": novel.target_chapter_length,
    }
    return context, assembled


def _query_vector(*, novel: Novel, number: int) -> list[float] | None:
    """With an embedding model configured, retrieval also ranks by similarity to the card
    and the previous chapter's ending; a failing embedding call falls back to the
    deterministic score rather than failing the draft."""
    if not novel.embedding_model or number <= 1:
        return None
    from memory.core.vector import decode_vector

    card = BlueprintCard.objects.filter(novel=novel, number=number).first()
    previous = Chapter.objects.filter(novel=novel, number=number - 1).values_list("text", flat=True).first() or ""
    query = "\n".join(filter(None, [card.title if card else "", card.brief if card else "", previous[-800:]]))
    try:
        vectors = llm_for(novel).embed(texts=[query])
    except LLMError:
        logger.warning("embedding the retrieval query of chapter %s failed; deterministic retrieval only", number)
        return None
    return decode_vector(vectors[0]) if vectors else None


def _embed_passages(*, novel: Novel, chapter_number: int, job_id: int) -> int:
    """Embed the chapter's new passages (after the write: an embedding failure must not
    undo a finalization; those passages are then recalled deterministically)."""
    from memory.models import Passage

    if not novel.embedding_model:
        return 0
    rows = list(Passage.objects.filter(novel=novel, chapter=chapter_number, embedding="").order_by("ordinal"))
    if not rows:
        return 0
    try:
        vectors = llm_for(novel).embed(texts=[r.text for r in rows], job_id=job_id)
    except LLMError:
        logger.warning("embedding chapter %s's passages failed; they stay deterministic-only", chapter_number)
        return 0
    if not vectors:
        return 0
    for row, vector in zip(rows, vectors, strict=False):
        row.embedding, row.embedding_model = vector, novel.embedding_model
    Passage.objects.bulk_update(rows, ["embedding", "embedding_model"])
    return len(rows)


def _character_lines(characters: list[dict[str, Any]]) -> str:
    lines = []
    for c in characters:
        state = c.get("state") or {}
        facts = [f"{k}: {state[k]}" for k in ("location", "physical", "mental") if state.get(k)]
        if state.get("items"):
            facts.append("items: " + ", ".join(map(str, state["items"])))
        if state.get("abilities"):
            facts.append("abilities: " + ", ".join(map(str, state["abilities"])))
        if state.get("relationships"):
            facts.append("relationships: " + "; ".join(f"{k} {v}" for k, v in state["relationships"].items()))
        dead = " [dead]" if not c.get("alive", True) else ""
        lines.append(f"- {c['name']}{dead}: " + "; ".join(facts))
    return "\n".join(lines)


def extraction_prompt_context(*, novel: Novel, chapter: Chapter) -> tuple[dict[str, Any], dict[str, Any], list[int]]:
    """Contexts of the two finalize calls, and the thread ids in the exact [T1..Tn] order
    the extraction prompt shows (its citations index into that list)."""
    from memory.context import context_assemble
    from memory.selectors import global_summary_current

    assembled = context_assemble(novel=novel, chapter_number=chapter.number)
    previous = global_summary_current(novel=novel, before_chapter=chapter.number)
    card = card_as_context(BlueprintCard.objects.filter(novel=novel, number=chapter.number).first())
    summary_ctx = {
        "chapter_number": chapter.number,
        "chapter_text": chapter.text,
        "previous_global_summary": previous.text if previous else "",
        "card": card,
    }
    extract_ctx = {
        "chapter_number": chapter.number,
        "chapter_text": chapter.text,
        "characters": _character_lines(assembled.characters),
        "known_threads": assembled.threads_text,
        "total_chapters": novel.target_chapters,
    }
    return summary_ctx, extract_ctx, list(assembled.thread_ids)


@job_handler(JobKind.DRAFT)
def _run_draft(job: GenerationJob) -> None:
    novel = job.novel
    context, assembled = draft_prompt_context(novel=novel, number=job.chapter_number)
    GenerationJob.objects.filter(pk=job.pk).update(context_snapshot=assembled.snapshot, stream_text="")
    llm = llm_for(novel)
    try:
        text = llm.stream_text(role="writer", task="draft", context=context, job_id=job.pk)
    except LLMError as exc:
        raise JobFailed(f"Drafting chapter {job.chapter_number} failed: {exc}") from exc
    _save_generated_text(job=job, text=text, source=RevisionSource.DRAFT, model_label=llm.model_for("writer"))


def _save_generated_text(*, job: GenerationJob, text: str, source: str, model_label: str) -> None:
    if not text.strip():
        raise JobFailed("The model returned an empty chapter; nothing was saved. Try again or check the model.")
    with transaction.atomic():
        chapter = Chapter.objects.select_for_update().get(novel=job.novel, number=job.chapter_number)
        latest = ChapterRevision.objects.filter(chapter=chapter).order_by("-created_at", "-id").first()
        revision = ChapterRevision.objects.create(chapter=chapter, text=text, source=source, model_label=model_label)
        # The author's own edits are never overwritten: a generated text after a
        # manual edit is kept as a revision the author can adopt.
        adopted = not (latest and latest.source == RevisionSource.MANUAL and chapter.text == latest.text)
        if adopted:
            chapter.text = text
            chapter.status = ChapterStatus.DRAFTED
            chapter.save(update_fields=["text", "status", "updated_at"])
        job_succeed_or_stop(job_id=job.pk, result={"revision": revision.pk, "adopted": adopted, "chars": len(text)})


# --- review and revise ----------------------------------------------------------------------


@job_handler(JobKind.REVIEW)
def _run_review(job: GenerationJob) -> None:
    novel = job.novel
    chapter = Chapter.objects.get(novel=novel, number=job.chapter_number)
    context, assembled = draft_prompt_context(novel=novel, number=job.chapter_number)
    context = {**context, "chapter_text": chapter.text}
    llm = llm_for(novel)
    try:
        out = llm.structured(
            role="reviewer", task="review", context=context, schema=ReviewOut, job_id=job.pk, check_language=False
        )
    except LLMError as exc:
        raise JobFailed(f"Reviewing chapter {job.chapter_number} failed: {exc}") from exc
    assert isinstance(out, ReviewOut)
    checks = deterministic_findings(
        text=chapter.text,
        language=novel.language,
        dead_names=[c["name"] for c in assembled.characters if not c.get("alive", True)],
        card=context["card"],
        target_length=novel.target_chapter_length,
    )
    rows = [
        ReviewFinding(
            job=job,
            chapter=chapter,
            dimension=f.dimension,
            severity=f.severity,
            quote=f.quote,
            suggestion=f.suggestion,
            source="model",
        )
        for f in out.findings
    ]
    rows += [
        ReviewFinding(
            job=job,
            chapter=chapter,
            dimension=f.dimension,
            severity=f.severity,
            quote=f.quote,
            suggestion=f.suggestion,
            source="check",
        )
        for f in checks
    ]
    with transaction.atomic():
        ReviewFinding.objects.filter(chapter=chapter).exclude(job=job).delete()
        ReviewFinding.objects.bulk_create(rows)
        Chapter.objects.filter(pk=chapter.pk, status=ChapterStatus.DRAFTED).update(status=ChapterStatus.REVIEWED)
        critical = sum(1 for r in rows if r.severity == "critical")
        job_succeed_or_stop(job_id=job.pk, result={"findings": len(rows), "critical": critical})


@job_handler(JobKind.REVISE)
def _run_revise(job: GenerationJob) -> None:
    novel = job.novel
    chapter = Chapter.objects.get(novel=novel, number=job.chapter_number)
    context, assembled = draft_prompt_context(novel=novel, number=job.chapter_number)
    findings = list(
        ReviewFinding.objects.filter(chapter=chapter).values("dimension", "severity", "quote", "suggestion")
    )
    context = {**context, "draft_text": chapter.text, "findings": findings}
    GenerationJob.objects.filter(pk=job.pk).update(context_snapshot=assembled.snapshot, stream_text="")
    llm = llm_for(novel)
    try:
        text = llm.stream_text(role="writer", task="revise", context=context, job_id=job.pk)
    except LLMError as exc:
        raise JobFailed(f"Revising chapter {job.chapter_number} failed: {exc}") from exc
    _save_generated_text(job=job, text=text, source=RevisionSource.REVISION, model_label=llm.model_for("writer"))


# --- finalize -------------------------------------------------------------------------------


@job_handler(JobKind.FINALIZE)
def _run_finalize(job: GenerationJob) -> None:
    novel = job.novel
    chapter = Chapter.objects.get(novel=novel, number=job.chapter_number)
    # A request for a chapter whose memory already came from this very text changes
    # nothing (a double click, a retry); `force` is the author's explicit "do it again".
    if (
        chapter.status == ChapterStatus.FINALIZED
        and not chapter_needs_refinalize(chapter=chapter)
        and not job.params.get("force")
    ):
        job_succeed(job_id=job.pk, result={"noop": "already finalized from this text"})
        return
    memory_input = _finalize_model_calls(job=job, novel=novel, chapter=chapter)
    finalize_write(job=job, novel=novel, chapter_number=chapter.number, memory_input=memory_input)
    _embed_passages(novel=novel, chapter_number=chapter.number, job_id=job.pk)
    blueprint_plan_next_if_due(novel=novel)


def _finalize_model_calls(*, job: GenerationJob, novel: Novel, chapter: Chapter) -> dict[str, Any]:
    """The two finalize calls. Their validated output is kept on the job row first, so a
    retry after a crash writes memory without paying for the calls again."""
    cached = job.result.get("memory_input")
    revision_id = _latest_revision_id(chapter)
    if cached and cached.get("revision_id") == revision_id and cached.get("text_len") == len(chapter.text):
        return dict(cached)
    summary_ctx, extract_ctx, known_thread_ids = extraction_prompt_context(novel=novel, chapter=chapter)
    llm = llm_for(novel)
    try:
        summary = llm.structured(
            role="extractor",
            task="finalize_summary",
            context=summary_ctx,
            schema=SummaryOut,
            job_id=job.pk,
        )
        extraction = llm.structured(
            role="extractor",
            task="finalize_extract",
            context=extract_ctx,
            schema=ExtractionOut,
            job_id=job.pk,
            # Wrong-language records are rejected one by one at write time and listed.
            check_language=False,
        )
    except LLMError as exc:
        raise JobFailed(f"Finalizing chapter {chapter.number} failed before anything was written: {exc}") from exc
    memory_input = {
        "summary": summary.model_dump(),
        "extraction": extraction.model_dump(),
        "known_thread_ids": known_thread_ids,
        "revision_id": revision_id,
        "text_len": len(chapter.text),
    }
    GenerationJob.objects.filter(pk=job.pk).update(result={"memory_input": memory_input})
    return memory_input


def finalize_write(
    *, job: GenerationJob, novel: Novel, chapter_number: int, memory_input: dict[str, Any], cascade: bool = False
) -> dict[str, Any]:
    """One transaction: memory write-back, the chapter's status, stale flags, the job's success."""
    from memory.models import Passage
    from memory.services import chapter_memory_write, chapters_after

    with transaction.atomic():
        chapter = Chapter.objects.select_for_update().get(novel=novel, number=chapter_number)
        was_finalized = chapter.status == ChapterStatus.FINALIZED
        # Passages are rewritten with the chapter's memory; an unchanged passage keeps its
        # vector, so a cascade needs no embedding calls.
        vectors = dict(
            Passage.objects.filter(novel=novel, chapter=chapter_number)
            .exclude(embedding="")
            .values_list("text", "embedding")
        )
        report = chapter_memory_write(
            novel=novel,
            chapter_number=chapter_number,
            chapter_text=chapter.text,
            summary=SummaryOut.model_validate(memory_input["summary"]),
            extraction=ExtractionOut.model_validate(memory_input["extraction"]),
            known_thread_ids=list(memory_input.get("known_thread_ids", [])),
        )
        if vectors:
            kept = list(Passage.objects.filter(novel=novel, chapter=chapter_number, text__in=list(vectors)))
            for row in kept:
                row.embedding, row.embedding_model = vectors[row.text], novel.embedding_model
            Passage.objects.bulk_update(kept, ["embedding", "embedding_model"])
        fault_point("finalize_write")
        fault_point(f"finalize_write.{chapter_number}")
        chapter.status = ChapterStatus.FINALIZED
        chapter.finalized_revision_id = memory_input.get("revision_id") or _latest_revision_id(chapter)
        chapter.finalized_at = timezone.now()
        chapter.finalize_count += 1
        chapter.memory_stale = False
        chapter.memory_input = memory_input
        chapter.save()
        stale: list[int] = []
        if was_finalized and not cascade:
            stale = chapters_after(novel=novel, chapter_number=chapter_number)
            Chapter.objects.filter(novel=novel, number__in=stale).update(memory_stale=True)
        result = {
            "memory_input": memory_input,
            "report": report.as_dict(),
            "stale_marked": stale,
            "refinalized": was_finalized,
        }
        if not cascade:
            job_succeed_or_stop(job_id=job.pk, result=result)
    return result


# --- cascade ------------------------------------------------------------------------------


def cascade_request(*, novel: Novel, user: User | None = None, enqueue: bool = True) -> tuple[GenerationJob, bool]:
    return job_request(novel=novel, kind=JobKind.CASCADE, user=user, enqueue=enqueue)


@job_handler(JobKind.CASCADE)
def _run_cascade(job: GenerationJob) -> None:
    """Re-apply every stale chapter's stored model output, in order, on top of the
    corrected earlier memory. Each chapter commits on its own and clears its flag,
    so a crash resumes at the first chapter still flagged."""
    novel = job.novel
    total = Chapter.objects.filter(novel=novel, memory_stale=True).count() + job.progress
    done = job.progress
    job_progress(job_id=job.pk, done=done, total=total)
    while True:
        chapter = (
            Chapter.objects.filter(novel=novel, memory_stale=True, status=ChapterStatus.FINALIZED)
            .order_by("number")
            .first()
        )
        if chapter is None:
            break
        if chapter.memory_input:
            finalize_write(
                job=job, novel=novel, chapter_number=chapter.number, memory_input=chapter.memory_input, cascade=True
            )
        else:
            Chapter.objects.filter(pk=chapter.pk).update(memory_stale=False)
        done += 1
        job_progress(job_id=job.pk, done=done, total=max(total, done))
    job_succeed(job_id=job.pk, result={"chapters": done})
