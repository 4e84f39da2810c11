from __future__ import annotations

from django.conf import settings
from django.db import models


class Role(models.TextChoices):
    OWNER = "owner", "Owner"
    EDITOR = "editor", "Editor"
    VIEWER = "viewer", "Viewer"


class Novel(models.Model):
    title = models.CharField(max_length=200)
    # Detected from title and premise with memory.core.language.resolve_language; the author may override.
    language = models.CharField(max_length=8, default="en")
    language_overridden = models.BooleanField(default=False)
    genre = models.CharField(max_length=100, blank=True)
    premise = models.TextField(blank=True)
    target_chapters = models.PositiveIntegerField(default=60)
    target_chapter_length = models.PositiveIntegerField(default=3000, help_text="Characters per chapter.")
    memory_budget = models.PositiveIntegerField(
        default=6000, help_text="Tokens for the memory part of each draft prompt."
    )
    # Blank means the site default for that role (settings.LLM_DEFAULT_MODELS).
    planner_model = models.CharField(max_length=100, blank=True)
    writer_model = models.CharField(max_length=100, blank=True)
    extractor_model = models.CharField(max_length=100, blank=True)
    reviewer_model = models.CharField(max_length=100, blank=True)
    embedding_model = models.CharField(max_length=100, blank=True)
    # One threshold does not carry across embedding models, so it lives beside the model name.
    embedding_min_score = models.FloatField(null=True, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at"]

    def __str__(self) -> str:
        return self.title


class Membership(models.Model):
    novel = models.ForeignKey(Novel, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=10, choices=Role.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["novel", "user"], name="membership_unique_user")]

    def __str__(self) -> str:
        return f"{self.user_id} as {self.role} of {self.novel_id}"


class Architecture(models.Model):
    """The snowflake method's four parts; each is editable before the next step runs."""

    novel = models.OneToOneField(Novel, on_delete=models.CASCADE, related_name="architecture")
    core_seed = models.TextField(blank=True)
    characters = models.TextField(blank=True)
    world = models.TextField(blank=True)
    plot_arcs = models.TextField(blank=True)
    # Which model wrote each part ("demo" for the offline demo model), so pages can label it.
    sources = models.JSONField(default=dict, blank=True)
    updated_at = models.DateTimeField(auto_now=True)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    PARTS = ("core_seed", "characters", "world", "plot_arcs")

    def __str__(self) -> str:
        return f"architecture of {self.novel_id}"


class BlueprintCard(models.Model):
    """A chapter's construction drawing: the seven fields of seed 003."""

    novel = models.ForeignKey(Novel, on_delete=models.CASCADE, related_name="cards")
    number = models.PositiveIntegerField()
    window_start = models.PositiveIntegerField()
    title = models.CharField(max_length=300)
    position = models.TextField(help_text="Where the chapter stands in the story.")
    core_function = models.TextField()
    suspense_density = models.PositiveSmallIntegerField()
    # [{"op": "plant"|"reinforce"|"payoff", "thread": "T3" or "", "summary": "..."}]
    foreshadowing = models.JSONField(default=list, blank=True)
    cognitive_twist = models.PositiveSmallIntegerField()
    brief = models.TextField()
    model_label = models.CharField(max_length=100, blank=True)
    edited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    edited_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(fields=["novel", "number"], name="card_unique_number"),
            models.CheckConstraint(
                condition=models.Q(suspense_density__gte=1, suspense_density__lte=5), name="card_suspense_1_5"
            ),
            models.CheckConstraint(
                condition=models.Q(cognitive_twist__gte=1, cognitive_twist__lte=5), name="card_twist_1_5"
            ),
        ]

    def __str__(self) -> str:
        return f"card {self.number}: {self.title}"


class ChapterStatus(models.TextChoices):
    PLANNED = "planned", "Planned"
    DRAFTED = "drafted", "Drafted"
    REVIEWED = "reviewed", "Reviewed"
    FINALIZED = "finalized", "Finalized"


class Chapter(models.Model):
    novel = models.ForeignKey(Novel, on_delete=models.CASCADE, related_name="chapters")
    number = models.PositiveIntegerField()
    title = models.CharField(max_length=300, blank=True)
    status = models.CharField(max_length=12, choices=ChapterStatus.choices, default=ChapterStatus.PLANNED)
    text = models.TextField(blank=True)
    # The revision whose text memory was built from; a text change after it makes re-finalize meaningful.
    finalized_revision = models.ForeignKey(
        "ChapterRevision", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    finalized_at = models.DateTimeField(null=True, blank=True)
    finalize_count = models.PositiveIntegerField(default=0)
    # Set when an earlier chapter was re-finalized after this one was finalized.
    memory_stale = models.BooleanField(default=False)
    # What the last finalize wrote memory from (validated summary and extraction
    # output, the thread ids the extraction cited): lets a cascade re-apply a
    # later chapter on top of corrected earlier memory without calling the model.
    memory_input = models.JSONField(default=dict, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["number"]
        constraints = [models.UniqueConstraint(fields=["novel", "number"], name="chapter_unique_number")]

    def __str__(self) -> str:
        return f"{self.novel_id}:{self.number}"


class RevisionSource(models.TextChoices):
    DRAFT = "draft", "Draft"
    REVISION = "revision", "Revision after review"
    MANUAL = "manual", "Edited by hand"
    IMPORT = "import", "Imported"


class ChapterRevision(models.Model):
    chapter = models.ForeignKey(Chapter, on_delete=models.CASCADE, related_name="revisions")
    text = models.TextField()
    source = models.CharField(max_length=10, choices=RevisionSource.choices)
    model_label = models.CharField(max_length=100, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"revision {self.pk} of chapter {self.chapter_id} ({self.source})"
