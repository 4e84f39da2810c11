"""Issue 5's thread rules end to end: the extractor (scripted through the local server)
cites the [T#] list it was shown; the ledger follows memory.core.threads."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from generation.autopilot import autopilot_request
from generation.models import JobStatus
from generation.planning import ARCHITECTURE_STEPS, architecture_step_request, blueprint_window_request
from memory.models import Thread, ThreadEvent
from tests.integration.conftest import wait_job

pytestmark = [pytest.mark.worker]

CHEST = "the captain's locked sea chest"


def _label(known: str, needle: str) -> str:
    for line in known.splitlines():
        match = re.match(r"\[(T\d+)\]", line.strip())
        if match and needle in line:
            return match.group(1)
    raise AssertionError(f"{needle!r} is not in the list the extractor was shown:\n{known}")


def _extraction(context: dict[str, Any], default: str) -> str | None:
    chapter = context["chapter_number"]
    answer = json.loads(default)
    if chapter == 3:
        answer["threads"] = [{"action": "open", "summary": CHEST, "deadline_chapter": 0}]
    elif chapter == 4:
        answer["threads"] = [
            {"action": "progress", "ref": _label(context["known_threads"], CHEST), "summary": "the chest is found empty"},
            {"action": "progress", "ref": "T99", "summary": "a ghost thread"},
            {"action": "resolve", "ref": "[T99]", "summary": "another ghost"},
        ]
    elif chapter == 6:
        answer["threads"] = [{"action": "resolve", "ref": _label(context["known_threads"], CHEST),
                              "summary": CHEST, "resolution_note": "the key was in the lighthouse lamp"}]
    else:
        answer["threads"] = []
    return json.dumps(answer, ensure_ascii=False)


def test_deadline_zero_progress_and_hallucinated_refs(book_novel, celery_worker, use_fake_openai):
    novel = book_novel
    use_fake_openai.on_task("finalize_extract", _extraction)
    for part in ARCHITECTURE_STEPS:
        assert wait_job(architecture_step_request(novel=novel, part=part)[0].pk).status == JobStatus.SUCCEEDED
    assert wait_job(blueprint_window_request(novel=novel, start=1)[0].pk).status == JobStatus.SUCCEEDED
    planned = set(Thread.objects.filter(novel=novel).values_list("pk", flat=True))

    job, _ = autopilot_request(novel=novel, start=1, end=4)
    assert wait_job(job.pk, timeout=300).status == JobStatus.SUCCEEDED
    chest = Thread.objects.get(novel=novel, summary=CHEST)
    # "Only the ending can resolve this": deadline 0 means the final chapter, never 0.
    assert chest.opened_at == 3 and chest.deadline == novel.target_chapters
    assert chest.status == "progressing" and chest.last_activated_at == 4
    # [T99] was hallucinated: nothing opened, nothing resolved.
    assert set(Thread.objects.filter(novel=novel).values_list("pk", flat=True)) == planned | {chest.pk}
    assert not ThreadEvent.objects.filter(thread__novel=novel, chapter=4, action="resolve").exists()

    job, _ = autopilot_request(novel=novel, start=5, end=6)
    assert wait_job(job.pk, timeout=300).status == JobStatus.SUCCEEDED
    chest.refresh_from_db()
    # A progressing thread stayed citable in chapter 6's list and could be resolved.
    assert chest.status == "resolved" and chest.resolved_at == 6
    assert chest.resolution_note == "the key was in the lighthouse lamp"
