"""What a provider must do; the LLM service adds prompts, validation, repair and usage on top."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class Completion:
    text: str
    tokens_in: int
    tokens_out: int
    # HTTP attempts including retries; 1 for the demo model.
    attempts: int = 1


@dataclass(frozen=True)
class CallMeta:
    """What the call is for: the demo model answers from it, the test server may receive it."""

    task: str
    context: dict[str, Any]
    language: str


class Backend(Protocol):
    is_demo: bool

    def writes_language(self, language: str) -> bool:
        """Can this provider answer in `language`? If not, its answers skip the language guard."""
        ...

    def complete(
        self, *, model: str, messages: list[dict[str, str]], json_mode: bool, meta: CallMeta
    ) -> Completion: ...

    def stream(
        self, *, model: str, messages: list[dict[str, str]], meta: CallMeta, on_delta: Callable[[str], None]
    ) -> Completion: ...

    def embed(self, *, model: str, texts: list[str]) -> tuple[list[list[float]], Completion]: ...
