"""Turning a model's answer into a validated pydantic object, and saying what was wrong.

Models wrap JSON in code fences or a sentence of prose; both are stripped here
rather than asking for a repair round, which costs a whole call."""

from __future__ import annotations

import json
import re
import typing
from typing import Any

from pydantic import BaseModel, ValidationError

from memory.core.language import language_mismatch

_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\r?\n?(.*?)```", re.DOTALL)

# Machine fields: enum values, thread references and types the prompts ask for
# in English; checking them would reject a Chinese record for saying "reinforce".
_NOT_PROSE = frozenset({"op", "thread", "action", "ref", "thread_type", "dimension", "severity"})


class AnswerProblem(Exception):
    """What was wrong with one answer, as lines to send back in the repair round."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


def extract_json(text: str) -> Any:
    """The JSON value in an answer: fenced, bare, or after a line of prose."""
    candidates = [m.group(1) for m in _FENCE.finditer(text or "")] + [text or ""]
    decoder = json.JSONDecoder()
    for candidate in candidates:
        stripped = candidate.strip()
        try:
            return json.loads(stripped)
        except ValueError:
            pass
        # Leading or trailing prose: decode from the first brace.
        for opener in ("{", "["):
            start = stripped.find(opener)
            if start == -1:
                continue
            try:
                value, _end = decoder.raw_decode(stripped[start:])
            except ValueError:
                continue
            return value
    snippet = " ".join((text or "").split())[:120]
    raise AnswerProblem(
        [f"the answer is not valid JSON (it starts: {snippet!r})" if snippet else "the answer was empty"]
    )


def parse_answer(text: str, schema: type[BaseModel]) -> BaseModel:
    data = extract_json(text)
    if isinstance(data, list) and len(schema.model_fields) == 1:
        # A bare list for a one-field object ({"cards": [...]}) is unambiguous.
        data = {next(iter(schema.model_fields)): data}
    try:
        return schema.model_validate(data)
    except ValidationError as exc:
        raise AnswerProblem([_describe(err) for err in exc.errors()[:12]]) from None


def _describe(err: Any) -> str:
    where = ".".join(str(p) for p in err.get("loc", ())) or "(top level)"
    return f"{where}: {err.get('msg', 'invalid')}"


def language_problems(result: BaseModel, *, language: str) -> list[str]:
    """Every prose field whose script does not match the novel's language."""
    problems: list[str] = []
    for where, text in _prose_fields(result, path=""):
        if language_mismatch(text, document_language=language):
            sample = " ".join(text.split())[:60]
            problems.append(f"{where} is not written in the novel's language ({language}): {sample!r}")
    return problems[:12]


def _prose_fields(value: Any, *, path: str) -> typing.Iterator[tuple[str, str]]:
    if isinstance(value, BaseModel):
        for name in type(value).model_fields:
            if name in _NOT_PROSE:
                continue
            yield from _prose_fields(getattr(value, name), path=f"{path}.{name}" if path else name)
    elif isinstance(value, str):
        yield path, value
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _prose_fields(item, path=f"{path}[{i}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _prose_fields(item, path=f"{path}[{key!r}]")
