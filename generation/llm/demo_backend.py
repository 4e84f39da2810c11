"""The offline demo model as a provider: same interface, answers composed by demo_respond."""

from __future__ import annotations

import re
from collections.abc import Callable

from generation.llm.base import CallMeta, Completion
from generation.llm.demo import demo_respond
from generation.llm.errors import LLMError
from memory.core.budget import estimate_tokens

# Sentence-sized pieces, so a demo draft streams the way a real one does.
_PIECE = re.compile(r".+?(?:[。！？!?.]\s*|\n+|$)", re.DOTALL)


class DemoBackend:
    is_demo = True

    def writes_language(self, language: str) -> bool:
        # The demo writes Chinese or English only; guarding other books would fail every step.
        return (language or "").lower()[:2] in ("zh", "en")

    def complete(self, *, model: str, messages: list[dict[str, str]], json_mode: bool, meta: CallMeta) -> Completion:
        text = demo_respond(meta.task, meta.context, meta.language)
        return _completion(messages, text)

    def stream(
        self, *, model: str, messages: list[dict[str, str]], meta: CallMeta, on_delta: Callable[[str], None]
    ) -> Completion:
        text = demo_respond(meta.task, meta.context, meta.language)
        for piece in _PIECE.findall(text):
            if piece:
                on_delta(piece)
        return _completion(messages, text)

    def embed(self, *, model: str, texts: list[str]) -> tuple[list[list[float]], Completion]:
        raise LLMError("The offline demo model has no embeddings; retrieval stays deterministic.")


def _completion(messages: list[dict[str, str]], text: str) -> Completion:
    return Completion(
        text=text,
        tokens_in=sum(estimate_tokens(m.get("content", "")) for m in messages),
        tokens_out=estimate_tokens(text),
    )
