"""Reverse-verified budget rules: each test fails when its rule is broken."""

from __future__ import annotations

import pytest

from memory.core.budget import (
    SECTION_SHARE,
    SectionInput,
    allocate,
    estimate_tokens,
    fit_items,
    fit_report,
    fit_sections,
    fit_spread,
    skeleton_chapters,
)

EMPTY: SectionInput[str] = SectionInput([], str)


@pytest.mark.parametrize(
    ("label", "char"),
    [
        ("cjk punctuation", "。"),
        ("ideographic space", "\u3000"),
        ("full-width letter", "Ａ"),
        ("full-width digit", "１"),
        ("rare ideograph ext-b", "\U00020000"),
        ("emoji", "😀"),
        ("thai", "ก"),
        ("hangul jamo", "\u1100"),
        ("hangul compat jamo", "ㄱ"),
        ("half-width katakana", "ｱ"),
        ("katakana extension", "ㇰ"),
        ("kana supplement", "\U0001b001"),
        ("cjk basic", "中"),
        ("hangul syllable", "한"),
    ],
)
def test_estimate_tokens_counts_dense_characters_one_token_each(label, char):
    assert estimate_tokens(char * 8) == 8, label


def test_estimate_tokens_counts_cyrillic_at_two_chars_per_token():
    assert estimate_tokens("привет") == 3
    assert estimate_tokens("п" * 8) == 4


def test_estimate_tokens_counts_smart_punctuation_at_two_chars_per_token():
    assert estimate_tokens("\u201c" * 8) == 4


def test_estimate_tokens_ascii_stays_four_chars_per_token():
    assert estimate_tokens("a" * 8) == 2
    assert estimate_tokens("a" * 9) == 3
    assert estimate_tokens("") == 0


def test_estimate_tokens_mixed_rounds_up_over_the_whole_text():
    assert estimate_tokens("中a") == 2
    assert estimate_tokens("пa") == 1
    assert estimate_tokens("пaa") == 1
    assert estimate_tokens("пaaa") == 2


def test_empty_items_are_never_kept_for_free():
    got = fit_items(["", "   ", "aaaa", "\n"], str, 10)
    assert got.kept == ["aaaa"]
    assert got.empty == 3
    assert got.dropped == 0
    assert got.used_tokens == 1


def test_fit_items_cuts_from_the_tail_and_never_skips_ahead():
    got = fit_items(["a" * 8, "a" * 40, "a"], str, 4)
    assert got.kept == ["a" * 8]
    assert got.dropped == 2
    assert got.used_tokens == 2


def test_fit_items_budget_is_inclusive():
    assert fit_items(["aaaa", "aaaa"], str, 2).kept == ["aaaa", "aaaa"]
    assert fit_items(["aaaa", "aaaa"], str, 1).kept == ["aaaa"]


def test_fit_items_records_the_costed_texts():
    got = fit_items([1, 2], lambda n: "x" * (4 * n), 10)
    assert got.texts == ["xxxx", "x" * 8]
    assert got.used == 3


def test_allocate_splits_by_share_and_truncates():
    assert allocate(6000) == {"entity": 1302, "recent": 2022, "skeleton": 869, "retrieval": 1806}
    assert allocate() == allocate(6000)
    assert sum(SECTION_SHARE.values()) == pytest.approx(1.0)


def test_negative_or_zero_budget_keeps_nothing():
    for total in (0, -50):
        result = fit_sections(SectionInput(["aaaa"], str), SectionInput(["aaaa"], str), EMPTY, EMPTY, total=total)
        assert result.used_tokens == 0
        assert result.recent.kept == [] and result.entity.kept == []


def test_skeleton_chapters_edges():
    assert skeleton_chapters(12, 12) == [1, 11]
    assert skeleton_chapters(11, 12) == [1]
    assert skeleton_chapters(2, 50) == [1]
    assert skeleton_chapters(50, 2) == [1]
    assert skeleton_chapters(122, 200) == list(range(1, 122, 11))
    assert skeleton_chapters(121, 200) == list(range(1, 121, 10))


def _summary(chapter: int) -> str:
    return f"c{chapter:04d} " + "a" * 95  # 26 tokens


