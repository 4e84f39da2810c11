"""Make sure an admin account exists, never asking interactively.

The first time, a random password is generated, stored under var/ (mode 600)
and printed; later runs only say where it is."""

from __future__ import annotations

import secrets
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Create the admin account if missing and print how to log in."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--username", default="admin")

    def handle(self, *args: Any, username: str, **options: Any) -> None:
        user_model = get_user_model()
        path = settings.VAR_DIR / "initial_admin_password"
        if user_model.objects.filter(username=username).exists():
            hint = f"the password in {path}" if path.exists() else "the password you set"
            self.stdout.write(f"Admin account exists: log in as '{username}' with {hint}.")
            return
        password = secrets.token_urlsafe(12)
        user_model.objects.create_superuser(username=username, email="", password=password)
        path.write_text(password + "\n")
        path.chmod(0o600)
        self.stdout.write(f"Created admin account: username '{username}', password '{password}' (also in {path}).")
