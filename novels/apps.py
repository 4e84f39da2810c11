from django.apps import AppConfig


class NovelsConfig(AppConfig):
    name = "novels"
    default_auto_field = "django.db.models.BigAutoField"