def test_skeleton_keeps_arc_coverage_when_its_share_is_too_small():
    chapters = skeleton_chapters(1000, 980)
    result = fit_sections(EMPTY, EMPTY, SectionInput(chapters, _summary), EMPTY, total=200)
    kept = result.skeleton.kept
    assert kept == [1, 165, 329, 493, 575, 739, 903]  # 7 x 26 tokens, evenly spaced
    assert 1 < len(kept) < len(chapters)
    # The oldest and the newest sampled chapter both survive.
    assert kept[0] == chapters[0] and kept[-1] == chapters[-1]
    assert result.skeleton.dropped == len(chapters) - len(kept)


def test_fit_spread_spaces_picks_evenly():
    got = fit_spread(list(range(10)), lambda n: "aaaa", budget=4)
    assert got.kept == [0, 3, 6, 9]
    assert fit_spread(list(range(10)), lambda n: "aaaa", budget=1).kept == [0]
    assert fit_spread(list(range(10)), lambda n: "aaaa", budget=0).kept == []
    assert fit_spread(list(range(10)), lambda n: "aaaa", budget=2).kept == [0, 9]
    assert fit_spread(list(range(5)), lambda n: "aaaa", budget=3).kept == [0, 2, 4]


def test_fit_spread_rounds_positions_half_up():
    assert fit_spread(list(range(4)), lambda n: "aaaa", budget=3).kept == [0, 2, 3]


def test_skeleton_uses_one_line_briefs_so_all_twelve_fit():
    chapters = skeleton_chapters(1000, 980)
    sec = SectionInput(chapters, _summary, brief=lambda c: f"c{c:04d}")
    result = fit_sections(EMPTY, EMPTY, sec, EMPTY, total=400)
    assert result.skeleton.kept == chapters
    assert result.skeleton.texts == [f"c{c:04d}" for c in chapters]


def test_skeleton_prefers_full_text_when_it_fits():
    chapters = skeleton_chapters(100, 80)
    sec = SectionInput(chapters, _summary, brief=lambda c: "short")
    result = fit_sections(EMPTY, EMPTY, sec, EMPTY, total=6000)
    assert result.skeleton.texts == [_summary(c) for c in chapters]


def test_skeleton_sorted_by_chapter_key_before_spreading():
    chapters = skeleton_chapters(1000, 980)
    sec = SectionInput(list(reversed(chapters)), _summary, chapter=lambda c: c)
    result = fit_sections(EMPTY, EMPTY, sec, EMPTY, total=200)
    assert result.skeleton.kept[0] == 1 and result.skeleton.kept[-1] == chapters[-1]
    assert result.skeleton.kept == sorted(result.skeleton.kept)


def test_recent_keeps_the_newest_chapters_whatever_the_input_order():
    chapters = list(range(80, 100))  # oldest first, as loaded
    sec = SectionInput(chapters, _summary, chapter=lambda c: c)
    result = fit_sections(EMPTY, sec, EMPTY, EMPTY, total=500)
    kept = result.recent.kept
    assert kept, "something must fit"
    assert kept[-1] == 99
    assert kept == list(range(100 - len(kept), 100))  # contiguous, chronological
    assert result.recent.texts == [_summary(c) for c in kept]


def test_recent_without_chapter_key_treats_input_as_importance_order():
    sec = SectionInput(list(range(80, 100)), _summary)
    result = fit_sections(EMPTY, sec, EMPTY, EMPTY, total=500)
    assert result.recent.kept[0] == 80


def test_topup_goes_to_recent_before_entity():
    # Each trimmed section wants more; the spare pool can satisfy only one.
    ent = SectionInput(["a" * 40] * 10, str)  # 10 x 10 tokens
    rec = SectionInput(["a" * 40] * 20, str)
    result = fit_sections(ent, rec, EMPTY, EMPTY, total=200)
    # shares 43/67/29/60: first pass 4 + 6 items, spare 99, recent takes 90.
    assert len(result.recent.kept) == 15
    assert len(result.entity.kept) == 4


def test_topup_skips_sections_that_dropped_nothing():
    ent = SectionInput(["aaaa"], str)
    rec = SectionInput(["a" * 40] * 30, str)
    result = fit_sections(ent, rec, EMPTY, EMPTY, total=100)
    assert result.entity.kept == ["aaaa"]
    assert result.used_tokens <= 100
    assert len(result.recent.kept) == 9


def test_topup_order_entity_before_retrieval_before_skeleton():
    items = SectionInput(["a" * 40] * 10, str)
    result = fit_sections(items, EMPTY, items, items, total=300)
    # shares 65/101/43/90; spare 101 + (65-60) + (43-40) + (90-90) = 109
    assert len(result.entity.kept) == 10
    assert len(result.retrieval.kept) == 10
    assert result.used_tokens <= 300


