"""Forms for the memory pages: they parse what was typed; the services decide.

Length limits and emptiness rules live in the services (with their messages),
so a bound form can always re-render exactly what the author typed."""

from __future__ import annotations

from typing import Any

from django import forms

from memory.models import ThreadStatus


def _lines(text: str) -> list[str]:
    return [line.strip() for line in (text or "").splitlines() if line.strip()]


def _names(text: str) -> list[str]:
    """One name a line, or several separated by commas."""
    return [part.strip() for line in _lines(text) for part in line.split(",") if part.strip()]


class GlobalSummaryForm(forms.Form):
    text = forms.CharField(
        strip=False,
        widget=forms.Textarea(attrs={"rows": 14}),
        help_text="At most 2000 characters: the whole book so far, rewritten rather than appended.",
        error_messages={"required": "The global summary cannot be empty; nothing was saved."},
    )


class ChapterSummaryForm(forms.Form):
    summary = forms.CharField(
        strip=False,
        widget=forms.Textarea(attrs={"rows": 6}),
        error_messages={"required": "The chapter summary cannot be empty; nothing was saved."},
    )
    skeleton = forms.CharField(
        strip=False,
        label="One-line skeleton",
        help_text="One line, at most 400 characters.",
        error_messages={"required": "The skeleton line cannot be empty; nothing was saved."},
    )


class CharacterForm(forms.Form):
    name = forms.CharField(strip=False)
    aliases = forms.CharField(
        required=False,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="One a line, or comma-separated.",
    )
    description = forms.CharField(required=False, strip=False, widget=forms.Textarea(attrs={"rows": 4}))

    @classmethod
    def initial_from(cls, character: Any) -> dict[str, Any]:
        aliases = "\n".join(character.aliases or [])
        return {"name": character.name, "aliases": aliases, "description": character.description}

    def clean_aliases(self) -> list[str]:
        return _names(self.cleaned_data.get("aliases", ""))


class CharacterStateForm(forms.Form):
    alive = forms.BooleanField(required=False)
    location = forms.CharField(required=False, strip=False)
    physical = forms.CharField(required=False, strip=False, widget=forms.Textarea(attrs={"rows": 2}))
    mental = forms.CharField(required=False, strip=False, widget=forms.Textarea(attrs={"rows": 2}))
    items = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3}), help_text="One a line.")
    abilities = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3}), help_text="One a line.")
    relationships = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="One a line: name: relation (e.g. “Tobias: distrusts him”).",
    )

    @classmethod
    def initial_from(cls, state: dict[str, Any]) -> dict[str, Any]:
        relationships = state.get("relationships") or {}
        return {
            "alive": bool(state.get("alive", True)),
            "location": state.get("location", ""),
            "physical": state.get("physical", ""),
            "mental": state.get("mental", ""),
            "items": "\n".join(state.get("items") or []),
            "abilities": "\n".join(state.get("abilities") or []),
            "relationships": "\n".join(f"{k}: {v}" for k, v in relationships.items()),
        }

    def clean_items(self) -> list[str]:
        return _lines(self.cleaned_data.get("items", ""))

    def clean_abilities(self) -> list[str]:
        return _lines(self.cleaned_data.get("abilities", ""))

    def clean_relationships(self) -> dict[str, str]:
        result: dict[str, str] = {}
        bad: list[str] = []
        for line in _lines(self.cleaned_data.get("relationships", "")):
            name, sep, relation = line.partition(":")
            if not sep or not name.strip() or not relation.strip():
                bad.append(line)
            else:
                result[name.strip()] = relation.strip()
        if bad:
            raise forms.ValidationError(
                "Write each relationship as “name: relation”; these lines are not: "
                + "; ".join(f"“{b}”" for b in bad)
                + " — nothing was saved."
            )
        return result

    def tree(self) -> dict[str, Any]:
        """The state tree in the shape extraction writes."""
        data = self.cleaned_data
        return {
            "alive": data["alive"],
            "location": data["location"].strip(),
            "physical": data["physical"].strip(),
            "mental": data["mental"].strip(),
            "items": data["items"],
            "abilities": data["abilities"],
            "relationships": data["relationships"],
        }


class FactForm(forms.Form):
    text = forms.CharField(
        strip=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        error_messages={"required": "The fact cannot be empty; nothing was saved."},
    )
    entities = forms.CharField(required=False, strip=False, help_text="Names, comma-separated.")

    @classmethod
    def initial_from(cls, fact: Any) -> dict[str, Any]:
        return {"text": fact.text, "entities": ", ".join(fact.entities or [])}

    def clean_entities(self) -> list[str]:
        return _names(self.cleaned_data.get("entities", ""))


class ThreadForm(forms.Form):
    summary = forms.CharField(
        strip=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        error_messages={"required": "The thread summary cannot be empty; nothing was saved."},
    )
    status = forms.ChoiceField(choices=ThreadStatus.choices)
    # The rule (a chapter number, 1 or more) is the service's; empty means no deadline.
    deadline = forms.IntegerField(
        required=False,
        label="Deadline chapter",
        help_text="Empty for none.",
        widget=forms.NumberInput(attrs={"min": 1}),
    )
    resolution_note = forms.CharField(required=False, strip=False, widget=forms.Textarea(attrs={"rows": 2}))

    @classmethod
    def initial_from(cls, thread: Any) -> dict[str, Any]:
        return {
            "summary": thread.summary,
            "status": thread.status,
            "deadline": thread.deadline or None,
            "resolution_note": thread.resolution_note,
        }
