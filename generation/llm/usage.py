"""Usage rows: one LLMCall per model call, and the job's running totals."""

from __future__ import annotations

from generation.jobs import job_record_usage
from generation.models import LLMCall

# USD per million tokens (input, output), list prices; a rough estimate for the
# job page, not an invoice. Unknown models (and the demo model) cost 0.
PRICES_PER_MILLION: dict[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "o4-mini": (1.10, 4.40),
    "deepseek-chat": (0.27, 1.10),
    "deepseek-reasoner": (0.55, 2.19),
    "text-embedding-3-small": (0.02, 0.0),
    "text-embedding-3-large": (0.13, 0.0),
}


def estimate_cost(*, model: str, tokens_in: int, tokens_out: int) -> float:
    price_in, price_out = PRICES_PER_MILLION.get(model, (0.0, 0.0))
    return (tokens_in * price_in + tokens_out * price_out) / 1_000_000


def record_call(
    *,
    job_id: int | None,
    role: str,
    model: str,
    tokens_in: int,
    tokens_out: int,
    prompt_chars: int,
    duration_ms: int,
    attempts: int,
) -> None:
    if job_id is None:
        return
    LLMCall.objects.create(
        job_id=job_id,
        role=role,
        model=model,
        tokens_in=tokens_in,
        tokens_out=tokens_out,
        prompt_chars=prompt_chars,
        duration_ms=duration_ms,
        attempts=attempts,
    )
    job_record_usage(
        job_id=job_id,
        model=model,
        tokens_in=tokens_in,
        tokens_out=tokens_out,
        cost=estimate_cost(model=model, tokens_in=tokens_in, tokens_out=tokens_out),
    )