def test_section_lookup_rejects_unknown_names():
    result = fit_sections(EMPTY, EMPTY, EMPTY, EMPTY)
    with pytest.raises(KeyError):
        result.section("outline")
    assert result.budget == 6000


def test_fit_report_without_ids_has_only_counts():
    result = fit_sections(SectionInput(["aaaa", ""], str), EMPTY, EMPTY, EMPTY, total=10)
    report = fit_report(result)
    assert report == {
        "budget": 10,
        "used_tokens": 1,
        "sections": {
            "entity": {"share": 2, "used": 1, "kept": 1, "dropped": 0, "empty": 1},
            "recent": {"share": 3, "used": 0, "kept": 0, "dropped": 0, "empty": 0},
            "skeleton": {"share": 1, "used": 0, "kept": 0, "dropped": 0, "empty": 0},
            "retrieval": {"share": 3, "used": 0, "kept": 0, "dropped": 0, "empty": 0},
        },
    }


# --- from the mutation run: one behaviour per test -----------------------


class _Chapter:
    """A row object: no ordering of its own, like a model instance."""

    def __init__(self, number: int, text: str) -> None:
        self.number, self.text = number, text

    def __repr__(self) -> str:
        return f"_Chapter({self.number})"


def _full(tokens: int) -> SectionInput[str]:
    """A section whose one item fills exactly ``tokens`` (no spare for top-up)."""
    return SectionInput(["字" * tokens], str)


def test_fit_spread_counts_blank_items_as_empty():
    got = fit_spread(["aaaa", " ", "", "aaaa"], str, budget=1)
    assert (got.kept, got.empty, got.dropped) == (["aaaa"], 2, 1)


def test_section_lookup_error_names_the_section():
    result = fit_sections(EMPTY, EMPTY, EMPTY, EMPTY)
    with pytest.raises(KeyError, match="outline"):
        result.section("outline")


def test_recent_orders_row_objects_by_their_chapter_key():
    rows = [_Chapter(n, "a" * 40) for n in (97, 99, 98, 96)]
    sec = SectionInput(rows, lambda r: r.text, chapter=lambda r: r.number)
    result = fit_sections(_full(13), sec, _full(8), _full(18), total=60)  # recent share 20: two rows
    assert [r.number for r in result.recent.kept] == [98, 99]


def test_skeleton_orders_row_objects_by_their_chapter_key():
    rows = [_Chapter(n, "a" * 40) for n in (21, 1, 41, 11, 31)]
    sec = SectionInput(rows, lambda r: r.text, chapter=lambda r: r.number)
    result = fit_sections(EMPTY, EMPTY, sec, EMPTY, total=400)  # skeleton share 58: all five
    assert [r.number for r in result.skeleton.kept] == [1, 11, 21, 31, 41]


def test_skeleton_without_briefs_drops_a_middle_chapter_when_one_does_not_fit():
    # Four 10-token summaries in a 30-token share: the spread keeps the last
    # chapter (arc coverage), where a prefix would drop it.
    sec = SectionInput([1, 11, 21, 31], lambda c: "a" * 40)
    assert allocate(207) == {"entity": 44, "recent": 69, "skeleton": 30, "retrieval": 62}
    result = fit_sections(_full(44), _full(69), sec, _full(62), total=207)
    assert result.skeleton.kept == [1, 21, 31]
    assert result.skeleton.dropped == 1


def test_skeleton_spread_counts_blank_summaries_as_empty():
    sec = SectionInput([1, 11, 21, 31, 41], lambda c: "" if c == 11 else "a" * 40)
    result = fit_sections(_full(44), _full(69), sec, _full(62), total=207)
    assert (result.skeleton.kept, result.skeleton.empty, result.skeleton.dropped) == ([1, 31, 41], 1, 1)


def test_topup_hands_out_a_single_spare_token():
    # Every share is filled exactly except entity's, which has one token
    # left: recent's next one-token summary must get it.
    ent = SectionInput(["字" * 216], str)
    rec = SectionInput(["字" * 337, "字"], str)
    ske = SectionInput(["字" * 145], str)
    ret = SectionInput(["字" * 301], str)
    result = fit_sections(ent, rec, ske, ret, total=1000)
    assert result.recent.kept == ["字" * 337, "字"]
    assert result.used_tokens == 1000
