"""The real openai client against the local test server: streaming, usage, retries, timeouts, errors."""

from __future__ import annotations

import logging
import time

import pytest

from generation.llm import LLMError, llm_for
from generation.models import GenerationJob, LLMCall
from generation.schemas import ArchitecturePartOut
from tests.fakeopenai import Reply

PART = {"text": "A keeper finds a letter addressed to himself, written in his own hand, twenty years ago."}
CONTEXT = {"title": "The Lighthouse Keeper", "premise": "A keeper finds a letter in a bottle.", "guidance": ""}


def _ask(novel, job=None, **kwargs):
    return llm_for(novel).structured(
        role="planner", task="architecture_core_seed", context=CONTEXT, schema=ArchitecturePartOut,
        job_id=job.pk if job else None, **kwargs,
    )


def test_stream_chunks_arrive_in_order_and_land_on_the_job_row(use_fake_openai, novel, job):
    use_fake_openai.script(content="", chunks=["The tide ", "was out ", "when the ", "letter came."])
    seen: list[str] = []
    text = llm_for(novel).stream_text(role="writer", task="draft", context={"chapter_number": 1}, job_id=job.pk,
                                      on_chunk=seen.append)
    assert seen == ["The tide ", "was out ", "when the ", "letter came."]
    assert text == "The tide was out when the letter came."
    job.refresh_from_db()
    assert job.stream_text == text


def test_stream_progress_shows_on_the_row_before_the_stream_ends(use_fake_openai, novel, job):
    use_fake_openai.script(content="", chunks=["one ", "two ", "three ", "four"], chunk_delay=0.3)
    row_during: list[str] = []

    def peek(_piece: str) -> None:
        row_during.append(GenerationJob.objects.get(pk=job.pk).stream_text)

    llm_for(novel).stream_text(role="writer", task="draft", context={}, job_id=job.pk, on_chunk=peek)
    assert row_during[-1].startswith("one two")  # flushed by time (0.5 s) before the last chunk


def test_stream_asks_for_usage_and_records_it(use_fake_openai, novel, job):
    use_fake_openai.script(content="A short streamed answer.")
    llm_for(novel).stream_text(role="writer", task="draft", context={}, job_id=job.pk)
    body = use_fake_openai.chat_requests()[-1].body
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    call = LLMCall.objects.get(job=job)
    assert call.role == "writer" and call.tokens_out == 6  # the server's count: ceil(24 / 4)


def test_usage_is_estimated_when_the_server_sends_none(use_fake_openai, novel, job):
    use_fake_openai.script(content="Streamed without a usage chunk.", usage=False)
    llm_for(novel).stream_text(role="writer", task="draft", context={}, job_id=job.pk)
    call = LLMCall.objects.get(job=job)
    assert call.tokens_in > 0 and call.tokens_out > 0


def test_every_call_records_a_row_and_adds_to_the_job_totals(use_fake_openai, novel, job):
    use_fake_openai.script(Reply(content="not json"), Reply.json(PART))
    _ask(novel, job)
    calls = list(LLMCall.objects.filter(job=job).order_by("id"))
    assert [c.role for c in calls] == ["planner", "planner"]
    assert all(c.tokens_in > 0 and c.tokens_out > 0 and c.prompt_chars > 0 for c in calls)
    job.refresh_from_db()
    assert job.tokens_in == sum(c.tokens_in for c in calls)
    assert job.tokens_out == sum(c.tokens_out for c in calls)
    assert job.model == "gpt-4o-mini" and job.cost_estimate > 0


def test_429_with_retry_after_then_success_waits_and_succeeds(use_fake_openai, novel, job):
    use_fake_openai.script(Reply.error(429, retry_after="1"), Reply.json(PART))
    started = time.monotonic()
    out = _ask(novel, job)
    assert out.text == PART["text"]
    first, second = use_fake_openai.chat_requests()
    assert second.at - first.at >= 0.95
    assert time.monotonic() - started >= 0.95
    assert LLMCall.objects.get(job=job).attempts == 2


def test_retry_after_is_capped(use_fake_openai, novel, settings):
    settings.LLM_RETRY_MAX_WAIT_SECONDS = 0.2
    use_fake_openai.script(Reply.error(429, retry_after="120"), Reply.json(PART))
    started = time.monotonic()
    _ask(novel)
    assert time.monotonic() - started < 5


