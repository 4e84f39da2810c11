"""A real Celery worker process for integration tests.

It consumes from a queue private to this test session and opens the same test
database as the test process (committed data only: tests using it need
`transactional_db`)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parent.parent


class WorkerProcess:
    def __init__(self, *, queue: str, env: dict[str, str]) -> None:
        self.queue = queue
        self.env = env
        self.proc: subprocess.Popen[str] | None = None
        self.log: list[str] = []
        self._ready = threading.Event()

    def start(self, timeout: float = 60) -> None:
        self._ready.clear()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", self.queue, "--pool", "solo",
             "--loglevel", "INFO", "--without-gossip", "--without-mingle", "-n", f"{self.queue}@%h"],
            cwd=ROOT, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        threading.Thread(target=self._pump, daemon=True).start()
        if not self._ready.wait(timeout):
            self.stop()
            raise RuntimeError("worker did not become ready:\n" + "".join(self.log[-50:]))

    def _pump(self) -> None:
        assert self.proc and self.proc.stdout
        for line in self.proc.stdout:
            self.log.append(line)
            if " ready." in line:
                self._ready.set()

    def kill(self) -> None:
        """SIGKILL: the worker dies mid-task with no chance to clean up."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)

    def output(self) -> str:
        return "".join(self.log)


def worker_env(*, queue: str, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env["INKSTONE_QUEUE"] = queue
    env["INKSTONE_DATABASE_NAME"] = str(connection.settings_dict["NAME"])
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra or {})
    return env


@pytest.fixture
def celery_worker(transactional_db: None, settings_llm_env: dict[str, str]) -> Iterator[WorkerProcess]:
    from config.celery import app

    queue = f"test-{uuid.uuid4().hex[:10]}"
    previous = app.conf.task_default_queue
    app.conf.task_default_queue = queue
    app.amqp.__dict__.pop("queues", None)
    app.amqp.__dict__.pop("_producer_pool", None)
    worker = WorkerProcess(queue=queue, env=worker_env(queue=queue, extra=settings_llm_env))
    worker.start()
    try:
        yield worker
    finally:
        worker.stop()
        app.conf.task_default_queue = previous


def wait_for(predicate, *, timeout: float = 60, interval: float = 0.2, what: str = "condition"):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


__all__ = ["WorkerProcess", "celery_worker", "settings", "wait_for", "worker_env"]
