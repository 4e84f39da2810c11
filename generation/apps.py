from django.apps import AppConfig


class GenerationConfig(AppConfig):
    name = "generation"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Job handlers register themselves by kind when their modules load; the web
        # process, the worker and shell commands all need the same registry.
        from generation import autopilot, chapter_steps, planning  # noqa: F401
