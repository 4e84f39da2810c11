"""Run the web server and a Celery worker together in the foreground.

Ctrl-C (or either process dying) stops both."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def main() -> int:
    host = os.environ.get("HOST", "127.0.0.1")
    port = os.environ.get("PORT", "8000")
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    web = subprocess.Popen(
        [str(BIN / "gunicorn"), "config.wsgi", "--bind", f"{host}:{port}", "--workers", "2", "--threads", "4",
         "--timeout", "120", "--access-logfile", "-"],
        cwd=ROOT, env=env,
    )
    worker = subprocess.Popen(
        [str(BIN / "celery"), "-A", "config", "worker", "--loglevel", "INFO", "--concurrency", "2"],
        cwd=ROOT, env=env,
    )
    procs = [web, worker]
    print(f"\nInkstone is running at http://{host}:{port}/  (Ctrl-C stops the web server and the worker)\n", flush=True)

    stopping = False

    def stop(*_: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    while not stopping and all(p.poll() is None for p in procs):
        time.sleep(0.3)
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    deadline = time.time() + 15
    for p in procs:
        try:
            p.wait(timeout=max(0.1, deadline - time.time()))
        except subprocess.TimeoutExpired:
            p.kill()
    return 0 if stopping else 1


if __name__ == "__main__":
    sys.exit(main())
