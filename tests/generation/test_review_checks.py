"""The editor's deterministic checks, which need no model."""

from __future__ import annotations

from generation.review_checks import check_dead_characters, check_language, check_length, check_planned_payoffs

ENGLISH = "The keeper climbed the stair and found the letter under the lamp. " * 20


def test_english_chapter_in_english_novel_passes_language_check():
    assert check_language(text=ENGLISH, language="en") == []


def test_stray_chinese_name_in_english_chapter_passes_language_check():
    assert check_language(text=ENGLISH + " He whispered 林黛玉 once.", language="en") == []


def test_chinese_chapter_in_english_novel_is_critical():
    findings = check_language(text="守夜人爬上楼梯，在灯下找到了那封信。" * 20, language="en")
    assert [(f.dimension, f.severity) for f in findings] == [("language", "critical")]


def test_english_chapter_in_chinese_novel_is_critical():
    assert [f.severity for f in check_language(text=ENGLISH, language="zh")] == ["critical"]


def test_dead_character_appearing_is_a_major_consistency_finding():
    findings = check_dead_characters(text=ENGLISH + " Mara smiled.", dead_names=["Mara", "Tobias"])
    assert [(f.dimension, f.severity) for f in findings] == [("consistency", "major")]
    assert "Mara" in findings[0].quote


def test_planned_payoff_missing_from_the_prose_is_flagged():
    card = {"foreshadowing": [{"op": "payoff", "summary": "the brass key hidden in the lighthouse lamp"}]}
    assert [f.dimension for f in check_planned_payoffs(text=ENGLISH.replace("lamp", "stove"), card=card)] == ["threads"]


def test_planned_payoff_present_in_the_prose_is_not_flagged():
    card = {"foreshadowing": [{"op": "payoff", "summary": "the brass key hidden in the lighthouse lamp"}]}
    text = ENGLISH + " At last she drew the brass key from the lighthouse lamp, where it had been hidden."
    assert check_planned_payoffs(text=text, card=card) == []


def test_chapter_under_half_its_target_is_too_short():
    assert [f.dimension for f in check_length(text="x" * 499, target_length=1000)] == ["length"]
    assert check_length(text="x" * 500, target_length=1000) == []
