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


class MemberForm(forms.Form):
    username = forms.CharField(max_length=150)
    role = forms.ChoiceField(choices=Role.choices)
