"""A worker liveness signal that works on every broker, including the
filesystem one that cannot answer a broadcast ping."""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path

from django.conf import settings

logger = logging.getLogger(__name__)

HEARTBEAT_SECONDS = 5
_STALE_AFTER = 3 * HEARTBEAT_SECONDS


def _dir() -> Path:
    path = settings.VAR_DIR / "workers"
    path.mkdir(parents=True, exist_ok=True)
    return path


def worker_alive() -> bool:
    now = time.time()
    return any(now - p.stat().st_mtime < _STALE_AFTER for p in _dir().glob("*.alive"))


def start_heartbeat_thread() -> None:
    path = _dir() / f"{os.getpid()}.alive"

    def beat() -> None:
        from django.db import connection

        from generation.jobs import job_rescue_stale

        while True:
            path.touch()
            try:
                job_rescue_stale()
            except Exception:  # a database hiccup must not kill the liveness signal
                logger.exception("stale job rescue failed")
            finally:
                connection.close()
            time.sleep(HEARTBEAT_SECONDS)

    threading.Thread(target=beat, name="inkstone-heartbeat", daemon=True).start()
