"""Without a key, the whole flow runs offline with the demo model from the shell — and,
in the embedded suite, on SQLite with the filesystem broker and a real worker."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from memory.models import ChapterSummary
from novels.models import BlueprintCard, Chapter, ChapterStatus, Novel


@pytest.fixture
def offline(settings):  # type: ignore[no-untyped-def]
    settings.OPENAI_API_KEY = ""
    settings.OPENAI_BASE_URL = ""


@pytest.mark.embedded
@pytest.mark.worker
def test_demo_model_plans_and_writes_through_the_worker(members, offline, celery_worker):
    out = StringIO()
    call_command("plan_novel", title="The Salt Road", premise="A smuggler carries a sealed letter across the desert.",
                 owner="owner", chapters=30, windows=2, worker=True, stdout=out)
    text = out.getvalue()
    assert "offline DEMO model" in text
    novel = Novel.objects.get(title="The Salt Road")
    assert list(BlueprintCard.objects.filter(novel=novel).values_list("number", flat=True)) == list(range(1, 31))
    assert all(c.model_label == "demo" for c in BlueprintCard.objects.filter(novel=novel))
    out = StringIO()
    call_command("write_chapters", novel=novel.pk, end=4, worker=True, stdout=out)
    assert Chapter.objects.filter(novel=novel, status=ChapterStatus.FINALIZED).count() == 4
    assert ChapterSummary.objects.filter(novel=novel).count() == 4
    assert "the offline DEMO model" in out.getvalue()


@pytest.mark.django_db(transaction=True)
def test_demo_model_plan_inline_prints_a_complete_plan(members, offline):
    out = StringIO()
    call_command("plan_novel", title="盐路", premise="一个走私者带着一封封好的信穿越沙漠。", owner="owner",
                 chapters=25, stdout=out)
    novel = Novel.objects.get(title="盐路")
    assert novel.language == "zh"
    assert BlueprintCard.objects.filter(novel=novel).count() == 25
    assert "== blueprint ==" in out.getvalue()
