"""Fault points for crash tests: the only way to kill a worker at an exact spot
inside a transaction. Inert unless INKSTONE_FAULT_POINTS names the point, e.g.
INKSTONE_FAULT_POINTS="finalize_write=sleep:30" (used by the SIGKILL test)."""

from __future__ import annotations

import os
import time

from django.conf import settings


def fault_point(name: str) -> None:
    spec = os.environ.get("INKSTONE_FAULT_POINTS", "")
    if not spec:
        return
    for item in spec.split(","):
        point, _, action = item.partition("=")
        if point.strip() != name:
            continue
        marker = settings.VAR_DIR / "faults"
        marker.mkdir(parents=True, exist_ok=True)
        (marker / f"{name}.reached").write_text(str(os.getpid()))
        kind, _, arg = action.partition(":")
        if kind == "sleep":
            time.sleep(float(arg or 30))
        elif kind == "raise":
            raise RuntimeError(f"fault injected at {name}")
