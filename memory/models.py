"""The book's memory. Every row records the chapter that produced it (so a
re-finalize can replace exactly that chapter's contributions) and, when a
person corrected it, who and when (so their fix survives other chapters'
re-finalization)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from novels.models import Novel


class Provenance(models.Model):
    novel = models.ForeignKey(Novel, on_delete=models.CASCADE, related_name="+")
    # Null for rows a person created or that come from planning rather than a chapter.
    source_chapter = models.PositiveIntegerField(null=True, blank=True, db_index=True)
    edited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    edited_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        abstract = True


class GlobalSummary(Provenance):
    """One version per finalized chapter; the newest is the current one (≤ 2000 characters)."""

    MAX_CHARS = 2000
    chapter = models.PositiveIntegerField()
    text = models.TextField()

    class Meta:
        ordering = ["-chapter"]
        constraints = [models.UniqueConstraint(fields=["novel", "chapter"], name="globalsummary_unique_chapter")]

    def __str__(self) -> str:
        return f"global summary after chapter {self.chapter}"


class ChapterSummary(Provenance):
    chapter = models.PositiveIntegerField()
    summary = models.TextField()
    # One line, so all twelve skeleton entries usually fit their share of the budget.
    skeleton = models.CharField(max_length=400)

    class Meta:
        ordering = ["chapter"]
        constraints = [models.UniqueConstraint(fields=["novel", "chapter"], name="chaptersummary_unique_chapter")]

    def __str__(self) -> str:
        return f"summary of chapter {self.chapter}"


class Character(Provenance):
    name = models.CharField(max_length=200)
    aliases = models.JSONField(default=list, blank=True)
    description = models.TextField(blank=True)

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["novel", "name"], name="character_unique_name")]

    def __str__(self) -> str:
        return self.name


class CharacterState(Provenance):
    """A version of a character's state tree as of a chapter (0 = the initial state from planning).

    `state` is the whole tree after the chapter; `changes` is what that chapter
    changed, kept so a later re-finalize can replay from an earlier version."""

    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="states")
    chapter = models.PositiveIntegerField()
    # {"alive": bool, "location": str, "physical": str, "mental": str,
    #  "items": [str], "abilities": [str], "relationships": {name: str}}
    state = models.JSONField(default=dict)
    changes = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["character_id", "-chapter"]
        constraints = [models.UniqueConstraint(fields=["character", "chapter"], name="characterstate_unique_chapter")]

    def __str__(self) -> str:
        return f"state of {self.character_id} at chapter {self.chapter}"


class Passage(Provenance):
    """A slice of a finalized chapter for retrieval of distant passages."""

    chapter = models.PositiveIntegerField(db_index=True)
    ordinal = models.PositiveIntegerField()
    text = models.TextField()
    entities = models.JSONField(default=list, blank=True)
    # memory.core.vector wire format: base64 of little-endian float32, normalised.
    embedding = models.TextField(blank=True)
    embedding_model = models.CharField(max_length=100, blank=True)

    class Meta:
        ordering = ["chapter", "ordinal"]
        constraints = [models.UniqueConstraint(fields=["novel", "chapter", "ordinal"], name="passage_unique_ordinal")]

    def __str__(self) -> str:
        return f"passage {self.ordinal} of chapter {self.chapter}"


class Fact(Provenance):
    text = models.TextField()
    passage = models.ForeignKey(Passage, on_delete=models.SET_NULL, null=True, blank=True, related_name="facts")
    entities = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["source_chapter", "id"]

    def __str__(self) -> str:
        return self.text[:80]


class ThreadStatus(models.TextChoices):
    OPEN = "open", "Open"
    PROGRESSING = "progressing", "Progressing"
    RESOLVED = "resolved", "Resolved"


class Thread(Provenance):
    """A promise the book made (foreshadowing, a setup). `number` is its stable [T#] label."""

    number = models.PositiveIntegerField()
    summary = models.TextField()
    kind = models.CharField(max_length=40, default="foreshadowing")
    status = models.CharField(max_length=12, choices=ThreadStatus.choices, default=ThreadStatus.OPEN)
    opened_at = models.PositiveIntegerField(null=True, blank=True)
    last_activated_at = models.PositiveIntegerField(null=True, blank=True)
    deadline = models.PositiveIntegerField(null=True, blank=True)
    resolved_at = models.PositiveIntegerField(null=True, blank=True)
    resolution_note = models.TextField(blank=True)
    # Created from a blueprint card's planned operation rather than from prose.
    planned = models.BooleanField(default=False)

    class Meta:
        ordering = ["number"]
        constraints = [models.UniqueConstraint(fields=["novel", "number"], name="thread_unique_number")]

    def __str__(self) -> str:
        return f"{self.label} {self.summary[:60]}"

    @property
    def label(self) -> str:
        # Stable ledger label; prompts number live threads [T1..Tn] by position instead.
        return f"#{self.number}"


class ThreadEvent(models.Model):
    """Every change to a thread; `before` lets a re-finalize undo exactly one chapter's events."""

    thread = models.ForeignKey(Thread, on_delete=models.CASCADE, related_name="events")
    chapter = models.PositiveIntegerField(null=True, blank=True, db_index=True)
    action = models.CharField(max_length=20)  # plan, open, progress, resolve, edit
    note = models.TextField(blank=True)
    before = models.JSONField(default=dict, blank=True)
    after = models.JSONField(default=dict, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.action} of thread {self.thread_id} at chapter {self.chapter}"
