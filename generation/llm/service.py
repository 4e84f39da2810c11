"""The LLM layer's one entry point: prompts in, validated objects or streamed prose out.

Everything provider-specific sits behind a Backend (OpenAI-compatible or the
offline demo model); this module owns what is the same for both: rendering the
prompt, validation and the single repair round, streaming into the job row,
and usage rows. It writes nothing else."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from pydantic import BaseModel

from generation.jobs import job_stream_append
from generation.llm.base import Backend, CallMeta, Completion
from generation.llm.errors import LLMError
from generation.llm.parsing import AnswerProblem, language_problems, parse_answer
from generation.llm.usage import record_call
from generation.prompts import render, render_repair
from memory.core.vector import DEFAULT_MIN_SCORE, encode_vector
from novels.models import Novel

ROLES = ("planner", "writer", "extractor", "reviewer")
DEMO_MODEL = "demo"
# A repair round quotes the bad answer back; a runaway answer is not worth resending whole.
_REPAIR_QUOTE_CHARS = 20_000
# Stream appends are batched: a reload shows progress, without a write per token.
STREAM_FLUSH_SECONDS = 0.5
STREAM_FLUSH_CHARS = 400


class LLM:
    def __init__(self, *, novel: Novel, backend: Backend) -> None:
        self.novel = novel
        self.backend = backend

    @property
    def is_demo(self) -> bool:
        return self.backend.is_demo

    @property
    def language(self) -> str:
        return self.novel.language or "en"

    def model_for(self, role: str) -> str:
        if role not in ROLES:
            raise ValueError(f"unknown model role {role!r}; expected one of {ROLES}")
        if self.is_demo:
            return DEMO_MODEL
        return str(getattr(self.novel, f"{role}_model", "") or settings.LLM_DEFAULT_MODELS[role])

    # --- structured output ------------------------------------------------------------

    def structured(
        self,
        *,
        role: str,
        task: str,
        context: dict[str, Any],
        schema: type[BaseModel],
        job_id: int | None = None,
        validate: Callable[[BaseModel], list[str]] | None = None,
        check_language: bool = True,
    ) -> BaseModel:
        """A validated `schema` instance; after one failed repair round, LLMError."""
        model = self.model_for(role)
        meta = CallMeta(task=task, context=context, language=self.language)
        messages = render(task, language=self.language, context=context)
        answer = self._complete(role=role, model=model, messages=messages, meta=meta, job_id=job_id)
        try:
            return self._accept(answer, schema=schema, validate=validate, check_language=check_language)
        except AnswerProblem as first:
            repair = [
                *messages,
                {"role": "assistant", "content": answer[:_REPAIR_QUOTE_CHARS]},
                render_repair(language=self.language, problems=first.problems),
            ]
            answer = self._complete(role=role, model=model, messages=repair, meta=meta, job_id=job_id)
            try:
                return self._accept(answer, schema=schema, validate=validate, check_language=check_language)
            except AnswerProblem as second:
                raise LLMError(_still_invalid(role=role, model=model, task=task, problems=second.problems)) from None

    def _accept(
        self,
        answer: str,
        *,
        schema: type[BaseModel],
        validate: Callable[[BaseModel], list[str]] | None,
        check_language: bool,
    ) -> BaseModel:
        result = parse_answer(answer, schema)
        problems = list(validate(result)) if validate else []
        if check_language and self.backend.writes_language(self.language):
            problems += language_problems(result, language=self.language)
        if problems:
            raise AnswerProblem(problems)
        return result

    def _complete(
        self, *, role: str, model: str, messages: list[dict[str, str]], meta: CallMeta, job_id: int | None
    ) -> str:
        started = time.monotonic()
        completion = self.backend.complete(model=model, messages=messages, json_mode=True, meta=meta)
        self._record(role=role, model=model, messages=messages, completion=completion, started=started, job_id=job_id)
        return completion.text

    # --- streamed prose ---------------------------------------------------------------

    def stream_text(
        self,
        *,
        role: str,
        task: str,
        context: dict[str, Any],
        job_id: int | None = None,
        on_chunk: Callable[[str], None] | None = None,
    ) -> str:
        """The whole streamed answer; chunks reach `on_chunk` and the job row as they arrive."""
        model = self.model_for(role)
        meta = CallMeta(task=task, context=context, language=self.language)
        messages = render(task, language=self.language, context=context)
        sink = _StreamSink(job_id=job_id)

        def on_delta(piece: str) -> None:
            sink.add(piece)
            if on_chunk is not None:
                on_chunk(piece)

        started = time.monotonic()
        try:
            completion = self.backend.stream(model=model, messages=messages, meta=meta, on_delta=on_delta)
        finally:
            # Also on failure: a crash keeps what arrived.
            sink.flush()
        self._record(role=role, model=model, messages=messages, completion=completion, started=started, job_id=job_id)
        if not completion.text.strip():
            raise LLMError(f"The {role} model ('{model}') returned no text for step '{task}'. Run the step again.")
        return completion.text

    # --- embeddings -------------------------------------------------------------------

    def embed(self, *, texts: list[str], job_id: int | None = None) -> list[str] | None:
        """Vectors in the memory.core.vector wire format, or None when the novel has no
        embedding model (or runs on the demo model): retrieval is then deterministic only.

        Scores from different embedding models are not comparable, so the minimum
        similarity lives beside the model name: novel.embedding_min_score (see
        embedding_min_score()), not in a site-wide setting."""
        model = self.novel.embedding_model
        if not model or self.is_demo:
            return None
        if not texts:
            return []
        started = time.monotonic()
        vectors, completion = self.backend.embed(model=model, texts=texts)
        record_call(
            job_id=job_id,
            role="embedding",
            model=model,
            tokens_in=completion.tokens_in,
            tokens_out=0,
            prompt_chars=sum(len(t) for t in texts),
            duration_ms=_ms_since(started),
            attempts=completion.attempts,
        )
        return [encode_vector(v) for v in vectors]

    def _record(
        self,
        *,
        role: str,
        model: str,
        messages: list[dict[str, str]],
        completion: Completion,
        started: float,
        job_id: int | None,
    ) -> None:
        record_call(
            job_id=job_id,
            role=role,
            model=model,
            tokens_in=completion.tokens_in,
            tokens_out=completion.tokens_out,
            prompt_chars=sum(len(m.get("content", "")) for m in messages),
            duration_ms=_ms_since(started),
            attempts=completion.attempts,
        )


class _StreamSink:
    def __init__(self, *, job_id: int | None) -> None:
        self.job_id = job_id
        self.pending: list[str] = []
        self.pending_chars = 0
        self.last_flush = time.monotonic()

    def add(self, piece: str) -> None:
        if self.job_id is None:
            return
        self.pending.append(piece)
        self.pending_chars += len(piece)
        if self.pending_chars >= STREAM_FLUSH_CHARS or time.monotonic() - self.last_flush >= STREAM_FLUSH_SECONDS:
            self.flush()

    def flush(self) -> None:
        if self.job_id is not None and self.pending:
            job_stream_append(job_id=self.job_id, text="".join(self.pending))
        self.pending, self.pending_chars, self.last_flush = [], 0, time.monotonic()


def _ms_since(started: float) -> int:
    return int((time.monotonic() - started) * 1000)


def _still_invalid(*, role: str, model: str, task: str, problems: list[str]) -> str:
    listed = "; ".join(problems[:6])
    more = f" (and {len(problems) - 6} more)" if len(problems) > 6 else ""
    return (
        f"Step '{task}': the {role} model ('{model}') gave an unusable answer twice (the second after being told "
        f"what was wrong): {listed}{more}. Nothing was saved. Run the step again; if it keeps failing, choose "
        f"a stronger {role} model in the novel's settings or simplify the guidance."
    )


def llm_for(novel: Novel) -> LLM:
    """The OpenAI-compatible provider when an API key is configured, else the offline demo model."""
    if settings.OPENAI_API_KEY:
        from generation.llm.openai_backend import OpenAIBackend

        return LLM(novel=novel, backend=OpenAIBackend())
    from generation.llm.demo_backend import DemoBackend

    return LLM(novel=novel, backend=DemoBackend())


def embedding_min_score(novel: Novel) -> float:
    """The novel's similarity floor for its embedding model, else the floor calibrated for
    text-embedding-3-small (memory.core.vector.DEFAULT_MIN_SCORE)."""
    return novel.embedding_min_score if novel.embedding_min_score is not None else DEFAULT_MIN_SCORE
