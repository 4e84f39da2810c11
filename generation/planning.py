"""Planning: the four architecture steps and the rolling blueprint windows.

Each step is a job row run by a Celery task; the model is called with no
transaction open, then everything the step produced is written in one short
transaction together with the job's success, so a crash writes nothing."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from generation.jobs import JobFailed, job_handler, job_request, job_succeed, job_succeed_or_stop
from generation.llm import LLMError, llm_for
from generation.models import GenerationJob, JobKind
from generation.schemas import ArchitecturePartOut, BlueprintWindowOut, CharactersOut, validate_window
from memory.models import GlobalSummary
from novels.models import Architecture, BlueprintCard, Chapter, ChapterStatus, Novel
from novels.selectors import card_as_dict

ARCHITECTURE_STEPS = ("core_seed", "characters", "world", "plot_arcs")
BLUEPRINT_WINDOW = 25
# The next window is planned once this many chapters before the window's end are finalized.
BLUEPRINT_LOOKAHEAD = 5


def architecture_step_request(
    *, novel: Novel, part: str, guidance: str = "", user: User | None = None, enqueue: bool = True
) -> tuple[GenerationJob, bool]:
    if part not in ARCHITECTURE_STEPS:
        raise ValidationError(f"Unknown architecture step '{part}'.")
    architecture = Architecture.objects.get(novel=novel)
    index = ARCHITECTURE_STEPS.index(part)
    missing = [p for p in ARCHITECTURE_STEPS[:index] if not getattr(architecture, p).strip()]
    if missing:
        raise ValidationError(f"Write or generate {', '.join(missing)} first: each step builds on the ones before it.")
    params = {"guidance": guidance[:5000]}
    return job_request(novel=novel, kind=JobKind.ARCHITECTURE, step=part, params=params, user=user, enqueue=enqueue)


def architecture_update(*, novel: Novel, part: str, text: str, user: User | None) -> Architecture:
    if part not in ARCHITECTURE_STEPS:
        raise ValidationError(f"Unknown architecture part '{part}'.")
    with transaction.atomic():
        architecture = Architecture.objects.select_for_update().get(novel=novel)
        setattr(architecture, part, text)
        architecture.sources = {**architecture.sources, part: "author"}
        architecture.updated_by = user  # type: ignore[assignment]
        architecture.save()
    return architecture


def architecture_text(*, architecture: Architecture) -> str:
    titles = {"core_seed": "Core seed", "characters": "Characters", "world": "World", "plot_arcs": "Plot arcs"}
    return "\n\n".join(
        f"## {titles[p]}\n{getattr(architecture, p)}" for p in ARCHITECTURE_STEPS if getattr(architecture, p)
    )


@job_handler(JobKind.ARCHITECTURE)
def _run_architecture_step(job: GenerationJob) -> None:
    novel = job.novel
    part = job.step
    architecture = Architecture.objects.get(novel=novel)
    context: dict[str, Any] = {
        "title": novel.title,
        "genre": novel.genre,
        "premise": novel.premise,
        "language": novel.language,
        "target_chapters": novel.target_chapters,
        "guidance": job.params.get("guidance", ""),
        "previous": {p: getattr(architecture, p) for p in ARCHITECTURE_STEPS[: ARCHITECTURE_STEPS.index(part)]},
    }
    llm = llm_for(novel)
    schema = CharactersOut if part == "characters" else ArchitecturePartOut
    try:
        out = llm.structured(role="planner", task=f"architecture_{part}", context=context, schema=schema, job_id=job.pk)
    except LLMError as exc:
        raise JobFailed(f"The {part.replace('_', ' ')} step failed: {exc}") from exc
    from memory.services import characters_create_initial

    with transaction.atomic():
        architecture = Architecture.objects.select_for_update().get(novel=novel)
        setattr(architecture, part, out.text)  # type: ignore[attr-defined]
        architecture.sources = {**architecture.sources, part: llm.model_for("planner")}
        architecture.save()
        created = 0
        if isinstance(out, CharactersOut):
            created = len(characters_create_initial(novel=novel, seeds=out.characters))
        job_succeed_or_stop(job_id=job.pk, result={"part": part, "characters": created, "demo": llm.is_demo})


# --- blueprint -------------------------------------------------------------------


def blueprint_window_bounds(*, novel: Novel, start: int) -> tuple[int, int]:
    end = start + BLUEPRINT_WINDOW - 1
    if novel.target_chapters:
        end = min(end, max(novel.target_chapters, start))
    return start, end


def blueprint_window_request(
    *,
    novel: Novel,
    start: int,
    replan: bool = False,
    guidance: str = "",
    user: User | None = None,
    enqueue: bool = True,
) -> tuple[GenerationJob, bool]:
    if not Architecture.objects.filter(novel=novel).exclude(plot_arcs="").exists():
        raise ValidationError("Plan the architecture (through the plot arcs) before the blueprint.")
    if start < 1 or (start - 1) % BLUEPRINT_WINDOW != 0:
        raise ValidationError(f"Blueprint windows start at 1, 26, 51, …; {start} is not a window start.")
    if start > 1 and not BlueprintCard.objects.filter(novel=novel, number=start - 1).exists():
        raise ValidationError("Plan the earlier windows first: a window builds on the cards before it.")
    params = {"replan": replan, "guidance": guidance[:5000]}
    return job_request(novel=novel, kind=JobKind.BLUEPRINT, step=str(start), params=params, user=user, enqueue=enqueue)


def blueprint_next_due(*, novel: Novel) -> int | None:
    """The start of the next window when it is due: the last planned chapter minus
    the lookahead has been finalized, and the book is not fully planned."""
    last = BlueprintCard.objects.filter(novel=novel).order_by("-number").values_list("number", flat=True).first()
    if last is None or (novel.target_chapters and last >= novel.target_chapters):
        return None
    finalized = Chapter.objects.filter(
        novel=novel, status=ChapterStatus.FINALIZED, number__gte=max(1, last - BLUEPRINT_LOOKAHEAD)
    )
    if not finalized.exists():
        return None
    return last + 1


def blueprint_plan_next_if_due(*, novel: Novel, user: User | None = None) -> GenerationJob | None:
    start = blueprint_next_due(novel=novel)
    if start is None:
        return None
    job, _ = blueprint_window_request(novel=novel, start=start, user=user)
    return job


def _card_brief(card: BlueprintCard) -> str:
    return f"{card.number}. {card.title}"


@job_handler(JobKind.BLUEPRINT)
def _run_blueprint_window(job: GenerationJob) -> None:
    novel = job.novel
    start, end = blueprint_window_bounds(novel=novel, start=int(job.step))
    existing = BlueprintCard.objects.filter(novel=novel, number__gte=start, number__lte=end).count()
    if existing and not job.params.get("replan"):
        # Cards already written are never rewritten without the author asking.
        job_succeed(job_id=job.pk, result={"start": start, "end": end, "created": 0, "kept": existing})
        return
    from memory.selectors import known_threads_for_planning

    architecture = Architecture.objects.get(novel=novel)
    previous = BlueprintCard.objects.filter(novel=novel, number__lt=start).order_by("-number")[:40]
    global_summary = (
        GlobalSummary.objects.filter(novel=novel).order_by("-chapter").values_list("text", flat=True).first()
    )
    context: dict[str, Any] = {
        "title": novel.title,
        "architecture": {p: getattr(architecture, p) for p in ARCHITECTURE_STEPS},
        "global_summary": global_summary or "",
        "known_threads": known_threads_for_planning(novel=novel),
        "start": start,
        "end": end,
        "target_chapters": novel.target_chapters,
        "previous_cards": "\n".join(_card_brief(c) for c in reversed(previous)),
        "guidance": job.params.get("guidance", ""),
    }
    llm = llm_for(novel)
    try:
        out = llm.structured(
            role="planner",
            task="blueprint_window",
            context=context,
            schema=BlueprintWindowOut,
            job_id=job.pk,
            validate=lambda o: validate_window(o, start=start, end=end),  # type: ignore[arg-type]
        )
    except LLMError as exc:
        raise JobFailed(f"Planning chapters {start}–{end} failed: {exc}") from exc
    assert isinstance(out, BlueprintWindowOut)
    _blueprint_write(job=job, novel=novel, out=out, start=start, end=end, model_label=llm.model_for("planner"))


def _blueprint_write(
    *, job: GenerationJob, novel: Novel, out: BlueprintWindowOut, start: int, end: int, model_label: str
) -> None:
    from memory.services import threads_link_planned

    now = timezone.now()
    with transaction.atomic():
        BlueprintCard.objects.filter(novel=novel, number__gte=start, number__lte=end).delete()
        cards = BlueprintCard.objects.bulk_create(
            [
                BlueprintCard(
                    novel=novel,
                    number=c.number,
                    window_start=start,
                    title=c.title,
                    position=c.position,
                    core_function=c.core_function,
                    suspense_density=c.suspense_density,
                    foreshadowing=[op.model_dump() for op in c.foreshadowing],
                    cognitive_twist=c.cognitive_twist,
                    brief=c.brief,
                    model_label=model_label,
                    created_at=now,
                )
                for c in out.cards
            ]
        )
        cards = list(BlueprintCard.objects.filter(novel=novel, number__gte=start, number__lte=end).order_by("number"))
        linked = threads_link_planned(novel=novel, cards=cards)
        existing = set(
            Chapter.objects.filter(novel=novel, number__gte=start, number__lte=end).values_list("number", flat=True)
        )
        Chapter.objects.bulk_create(
            [Chapter(novel=novel, number=c.number, title=c.title) for c in cards if c.number not in existing]
        )
        for c in cards:
            Chapter.objects.filter(novel=novel, number=c.number, title="").update(title=c.title)
        result = {"start": start, "end": end, "created": len(cards), "threads_linked": len(linked) if linked else 0}
        job_succeed_or_stop(job_id=job.pk, result=result)


def card_as_context(card: BlueprintCard | None) -> dict[str, Any] | None:
    return card_as_dict(card) if card is not None else None
