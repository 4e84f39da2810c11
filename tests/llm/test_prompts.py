"""Prompt templates: one place, chosen by the novel's language, carrying the JSON shape and pacing rules."""

from __future__ import annotations

import pytest

from generation.prompts import TASKS, render


@pytest.mark.parametrize("task", sorted(TASKS))
@pytest.mark.parametrize("language", ["zh", "en", "fr"])
def test_every_task_renders_a_system_and_user_message(task, language):
    messages = render(task, language=language, context={"chapter_number": 3, "start": 1, "end": 5})
    assert [m["role"] for m in messages] == ["system", "user"]
    assert all(m["content"].strip() for m in messages)


def test_chinese_novels_get_chinese_templates():
    system, user = render("draft", language="zh", context={"chapter_number": 4, "target_length": 3000})
    assert "中文" in system["content"] and "请写第 4 章" in user["content"]


def test_other_languages_get_english_templates_naming_the_language():
    system, _user = render("draft", language="fr", context={})
    assert "French" in system["content"] and "Write every piece of prose" in system["content"]


def test_structured_tasks_show_the_schema_shape():
    system, _ = render("finalize_extract", language="en", context={})
    for key in ('"characters"', '"facts"', '"threads"', '"deadline_chapter"', '"resolution_note"'):
        assert key in system["content"]


def test_prose_tasks_do_not_ask_for_json():
    system, _ = render("draft", language="en", context={})
    assert "JSON" not in system["content"]


@pytest.mark.parametrize("language,unit,rhythm", [("en", "every 3–5 chapters", "two tense chapters, then one breather"),
                                                 ("zh", "每 3–5 章", "连续两章紧张，随后一章舒缓")])
def test_blueprint_prompt_carries_the_pacing_rules(language, unit, rhythm):
    system, user = render("blueprint_window", language=language, context={"start": 26, "end": 50})
    assert unit in system["content"] and rhythm in system["content"]
    assert "26..50" in user["content"]


def test_card_and_findings_are_rendered_readably():
    _, user = render("revise", language="en", context={
        "card": {"number": 2, "title": "Low Tide", "foreshadowing": [{"op": "plant", "thread": "", "summary": "the bell"}]},
        "findings": [{"dimension": "pacing", "severity": "minor", "quote": "He waited.", "suggestion": "Cut it."}],
        "owed_payoffs": ["Pay off [T3] the bell"],
    })
    assert "Title: Low Tide" in user["content"] and "plant the bell" in user["content"]
    assert '[minor/pacing] "He waited." → Cut it.' in user["content"]
    assert "- Pay off [T3] the bell" in user["content"]


def test_unknown_task_is_a_programming_error():
    with pytest.raises(ValueError, match="unknown prompt task"):
        render("poem", language="en", context={})
