"""Re-finalize and the cascade, run inline through job rows against the local model server."""

from __future__ import annotations

import pytest

from generation.autopilot import autopilot_request
from generation.chapter_steps import cascade_request, chapter_finalize_request, chapter_text_edit
from generation.models import JobStatus
from memory.models import Fact
from memory.services import fact_edit
from novels.models import Chapter
from tests.generation.inline import plan_inline, run_inline

pytestmark = pytest.mark.django_db(transaction=True)



@pytest.fixture
def written(members, use_fake_openai):  # type: ignore[no-untyped-def]
    novel = plan_inline(members.novel)
    assert run_inline(autopilot_request(novel=novel, start=1, end=8, enqueue=False)[0]).status == JobStatus.SUCCEEDED
    return novel


def _refinalize_five(novel, members):  # type: ignore[no-untyped-def]
    chapter = Chapter.objects.get(novel=novel, number=5)
    chapter_text_edit(chapter=chapter, text=chapter.text + "\n\nA gull cried twice.", user=members.editor)
    assert run_inline(chapter_finalize_request(novel=novel, number=5, enqueue=False)[0]).status == JobStatus.SUCCEEDED


def test_cascade_interrupted_by_a_crash_resumes_at_the_first_flagged_chapter(written, members, monkeypatch):
    _refinalize_five(written, members)
    monkeypatch.setenv("INKSTONE_FAULT_POINTS", "finalize_write.7=raise")
    crashed = run_inline(cascade_request(novel=written, enqueue=False)[0])
    assert crashed.status == JobStatus.FAILED
    assert list(Chapter.objects.filter(novel=written, memory_stale=True).values_list("number", flat=True)) == [7, 8]
    monkeypatch.delenv("INKSTONE_FAULT_POINTS")
    resumed = run_inline(cascade_request(novel=written, enqueue=False)[0])
    assert resumed.status == JobStatus.SUCCEEDED and resumed.progress == 2
    assert not Chapter.objects.filter(novel=written, memory_stale=True).exists()


def test_editors_fix_to_another_chapters_fact_survives_refinalize_and_cascade(written, members):
    fact = Fact.objects.filter(novel=written, source_chapter=3).first()
    assert fact is not None
    fact_edit(fact=fact, text="The keeper's lamp is green, not red.", user=members.editor)
    _refinalize_five(written, members)
    assert run_inline(cascade_request(novel=written, enqueue=False)[0]).status == JobStatus.SUCCEEDED
    fact.refresh_from_db()
    assert fact.text == "The keeper's lamp is green, not red." and fact.edited_by == members.editor


def test_finalize_of_an_unchanged_finalized_chapter_is_a_no_op(written):
    before = Chapter.objects.get(novel=written, number=4).finalize_count
    job = run_inline(chapter_finalize_request(novel=written, number=4, enqueue=False)[0])
    assert job.status == JobStatus.SUCCEEDED and job.result.get("noop")
    assert Chapter.objects.get(novel=written, number=4).finalize_count == before == 1
