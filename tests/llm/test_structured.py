"""Structured output: fences and prose stripped, one repair round, then an actionable LLMError."""

from __future__ import annotations

import pytest

from generation.llm import LLMError, llm_for
from generation.models import LLMCall
from generation.schemas import ArchitecturePartOut, BlueprintWindowOut, validate_window
from memory.models import Character
from novels.models import Architecture, BlueprintCard
from tests.fakeopenai import Reply

PART = {"text": "A keeper finds a letter addressed to himself, written in his own hand, twenty years ago."}
ZH_PART = {"text": "守夜人在漂流瓶里发现一封写给自己的信，笔迹是他自己的，日期却是二十年前。"}


def _ask(novel, job=None, **kwargs):
    return llm_for(novel).structured(
        role="planner", task="architecture_core_seed", context={"title": novel.title}, schema=ArchitecturePartOut,
        job_id=job.pk if job else None, **kwargs,
    )


def test_json_in_code_fences_parses(use_fake_openai, novel):
    use_fake_openai.script(Reply.json(PART, fenced=True))
    assert _ask(novel).text == PART["text"]
    assert len(use_fake_openai.chat_requests()) == 1


def test_json_after_leading_prose_parses(use_fake_openai, novel):
    use_fake_openai.script(Reply.json(PART, prose="Sure! Here is the core seed:\n"))
    assert _ask(novel).text == PART["text"]
    assert len(use_fake_openai.chat_requests()) == 1


def test_invalid_json_once_is_repaired_in_one_more_round(use_fake_openai, novel):
    use_fake_openai.script(Reply(content='{"text": "unterminated'), Reply.json(PART))
    assert _ask(novel).text == PART["text"]
    _first, repair = use_fake_openai.chat_requests()
    messages = repair.body["messages"]
    assert messages[-2] == {"role": "assistant", "content": '{"text": "unterminated'}
    assert "not valid JSON" in messages[-1]["content"]


def test_schema_violation_is_sent_back_in_the_repair_round(use_fake_openai, novel):
    use_fake_openai.script(Reply.json({"text": "too short"}), Reply.json(PART))
    assert _ask(novel).text == PART["text"]
    assert "text: String should have at least 20 characters" in use_fake_openai.chat_requests()[1].body["messages"][-1]["content"]


def test_invalid_json_twice_raises_an_actionable_error_and_writes_only_usage(use_fake_openai, novel, job):
    use_fake_openai.script(Reply(content="I cannot do that."), Reply(content="Still no JSON, sorry."))
    with pytest.raises(LLMError) as err:
        _ask(novel, job)
    message = str(err.value)
    assert "architecture_core_seed" in message and "planner" in message
    assert "not valid JSON" in message and "Nothing was saved" in message and "Run the step again" in message
    assert LLMCall.objects.filter(job=job).count() == 2
    assert not Architecture.objects.exists() and not BlueprintCard.objects.exists() and not Character.objects.exists()


def test_a_chinese_novels_planner_answering_in_english_is_rejected(use_fake_openai, zh_novel, zh_job):
    use_fake_openai.script(Reply.json(PART), Reply.json(PART))
    with pytest.raises(LLMError, match=r"text is not written in the novel's language \(zh\)"):
        _ask(zh_novel, zh_job)
    assert "中文" in use_fake_openai.chat_requests()[0].body["messages"][0]["content"]


def test_a_chinese_answer_after_the_language_repair_is_accepted(use_fake_openai, zh_novel):
    use_fake_openai.script(Reply.json(PART), Reply.json(ZH_PART))
    assert _ask(zh_novel).text == ZH_PART["text"]


def test_language_check_can_be_turned_off(use_fake_openai, zh_novel):
    use_fake_openai.script(Reply.json(PART))
    assert _ask(zh_novel, check_language=False).text == PART["text"]


def test_validate_callback_problems_trigger_the_repair_round(use_fake_openai, novel):
    def card(n: int) -> dict:
        return {"number": n, "title": f"Chapter {n}", "position": "early", "core_function": "set up",
                "suspense_density": 3, "foreshadowing": [], "cognitive_twist": 2, "brief": "Things happen."}

    use_fake_openai.script(Reply.json({"cards": [card(1), card(3)]}), Reply.json({"cards": [card(1), card(2)]}))
    out = llm_for(novel).structured(
        role="planner", task="blueprint_window", context={"start": 1, "end": 2}, schema=BlueprintWindowOut,
        validate=lambda o: validate_window(o, start=1, end=2),  # type: ignore[arg-type]
    )
    assert [c.number for c in out.cards] == [1, 2]  # type: ignore[attr-defined]
    assert "numbered 1..2" in use_fake_openai.chat_requests()[1].body["messages"][-1]["content"]
