"""Every prompt Inkstone sends, in Chinese and English, chosen by the novel's language.

    render(task, *, language=novel.language, context={...}) -> chat messages

Chinese novels get the Chinese templates; every other language gets the English
ones with an explicit instruction to write in that language. Structured tasks
show the model the JSON shape of their schema in generation/schemas.py."""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

from generation.prompts import en, zh

# task -> key of the JSON shape in the language module; None for prose answers.
TASKS: dict[str, str | None] = {
    "architecture_core_seed": "part",
    "architecture_characters": "characters",
    "architecture_world": "part",
    "architecture_plot_arcs": "part",
    "blueprint_window": "blueprint_window",
    "draft": None,
    "revise": None,
    "review": "review",
    "finalize_summary": "finalize_summary",
    "finalize_extract": "finalize_extract",
}

_LANGUAGE_NAMES = {
    "zh": "中文",
    "en": "English",
    "ja": "Japanese (日本語)",
    "ko": "Korean (한국어)",
    "fr": "French",
    "de": "German",
    "es": "Spanish",
    "it": "Italian",
    "pt": "Portuguese",
    "ru": "Russian",
    "ar": "Arabic",
    "he": "Hebrew",
    "hi": "Hindi",
    "th": "Thai",
    "el": "Greek",
    "vi": "Vietnamese",
}


def _base(language: str) -> str:
    return (language or "en").split("-")[0].split("_")[0].lower()


def templates_for(language: str) -> ModuleType:
    return zh if _base(language) == "zh" else en


def language_name(language: str) -> str:
    return _LANGUAGE_NAMES.get(_base(language), f"the language with code '{language}'")


def render(task: str, *, language: str, context: dict[str, Any]) -> list[dict[str, str]]:
    if task not in TASKS:
        raise ValueError(f"unknown prompt task {task!r}; known: {sorted(TASKS)}")
    t = templates_for(language)
    system = [t.SYSTEM, t.LANGUAGE_RULE.format(language_name=language_name(language))]
    shape_key = TASKS[task]
    if shape_key is not None:
        shape = json.dumps(t.shapes()[shape_key], ensure_ascii=False, indent=2)
        system.append(t.JSON_RULE.format(shape=shape))
    if task == "blueprint_window":
        system.append(t.PACING)
    user = t.USER[task].format_map(_fields(task, t, context))
    return [{"role": "system", "content": "\n\n".join(system)}, {"role": "user", "content": user}]


def render_repair(*, language: str, problems: list[str]) -> dict[str, str]:
    """The user turn of the one repair round: what was wrong, and to answer again."""
    t = templates_for(language)
    listed = "\n".join(f"- {p}" for p in problems) or "-"
    return {"role": "user", "content": t.REPAIR.format(problems=listed)}


class _Fields(dict[str, str]):
    """Missing keys render as "(none)" so an optional context key never breaks a prompt."""

    def __init__(self, none: str, values: dict[str, str]) -> None:
        super().__init__(values)
        self.none = none

    def __missing__(self, key: str) -> str:
        return self.none


def _fields(task: str, t: ModuleType, context: dict[str, Any]) -> _Fields:
    none: str = t.NONE
    values: dict[str, str] = {}
    for key, value in context.items():
        values[key] = _text(value, none=none)
    values["previous"] = _parts(context.get("previous") or {}, t=t)
    values["architecture"] = _parts(context.get("architecture") or {}, t=t)
    values["card"] = _card(context.get("card"), t=t)
    values["next_card"] = _card(context.get("next_card"), t=t)
    values["owed_payoffs"] = "\n".join(f"- {p}" for p in context.get("owed_payoffs") or []) or none
    values["findings"] = (
        "\n".join(
            t.FINDING.format_map(_Fields(none, {k: _text(v, none=none) for k, v in f.items()}))
            for f in context.get("findings") or []
        )
        or none
    )
    values["previous_cards"] = _text(context.get("previous_cards"), none=none)
    arch_text = (context.get("architecture_text") or "").strip()
    values["architecture_block"] = (
        f"{t.PART_LABELS['core_seed']} / {t.PART_LABELS['plot_arcs']}:\n{arch_text}\n\n" if arch_text else ""
    )
    return _Fields(none, values)


def _text(value: Any, *, none: str) -> str:
    if value is None:
        return none
    if isinstance(value, str):
        return value.strip() or none
    if isinstance(value, list | tuple):
        return "\n".join(f"- {_text(v, none=none)}" for v in value) or none
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False, indent=1) if value else none
    return str(value)


def _parts(parts: dict[str, Any], *, t: ModuleType) -> str:
    lines = [f"## {t.PART_LABELS.get(k, k)}\n{str(v).strip()}" for k, v in parts.items() if v and str(v).strip()]
    return "\n\n".join(lines) or t.NONE


def _card(card: dict[str, Any] | None, *, t: ModuleType) -> str:
    if not card:
        return str(t.NONE)
    lines = []
    if card.get("number"):
        lines.append(f"#{card['number']}")
    for key, label in t.CARD_LABELS.items():
        value = card.get(key)
        if key == "foreshadowing":
            ops = value or []
            rendered = "; ".join(
                f"{op.get('op', '')} {op.get('thread', '')} {op.get('summary', '')}".strip().replace("  ", " ")
                for op in ops
                if isinstance(op, dict)
            )
            lines.append(f"{label}: {rendered or t.NONE}")
        else:
            lines.append(f"{label}: {value if value not in (None, '') else t.NONE}")
    return "\n".join(lines)
