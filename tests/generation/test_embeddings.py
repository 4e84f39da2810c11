"""With an embedding model configured, finalized passages get vectors in the wire format
through the same client, retrieval sees them, and a cascade keeps them without new calls."""

from __future__ import annotations

import pytest

from generation.chapter_steps import finalize_write
from generation.models import GenerationJob, JobKind, JobStatus, LLMCall
from memory.core.vector import decode_vector
from memory.models import Passage
from novels.models import Chapter
from tests.generation.inline import plan_inline, run_inline

pytestmark = pytest.mark.django_db(transaction=True)



@pytest.fixture
def embedded_novel(members, use_fake_openai):  # type: ignore[no-untyped-def]
    return plan_inline(members.novel, embedding_model="text-embedding-3-small", embedding_min_score=0.1)


def test_finalized_passages_carry_vectors_and_drafts_score_them(embedded_novel):
    from generation.autopilot import autopilot_request

    novel = embedded_novel
    run_inline(autopilot_request(novel=novel, start=1, end=3, enqueue=False)[0])
    rows = Passage.objects.filter(novel=novel, chapter__lte=2)
    assert rows.exists() and all(r.embedding and r.embedding_model == "text-embedding-3-small" for r in rows)
    assert all(decode_vector(r.embedding) for r in rows)
    assert LLMCall.objects.filter(job__novel=novel, role="embedding").exists()
    draft = GenerationJob.objects.get(novel=novel, kind=JobKind.DRAFT, chapter_number=3)
    scores = draft.context_snapshot["retrieval_scores"]
    assert all("vector_similarity" in s for s in scores)


def test_cascade_rewrite_keeps_vectors_without_embedding_calls(embedded_novel):
    from generation.autopilot import autopilot_request

    novel = embedded_novel
    run_inline(autopilot_request(novel=novel, start=1, end=2, enqueue=False)[0])
    before = dict(Passage.objects.filter(novel=novel, chapter=2).values_list("text", "embedding"))
    calls = LLMCall.objects.filter(role="embedding").count()
    chapter = Chapter.objects.get(novel=novel, number=2)
    job = GenerationJob.objects.create(novel=novel, kind=JobKind.CASCADE, status=JobStatus.RUNNING)
    finalize_write(job=job, novel=novel, chapter_number=2, memory_input=chapter.memory_input, cascade=True)
    after = dict(Passage.objects.filter(novel=novel, chapter=2).values_list("text", "embedding"))
    assert after == before
    assert LLMCall.objects.filter(role="embedding").count() == calls
