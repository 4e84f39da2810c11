"""Byte-compatibility with the captured longform-memory fixtures and the
budget cases (/work/shared/reference)."""

from __future__ import annotations

import itertools
import json
import math

import pytest

from memory.core import budget as b
from memory.core.budget import SectionInput, estimate_tokens, fit_items, fit_sections, skeleton_chapters
from memory.core.threads import resolve_thread_deadline
from memory.core.vector import decode_vector, encode_vector


def test_encode_vector_is_byte_identical_to_fixture(wire):
    for case in wire["encode_vector"]:
        assert encode_vector(case["vec"]) == case["b64"]


def test_decode_vector_matches_fixture(wire):
    for case in wire["decode_vector"]:
        got = decode_vector(case["b64"])
        assert got is not None
        assert got == pytest.approx(case["approx"], abs=case["abs_tol"])


def test_estimate_tokens_matches_fixture(wire):
    for case in wire["estimate_tokens"]:
        assert estimate_tokens(case["text"]) == case["tokens"], case


def test_skeleton_chapters_matches_fixture(wire):
    for case in wire["skeleton_chapters"]:
        assert skeleton_chapters(case["up_to_chapter"], case["exclude_from"]) == case["out"]


def test_resolve_thread_deadline_matches_fixture(wire):
    for case in wire["resolve_thread_deadline"]:
        assert resolve_thread_deadline(case["raw"], case["chapter"], case["total"]) == case["out"], case


def test_resolve_thread_deadline_fixture_property_output_after_chapter(wire):
    prop = wire["resolve_thread_deadline_property"]
    raws = [*prop["raw"], math.inf, -math.inf, "inf", "1e400", 10**400, "１２", [], object()]
    for raw in raws:
        for chapter in prop["chapters"]:
            for total in prop["totals"]:
                out = resolve_thread_deadline(raw, chapter, total)
                assert out > chapter and out != 0
                if total > chapter:
                    assert out <= total


def test_constants_match_budget_cases(budget_cases):
    assert dict(b.SECTION_SHARE) == budget_cases["section_share"]
    assert budget_cases["default_memory_budget"] == b.DEFAULT_MEMORY_BUDGET
    assert budget_cases["max_skeleton_entries"] == b.MAX_SKELETON_ENTRIES
    assert budget_cases["min_skeleton_stride"] == b.MIN_SKELETON_STRIDE
    assert list(b.TOPUP_PRIORITY) == budget_cases["topup_priority"]


def _sections(text: str, count: int) -> dict[str, SectionInput[str]]:
    return {name: SectionInput([text] * count, str) for name in b.SECTION_NAMES}


@pytest.mark.parametrize("budget", [1000, 137, 1200, 4000, 6000])
def test_overrun_sweep_never_exceeds_budget_for_any_item_size(budget_cases, budget):
    sweep = budget_cases["overrun_sweep"]
    low, high = sweep["tokens_per_item"]
    second_pass_ran = False
    for tokens in range(low, high + 1):
        secs = _sections("a" * (tokens * 4), sweep["items_per_section"])
        result = fit_sections(**secs, total=budget)
        assert result.used_tokens <= budget, (tokens, result.used_tokens)
        first = {k: fit_items(secs[k].items, str, b.allocate(budget)[k]).used_tokens for k in b.SECTION_NAMES}
        if any(result.section(k).used_tokens != first[k] for k in b.SECTION_NAMES):
            second_pass_ran = True
    # A sweep where the top-up pass never runs could not catch the
    # share+spare double count; make sure this one can.
    assert second_pass_ran


def test_per_section_usage_sums_to_total(budget_cases):
    case = budget_cases["per_section_sum"]
    result = fit_sections(**_sections("a" * 480, case["items_per_section"]), total=case["budget"])
    assert sum(result.section(k).used_tokens for k in b.SECTION_NAMES) == result.used_tokens <= case["budget"]


