"""Forms for the generation pages: they parse input; the services decide."""

from __future__ import annotations

from django import forms

from generation.planning import ARCHITECTURE_STEPS

PART_TITLES = {"core_seed": "Core seed", "characters": "Characters", "world": "World", "plot_arcs": "Plot arcs"}
PART_CHOICES = [(p, PART_TITLES[p]) for p in ARCHITECTURE_STEPS]
GUIDANCE_LIMIT = 5000


class ArchitecturePartForm(forms.Form):
    part = forms.ChoiceField(choices=PART_CHOICES, widget=forms.HiddenInput)
    text = forms.CharField(required=False, strip=False, widget=forms.Textarea(attrs={"rows": 12}))


class ArchitectureGenerateForm(forms.Form):
    part = forms.ChoiceField(choices=PART_CHOICES, widget=forms.HiddenInput)
    guidance = forms.CharField(
        required=False,
        max_length=GUIDANCE_LIMIT,
        widget=forms.Textarea(attrs={"rows": 2, "placeholder": "Optional guidance for the model"}),
    )


class BlueprintPlanForm(forms.Form):
    start = forms.IntegerField(min_value=1, widget=forms.HiddenInput)
    replan = forms.BooleanField(required=False, widget=forms.HiddenInput)
    confirm = forms.BooleanField(required=False, label="Yes, rewrite the cards of this window")
    guidance = forms.CharField(
        required=False,
        max_length=GUIDANCE_LIMIT,
        widget=forms.Textarea(attrs={"rows": 2, "placeholder": "Optional guidance for the planner"}),
    )

    def clean(self) -> dict:
        data = super().clean() or {}
        if data.get("replan") and not data.get("confirm"):
            self.add_error("confirm", "Re-planning rewrites every card of the window: tick the box to confirm.")
        return data


class CardForm(forms.Form):
    title = forms.CharField(strip=False)
    position = forms.CharField(strip=False, widget=forms.Textarea(attrs={"rows": 2}))
    core_function = forms.CharField(strip=False, widget=forms.Textarea(attrs={"rows": 2}))
    # The range is the service's rule (1–5); the widget only hints it to the browser.
    suspense_density = forms.IntegerField(widget=forms.NumberInput(attrs={"min": 1, "max": 5}))
    cognitive_twist = forms.IntegerField(widget=forms.NumberInput(attrs={"min": 1, "max": 5}))
    brief = forms.CharField(strip=False, widget=forms.Textarea(attrs={"rows": 4}))


class ChapterTextForm(forms.Form):
    # No max_length here: the service owns the limit and its message, and the
    # form re-renders the text so nothing the author pasted is lost.
    text = forms.CharField(
        strip=False,
        widget=forms.Textarea(attrs={"rows": 24}),
        error_messages={"required": "The chapter text is empty; nothing was saved."},
    )


class AutopilotForm(forms.Form):
    start = forms.IntegerField(min_value=1, label="From chapter")
    end = forms.IntegerField(min_value=1, label="To chapter")
    token_cap = forms.IntegerField(min_value=0, initial=0, label="Token cap", help_text="0 means no cap.")
    cost_cap = forms.DecimalField(
        min_value=0, initial=0, max_digits=12, decimal_places=4, label="Cost cap", help_text="0 means no cap."
    )
