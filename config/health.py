"""/healthz: database, broker and worker reachability, 503 when one is down."""

from __future__ import annotations

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse


def _check_database() -> dict[str, object]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
        return {"ok": True, "vendor": connection.vendor}
    except Exception as exc:  # any driver error means "down"
        return {"ok": False, "vendor": connection.vendor, "error": type(exc).__name__}


def _check_broker() -> dict[str, object]:
    from config.celery import app

    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
        return {"ok": True, "kind": settings.BROKER_KIND}
    except Exception as exc:
        return {"ok": False, "kind": settings.BROKER_KIND, "error": type(exc).__name__}


def _check_worker() -> dict[str, object]:
    from config.celery import app

    if settings.BROKER_KIND == "filesystem":
        # The filesystem transport has no broadcast channel, so workers announce
        # themselves with a heartbeat file instead of answering a ping.
        from generation.worker_heartbeat import worker_alive

        alive = worker_alive()
        return {"ok": alive, "how": "heartbeat file"}
    try:
        replies = app.control.ping(timeout=1.0)
        return {"ok": bool(replies), "workers": len(replies or []), "how": "ping"}
    except Exception as exc:
        return {"ok": False, "error": type(exc).__name__}


def healthz(request: HttpRequest) -> JsonResponse:
    checks = {"database": _check_database(), "broker": _check_broker(), "worker": _check_worker()}
    ok = all(bool(c["ok"]) for c in checks.values())
    return JsonResponse({"ok": ok, **checks}, status=200 if ok else 503)