def test_500_then_success_succeeds(use_fake_openai, novel):
    use_fake_openai.script(Reply.error(500), Reply.error(503), Reply.json(PART))
    assert _ask(novel).text == PART["text"]
    assert len(use_fake_openai.chat_requests()) == 3


def test_server_errors_past_the_retry_limit_fail_with_a_clear_message(use_fake_openai, novel, settings):
    settings.LLM_MAX_RETRIES = 2
    use_fake_openai.script(*[Reply.error(502)] * 3)
    with pytest.raises(LLMError, match=r"failed 3 times in a row \(last: HTTP 502\)"):
        _ask(novel)


def test_slow_response_past_the_timeout_is_retried_then_fails_clearly(use_fake_openai, novel, settings):
    settings.LLM_TIMEOUT_SECONDS = 0.3
    settings.LLM_MAX_RETRIES = 1
    use_fake_openai.script(Reply.slow(1.5), Reply.slow(1.5))
    with pytest.raises(LLMError) as err:
        _ask(novel)
    assert "no answer within 0.3 s" in str(err.value)
    assert "INKSTONE_LLM_TIMEOUT" in str(err.value)
    assert len(use_fake_openai.chat_requests()) == 2


def test_slow_response_then_fast_one_succeeds(use_fake_openai, novel, settings):
    settings.LLM_TIMEOUT_SECONDS = 0.3
    use_fake_openai.script(Reply.slow(1.5), Reply.json(PART))
    assert _ask(novel).text == PART["text"]


@pytest.mark.parametrize("status", [400, 401, 404])
def test_client_errors_fail_at_once_without_retry(use_fake_openai, novel, status):
    use_fake_openai.script(Reply.error(status))
    with pytest.raises(LLMError, match=f"HTTP {status}"):
        _ask(novel)
    assert len(use_fake_openai.chat_requests()) == 1


def test_api_key_never_appears_in_errors_or_logs(use_fake_openai, novel, settings, caplog):
    secret = "sk-proj-SECRETabcdef1234567890"
    settings.OPENAI_API_KEY = secret
    use_fake_openai.script(Reply.error(429), Reply.error(401, message=f"Incorrect API key provided: {secret}"))
    caplog.set_level(logging.DEBUG)
    with pytest.raises(LLMError) as err:
        _ask(novel)
    assert "HTTP 401" in str(err.value) and "OPENAI_API_KEY" in str(err.value)
    assert secret not in str(err.value)
    assert "SECRETabcdef" not in caplog.text
    assert caplog.records  # the retry was logged, without the key


def test_task_metadata_is_sent_only_when_enabled(use_fake_openai, novel, settings):
    use_fake_openai.script(Reply.json(PART), Reply.json(PART))
    _ask(novel)
    settings.LLM_SEND_TASK_METADATA = False
    _ask(novel)
    with_meta, without_meta = (r.body for r in use_fake_openai.chat_requests())
    assert with_meta["inkstone_task"] == "architecture_core_seed"
    assert with_meta["inkstone_context"]["title"] == "The Lighthouse Keeper"
    assert with_meta["inkstone_language"] == "en"
    assert "inkstone_task" not in without_meta


def test_structured_calls_ask_for_a_json_object_with_the_role_model(use_fake_openai, novel):
    novel.planner_model = "my-planner"
    use_fake_openai.script(Reply.json(PART))
    _ask(novel)
    body = use_fake_openai.chat_requests()[0].body
    assert body["response_format"] == {"type": "json_object"}
    assert body["model"] == "my-planner"
    assert use_fake_openai.chat_requests()[0].authorized


def test_default_responder_answers_like_the_demo_model(use_fake_openai, novel):
    out = _ask(novel)
    assert "The Lighthouse Keeper" in out.text


def test_embeddings_come_back_in_the_vector_wire_format(use_fake_openai, novel, job):
    from memory.core.vector import decode_vector

    novel.embedding_model = "text-embedding-3-small"
    vectors = llm_for(novel).embed(texts=["the bottle", "the letter"], job_id=job.pk)
    assert vectors is not None and len(vectors) == 2
    decoded = decode_vector(vectors[0])
    assert decoded is not None and len(decoded) == 8
    assert abs(sum(x * x for x in decoded) - 1) < 1e-4
    assert LLMCall.objects.get(job=job).role == "embedding"


def test_no_embeddings_without_an_embedding_model(use_fake_openai, novel):
    assert llm_for(novel).embed(texts=["x"]) is None
    assert use_fake_openai.requests == []
