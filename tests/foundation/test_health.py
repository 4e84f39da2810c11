"""/healthz: database, broker and worker reachability as JSON; 503 when one is down."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlparse, urlunparse

import pytest
from django.conf import settings
from django.db import connection

from tests.worker import wait_for


@pytest.fixture
def no_worker(settings, tmp_path) -> Iterator[None]:  # type: ignore[no-untyped-def]
    """A broker no worker listens on, whatever else runs on this machine (other test runs, `make run`)."""
    if settings.BROKER_KIND == "filesystem":
        settings.VAR_DIR = tmp_path  # the heartbeat files live under VAR_DIR/workers: none here
        yield
        return
    from config.celery import app

    # An otherwise unused Redis database: its broadcast channel has no workers.
    url = urlparse(settings.REDIS_URL)
    empty = urlunparse(url._replace(path="/13" if url.path != "/13" else "/12"))
    previous = app.conf.broker_url
    app.conf.update(broker_url=empty)
    app._pool = None  # type: ignore[attr-defined]  # the connection pool is built from broker_url once
    try:
        yield
    finally:
        app.conf.update(broker_url=previous)
        app._pool = None  # type: ignore[attr-defined]


@pytest.mark.django_db
def test_healthz_reports_database_broker_and_worker_as_json(client):
    response = client.get("/healthz")
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert {"ok", "database", "broker", "worker"} <= body.keys()
    assert all("ok" in body[part] for part in ("database", "broker", "worker"))


@pytest.mark.django_db
def test_healthz_is_503_when_no_worker_answers(client, no_worker):
    response = client.get("/healthz")
    body = response.json()
    assert response.status_code == 503
    assert (body["ok"], body["worker"]["ok"]) == (False, False)
    assert body["database"]["ok"] and body["broker"]["ok"]


@pytest.mark.worker
@pytest.mark.embedded
def test_healthz_is_200_when_a_worker_runs(client, celery_worker):
    response = wait_for(lambda: (r := client.get("/healthz")).status_code == 200 and r, timeout=30, what="/healthz to see the worker")
    body = response.json()
    assert body["ok"] and body["database"]["ok"] and body["broker"]["ok"] and body["worker"]["ok"]
    assert body["database"]["vendor"] == connection.vendor
    assert body["broker"]["kind"] == settings.BROKER_KIND
