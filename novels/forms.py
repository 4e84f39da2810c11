from django import forms

from novels.models import Novel, Role

LANGUAGE_CHOICES = [("", "Detect from title and premise"), ("en", "English"), ("zh", "Chinese")]


class NovelForm(forms.ModelForm):
    language = forms.ChoiceField(choices=LANGUAGE_CHOICES, required=False)
    field_order = ["title", "genre", "premise", "language", "target_chapters", "target_chapter_length", "memory_budget"]

    class Meta:
        model = Novel
        fields = ["title", "genre", "premise", "target_chapters", "target_chapter_length", "memory_budget"]
        # No maxlength: a browser would silently cut a long paste; clean_premise explains the limit instead.
        widgets = {"premise": forms.Textarea(attrs={"rows": 6})}

    def clean_premise(self) -> str:
        premise: str = self.cleaned_data["premise"]
        if len(premise) > 20000:
            raise forms.ValidationError(
                f"The premise is limited to 20,000 characters (this one has {len(premise):,}); "
                "put the rest in the architecture."
            )
        return premise


    def clean_memory_budget(self) -> int:
        budget: int = self.cleaned_data["memory_budget"]
        if not 500 <= budget <= 200_000:
            raise forms.ValidationError("Give a memory budget between 500 and 200,000 tokens (6000 is the default).")
        return budget


class NovelSettingsForm(NovelForm):
    """Settings add the model per role; blank means the site default."""

    class Meta(NovelForm.Meta):
        fields = [
            *NovelForm.Meta.fields,
            "planner_model",
            "writer_model",
            "extractor_model",
            "reviewer_model",
            "embedding_model",
            "embedding_min_score",
        ]
        help_texts = {
            "planner_model": "Blank: the site default.",
            "writer_model": "Blank: the site default.",
            "extractor_model": "Blank: the site default.",
            "reviewer_model": "Blank: the site default.",
            "embedding_model": "Blank: retrieval is deterministic only.",
            "embedding_min_score": "Similarity floor for this embedding model (not comparable across models).",
        }


class MemberForm(forms.Form):
    username = forms.CharField(max_length=150)
    role = forms.ChoiceField(choices=Role.choices)
