import os

from celery import Celery
from celery.signals import worker_ready

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("inkstone")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.task(name="inkstone.ping")
def ping() -> str:
    return "pong"


@worker_ready.connect
def _announce_worker(**_: object) -> None:
    from generation.worker_heartbeat import start_heartbeat_thread

    start_heartbeat_thread()
