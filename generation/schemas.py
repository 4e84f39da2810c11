"""What each model call must return, validated with pydantic.

These are the contracts between the prompts, the LLM layer (which validates
and runs the repair round), the demo model (which must produce them too) and
the services that write memory."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

_PLACEHOLDER = re.compile(r"^\s*(\.\.\.|…+|etc\.?|等等|略|同上|TBD)\s*$", re.IGNORECASE)


class _Out(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)


def _no_placeholder(value: str) -> str:
    if _PLACEHOLDER.match(value or ""):
        raise ValueError("is a placeholder, not content")
    return value


# --- architecture -------------------------------------------------------------


class ArchitecturePartOut(_Out):
    """core_seed, world and plot_arcs steps."""

    text: str = Field(min_length=20)

    @field_validator("text")
    @classmethod
    def _real_text(cls, v: str) -> str:
        return _no_placeholder(v)


class CharacterStateOut(_Out):
    alive: bool = True
    location: str = ""
    physical: str = ""
    mental: str = ""
    items: list[str] = Field(default_factory=list)
    abilities: list[str] = Field(default_factory=list)
    relationships: dict[str, str] = Field(default_factory=dict)


class CharacterSeedOut(_Out):
    name: str = Field(min_length=1, max_length=200)
    aliases: list[str] = Field(default_factory=list)
    description: str = Field(min_length=1)
    state: CharacterStateOut = Field(default_factory=CharacterStateOut)


class CharactersOut(_Out):
    """The characters step: prose for the architecture plus the Character rows."""

    text: str = Field(min_length=20)
    characters: list[CharacterSeedOut] = Field(min_length=1, max_length=60)


# --- blueprint ----------------------------------------------------------------


class ForeshadowOpOut(_Out):
    op: Literal["plant", "reinforce", "payoff"]
    # Stable thread label from the ledger ("#12"), or blank when planting a new one.
    thread: str = ""
    summary: str = Field(min_length=1)


class CardOut(_Out):
    number: int = Field(ge=1)
    title: str = Field(min_length=1, max_length=300)
    position: str = Field(min_length=1)
    core_function: str = Field(min_length=1)
    suspense_density: int = Field(ge=1, le=5)
    foreshadowing: list[ForeshadowOpOut] = Field(default_factory=list)
    cognitive_twist: int = Field(ge=1, le=5)
    brief: str = Field(min_length=1)

    @field_validator("title", "position", "core_function", "brief")
    @classmethod
    def _real_text(cls, v: str) -> str:
        return _no_placeholder(v)


class BlueprintWindowOut(_Out):
    cards: list[CardOut] = Field(min_length=1, max_length=25)


def validate_window(out: BlueprintWindowOut, *, start: int, end: int) -> list[str]:
    """Problems a person can act on; empty when the window is exactly start..end."""
    numbers = [c.number for c in out.cards]
    expected = list(range(start, end + 1))
    if numbers != expected:
        return [f"cards must be numbered {start}..{end} in order with no gaps; got {numbers}"]
    return []


# --- chapter loop ---------------------------------------------------------------

Dimension = Literal["consistency", "continuity", "threads", "pacing", "language", "length"]
SeverityLevel = Literal["info", "minor", "major", "critical"]


class ReviewFindingOut(_Out):
    dimension: Dimension
    severity: SeverityLevel
    quote: str = ""
    suggestion: str = ""


class ReviewOut(_Out):
    findings: list[ReviewFindingOut] = Field(default_factory=list, max_length=30)


class SummaryOut(_Out):
    """Finalize call (a): chapter summary, one-line skeleton, rolling global summary."""

    summary: str = Field(min_length=1, max_length=4000)
    skeleton: str = Field(min_length=1, max_length=300)
    global_summary: str = Field(min_length=1, max_length=2000)

    @field_validator("skeleton")
    @classmethod
    def _one_line(cls, v: str) -> str:
        return " ".join(v.split())


class CharacterChangeOut(_Out):
    name: str = Field(min_length=1)
    alive: bool | None = None
    location: str | None = None
    physical: str | None = None
    mental: str | None = None
    items_gained: list[str] = Field(default_factory=list)
    items_lost: list[str] = Field(default_factory=list)
    abilities_gained: list[str] = Field(default_factory=list)
    relationships: dict[str, str] = Field(default_factory=dict)


class FactOut(_Out):
    text: str = Field(min_length=1, max_length=1000)
    entities: list[str] = Field(default_factory=list)


class ThreadOpOut(_Out):
    """As the model reported it; unvalidated on purpose (memory.core.threads.plan_thread_ops judges it)."""

    action: str = "open"
    ref: str = ""
    summary: str = ""
    thread_type: str = ""
    deadline_chapter: int | str | None = None
    resolution_note: str = ""


class ExtractionOut(_Out):
    """Finalize call (b)."""

    characters: list[CharacterChangeOut] = Field(default_factory=list, max_length=60)
    facts: list[FactOut] = Field(default_factory=list, max_length=60)
    threads: list[ThreadOpOut] = Field(default_factory=list, max_length=30)
