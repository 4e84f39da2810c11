"""A generation job is a row with a status; that row, not Celery's state, is the truth."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from novels.models import Chapter, Novel


class JobKind(models.TextChoices):
    ARCHITECTURE = "architecture", "Architecture step"
    BLUEPRINT = "blueprint", "Blueprint window"
    DRAFT = "draft", "Draft"
    REVIEW = "review", "Editor's review"
    REVISE = "revise", "Revision"
    FINALIZE = "finalize", "Finalize"
    REFINALIZE = "refinalize", "Re-finalize"
    CASCADE = "cascade", "Re-finalize later chapters"
    IMPORT = "import", "Import manuscript"
    AUTOPILOT = "autopilot", "Autopilot"
    PROBE = "probe", "Worker check"


class JobStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    PAUSED = "paused", "Paused"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


ACTIVE_STATUSES = (JobStatus.QUEUED, JobStatus.RUNNING, JobStatus.PAUSED)


class GenerationJob(models.Model):
    novel = models.ForeignKey(Novel, on_delete=models.CASCADE, related_name="jobs")
    chapter = models.ForeignKey(Chapter, on_delete=models.SET_NULL, null=True, blank=True, related_name="jobs")
    # 0 for novel-wide jobs: NULLs would never collide in the one-active-job constraint.
    chapter_number = models.PositiveIntegerField(default=0)
    kind = models.CharField(max_length=16, choices=JobKind.choices)
    # Distinguishes steps of one kind (e.g. the architecture part, the blueprint window start).
    step = models.CharField(max_length=40, blank=True, default="")
    status = models.CharField(max_length=10, choices=JobStatus.choices, default=JobStatus.QUEUED)
    progress = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(default=0)
    stream_text = models.TextField(blank=True)
    params = models.JSONField(default=dict, blank=True)
    result = models.JSONField(default=dict, blank=True)
    context_snapshot = models.JSONField(default=dict, blank=True)
    model = models.CharField(max_length=100, blank=True)
    tokens_in = models.PositiveIntegerField(default=0)
    tokens_out = models.PositiveIntegerField(default=0)
    cost_estimate = models.DecimalField(max_digits=12, decimal_places=6, default=0)
    error = models.TextField(blank=True)
    attempts = models.PositiveIntegerField(default=0)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            # Asking twice for the same step never starts two jobs.
            models.UniqueConstraint(
                fields=["novel", "kind", "chapter_number", "step"],
                condition=models.Q(status__in=["queued", "running", "paused"]),
                name="job_one_active_per_step",
            )
        ]

    def __str__(self) -> str:
        return f"{self.kind}#{self.pk} ({self.status})"


class LLMCall(models.Model):
    """One model call of a job, so tokens are recorded per call, not only per job."""

    job = models.ForeignKey(GenerationJob, on_delete=models.CASCADE, related_name="calls")
    role = models.CharField(max_length=16)
    model = models.CharField(max_length=100)
    tokens_in = models.PositiveIntegerField(default=0)
    tokens_out = models.PositiveIntegerField(default=0)
    prompt_chars = models.PositiveIntegerField(default=0)
    duration_ms = models.PositiveIntegerField(default=0)
    attempts = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.role} call of job {self.job_id} ({self.tokens_in}+{self.tokens_out} tokens)"


class Severity(models.TextChoices):
    INFO = "info", "Info"
    MINOR = "minor", "Minor"
    MAJOR = "major", "Major"
    CRITICAL = "critical", "Critical"


class ReviewFinding(models.Model):
    job = models.ForeignKey(GenerationJob, on_delete=models.CASCADE, related_name="findings")
    chapter = models.ForeignKey(Chapter, on_delete=models.CASCADE, related_name="findings")
    dimension = models.CharField(max_length=20)  # consistency, continuity, threads, pacing, language, length
    severity = models.CharField(max_length=10, choices=Severity.choices)
    quote = models.TextField(blank=True)
    suggestion = models.TextField(blank=True)
    # "model" or "check" (deterministic, no model needed)
    source = models.CharField(max_length=10, default="model")

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.severity} {self.dimension} finding"