def test_redistribution_gives_lonely_recent_the_whole_budget(budget_cases):
    busy = fit_sections(**_sections("aaaa", 400), total=1000)
    assert busy.recent.dropped > 0
    empty: SectionInput[str] = SectionInput([], str)
    lonely = fit_sections(empty, SectionInput(["aaaa"] * 400, str), empty, empty, total=1000)
    assert lonely.recent.dropped == 0
    assert len(lonely.recent.kept) > len(busy.recent.kept)


def test_fit_items_cases(budget_cases):
    cases = budget_cases["fit_items"]
    got = fit_items(cases[0]["items"], str, cases[0]["budget"])
    assert (got.kept, got.dropped, got.used_tokens) == (cases[0]["kept"], cases[0]["dropped"], cases[0]["used"])
    assert fit_items(["x" * 40, "yyyy"], str, 5).kept == []
    got = fit_items([], str, 100)
    assert (got.kept, got.used_tokens, got.dropped) == ([], 0, 0)


def test_report_usage_case(budget_cases):
    case = budget_cases["report_usage"]
    empty: SectionInput[str] = SectionInput([], str)
    result = fit_sections(SectionInput(case["entity"], str), SectionInput(case["recent"], str), empty, empty,
                          total=case["budget"])
    assert result.entity.used == case["expect"]["entity.used"]
    assert result.recent.used == case["expect"]["recent.used"]
    assert result.used_tokens == case["expect"]["used"]
    report = b.fit_report(result, item_id=lambda s: s)
    assert json.loads(json.dumps(report)) == report
    assert report["sections"]["recent"] == {"share": 337, "used": 2, "kept": 2, "dropped": 0, "empty": 0,
                                            "kept_ids": ["bbbb", "cccc"]}


def test_skeleton_is_capped_at_every_book_length(budget_cases):
    for chapters in budget_cases["skeleton_cap_chapters"]:
        got = skeleton_chapters(chapters, chapters - 20)
        assert 0 < len(got) <= b.MAX_SKELETON_ENTRIES
        assert all(later - earlier >= b.MIN_SKELETON_STRIDE for earlier, later in itertools.pairwise(got))


# --- the MCP "assemble" cases, reproduced with a minimal assembly --------

def _assemble(chapter: int, summary_tokens: int, entities: int, budget: int):
    recent_from = max(1, chapter - 20)
    summary = {c: f"c{c:05d}" + "a" * (summary_tokens * 4 - 6) for c in range(1, chapter)}
    return fit_sections(
        SectionInput([f"e{i:03d}" + "b" * 36 for i in range(entities)], str),
        SectionInput(list(range(recent_from, chapter)), lambda c: summary[c], chapter=lambda c: c),
        SectionInput(skeleton_chapters(chapter, recent_from), lambda c: summary[c], chapter=lambda c: c,
                     brief=lambda c: summary[c][:24]),
        SectionInput([], str),
        total=budget,
    )


def test_mcp_assemble_overrun_sweep(budget_cases):
    case = budget_cases["mcp_assemble"]["overrun_sweep"]
    low, high = case["summary_tokens"]
    for tokens in range(low, high + 1):
        result = _assemble(case["write_chapter"], tokens, case["entities"], case["budget"])
        assert result.used_tokens <= case["budget"], tokens


def test_mcp_assemble_block_stays_flat_from_500_to_1000(budget_cases):
    case = budget_cases["mcp_assemble"]["flat"]
    sizes = []
    for at in case["at"]:
        result = _assemble(at, case["summary_tokens"], case["entities"], case["budget"])
        assert len(result.skeleton.kept) <= case["skeleton_max"]
        sizes.append(result.used_tokens)
    assert abs(sizes[1] - sizes[0]) <= case["max_diff_tokens"]


def test_mcp_assemble_block_grows_monotonically_then_plateaus(budget_cases):
    case = budget_cases["mcp_assemble"]["monotone"]
    flat = budget_cases["mcp_assemble"]["flat"]
    sizes = [_assemble(at, flat["summary_tokens"], flat["entities"], case["budget"]).used_tokens for at in case["at"]]
    assert all(later >= earlier - case["slack"] for earlier, later in itertools.pairwise(sizes))
    assert max(sizes) <= case["budget"]
