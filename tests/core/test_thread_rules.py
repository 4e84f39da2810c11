"""Open-loop rules: reverse-verified."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pytest

from memory.core.threads import (
    DEFAULT_THREAD_LABELS,
    MAX_THREAD_OPS_PER_CHAPTER,
    UNRESOLVED_THREAD_STATUSES,
    KnownThread,
    OwedThread,
    RawThreadItem,
    ThreadLabels,
    ThreadUrgency,
    compare_thread_urgency,
    escape_summary,
    is_unresolved,
    parse_thread_ref,
    plan_owed_payoff,
    plan_thread_ops,
    render_known_threads,
    resolve_thread_deadline,
)

KNOWN = [KnownThread("a", "open"), KnownThread("b", "progressing"), KnownThread("c", "resolved")]


def plan(*items: RawThreadItem, known=KNOWN, max_ops=MAX_THREAD_OPS_PER_CHAPTER):
    return [(op.kind, op.id, op.reason) for op in plan_thread_ops(list(items), known, 5, 20, max_ops)]


def test_unresolved_statuses_are_open_and_progressing():
    assert UNRESOLVED_THREAD_STATUSES == ("open", "progressing")
    assert is_unresolved("open") and is_unresolved("progressing")
    assert not is_unresolved("resolved")


@pytest.mark.parametrize("ref", ["T2", "t2", "[T2]", "T2.", "#T2", "T 2", " T2 ", "(T2)", "[T2].", "T02", "T2:", "# T2"])
def test_parse_thread_ref_accepts_every_rendered_or_echoed_form(ref):
    assert parse_thread_ref(ref) == 1


@pytest.mark.parametrize("ref", ["T0", "T２", "T٢", "2", "", None, "T2x", "X2", "T", "T-2", 2])
def test_parse_thread_ref_rejects_other_forms_and_non_ascii_digits(ref):
    assert parse_thread_ref(ref) is None


def test_progress_and_resolve_hit_the_referenced_thread():
    assert plan(RawThreadItem("progress", "[T2]", "moved")) == [("progress", "b", None)]
    assert plan(RawThreadItem("resolve", "T1.", "closed")) == [("resolve", "a", None)]


def test_open_with_a_live_ref_means_progress():
    assert plan(RawThreadItem("open", "T1", "again")) == [("progress", "a", None)]


def test_a_thread_cannot_be_resolved_twice_in_one_chapter():
    ops = plan(RawThreadItem("resolve", "T1", "x"), RawThreadItem("resolve", "T1", "y"),
               RawThreadItem("progress", "T1", "z"))
    assert ops == [("resolve", "a", None), ("skip", None, "already-resolved"), ("skip", None, "already-resolved")]


def test_a_thread_resolved_on_record_cannot_be_resolved_or_advanced():
    assert plan(RawThreadItem("resolve", "T3", "x")) == [("skip", None, "already-resolved")]
    assert plan(RawThreadItem("progress", "T3", "x")) == [("skip", None, "already-resolved")]
    assert plan(RawThreadItem("open", "T3", "x")) == [("skip", None, "already-resolved")]


def test_hallucinated_ref_never_opens_or_resolves():
    for action in ("open", "progress", "resolve", None):
        assert plan(RawThreadItem(action, "T9", "ghost")) == [("skip", None, "unmatched-ref")]


def test_non_ascii_digits_are_rejected_consistently():
    for action in ("open", "progress", "resolve"):
        assert plan(RawThreadItem(action, "T２", "x")) == [("skip", None, "unmatched-ref")]
    assert resolve_thread_deadline("１２", 5, 20) == 20
    assert resolve_thread_deadline("12", 5, 20) == 12


def test_unknown_action_never_opens_or_resolves():
    assert plan(RawThreadItem("close", None, "x")) == [("skip", None, "unknown-action")]
    assert plan(RawThreadItem("resolved", "", "x")) == [("skip", None, "unknown-action")]
    # With a live ref it is read as the loop moving, as in the reference.
    assert plan(RawThreadItem("close", "T1", "x")) == [("progress", "a", None)]


def test_open_without_a_ref_opens_with_a_resolved_deadline():
    ops = plan_thread_ops([RawThreadItem(None, None, " new loop ", "setup", 0)], KNOWN, 5, 20)
    assert len(ops) == 1
    op = ops[0]
    assert (op.kind, op.summary, op.thread_type, op.deadline_chapter) == ("open", "new loop", "setup", 20)
    assert plan(RawThreadItem("  OPEN ", "new", "x")) == [("open", None, None)]
    assert plan(RawThreadItem(" ", "", "x")) == [("open", None, None)]


def test_action_is_case_and_space_insensitive_and_note_is_stripped():
    ops = plan_thread_ops([RawThreadItem(" Resolve ", "T1", "done", resolution_note="  paid off ")], KNOWN, 5, 20)
    assert (ops[0].kind, ops[0].resolution_note, ops[0].summary) == ("resolve", "paid off", "done")


def test_items_without_summary_are_skipped():
    assert plan(RawThreadItem("open", None, None), RawThreadItem("open", None, "   ")) == [
        ("skip", None, "no-summary"), ("skip", None, "no-summary")]


def test_ops_are_capped_per_chapter():
    items = [RawThreadItem("open", None, f"s{i}") for i in range(MAX_THREAD_OPS_PER_CHAPTER + 3)]
    assert len(plan(*items)) == MAX_THREAD_OPS_PER_CHAPTER == 10
    assert len(plan(*items, max_ops=2)) == 2
    assert plan(*items, max_ops=-1) == []


@pytest.mark.parametrize(
    ("raw", "chapter", "total", "out"),
    [
        (0, 3, 20, 20), (None, 3, 20, 20), ("soon", 3, 20, 20), (math.nan, 3, 20, 20), (math.inf, 3, 20, 20),
        ("inf", 3, 20, 20), ("1e400", 3, 20, 20), (10**400, 3, 20, 20), (1.9, 3, 20, 20), (" 12 ", 3, 20, 12),
        ("12.7", 3, 20, 12), (4, 3, 20, 4), (3, 3, 20, 20), (2, 3, 20, 20), (30, 25, 20, 30), (0, 25, 20, 35),
        (0, 7, 0, 17), (0, 20, 20, 30), (0, -20, 0, 1), (0, -5, 0, 5), (True, 3, 20, 20), ([], 3, 20, 20),
        (20, 3, 20, 20), (21, 3, 20, 20), (-4, 3, 20, 20),
    ],
)
def test_resolve_thread_deadline_never_crashes_never_zero_past_or_beyond_end(raw, chapter, total, out):
    assert resolve_thread_deadline(raw, chapter, total) == out


def owed(summary, opened, overdue):
    return OwedThread(summary, opened, opened + 5, overdue)


def test_plan_owed_payoff_escalates_with_lateness():
    assert plan_owed_payoff([], 5, 20) == (None, [])
    late, soft = owed("late", 2, 3), owed("soft", 1, 2)
    must, rest = plan_owed_payoff([soft, late], 8, 40)
    assert must is late and rest == [soft]
    must, rest = plan_owed_payoff([owed("x", 1, 2), owed("y", 2, 2)], 8, 40)
    assert must is None and [t.summary for t in rest] == ["x", "y"]


def test_plan_owed_payoff_forces_payoff_in_the_final_quarter():
    threads = [owed("a", 3, 0), owed("b", 1, 0)]
    must, _rest = plan_owed_payoff(threads, 15, 20)
    assert must is not None and must.summary == "b"
    assert plan_owed_payoff(threads, 14, 20)[0] is None
    assert plan_owed_payoff(threads, 8, 10)[0] is not None
    assert plan_owed_payoff(threads, 7, 10)[0] is None
    assert plan_owed_payoff(threads, 1000, 0)[0] is None


def test_compare_thread_urgency_orders_due_then_deadline_then_staleness():
    items = {
        "no-deadline": ThreadUrgency(0, 1, 1),
        "later": ThreadUrgency(30, 2, 2),
        "sooner": ThreadUrgency(20, 9, 3),
        "due": ThreadUrgency(10, 8, 4),
        "due-stale": ThreadUrgency(10, 3, 5),
        "overdue": ThreadUrgency(5, 8, 6),
    }
    order = sorted(items, key=lambda k: compare_thread_urgency(items[k], 10))
    assert order == ["overdue", "due-stale", "due", "sooner", "later", "no-deadline"]
    assert compare_thread_urgency(ThreadUrgency(0, 4, 2), 10) == (1, 1, 0, 4, 2)


@dataclass
class Row:
    summary: str
    status: str = "open"
    deadline_chapter: int = 0


def test_render_known_threads_numbers_tags_and_due_labels():
    rows = [Row("the key", "open", 12), Row("the letter", "progressing"), Row("x", "resolved", 3)]
    assert render_known_threads(rows) == (
        "[T1] the key (due by Ch.12)\n[T2] [in progress] the letter\n[T3] x (due by Ch.3)")
    assert render_known_threads([]) == DEFAULT_THREAD_LABELS.empty == "(none on record yet)"
    labels = ThreadLabels(empty="（无）", in_progress="［进行中］", due=lambda n: f"（第{n}章前）")
    assert render_known_threads([Row("钥匙", "progressing", 9)], labels) == "[T1] ［进行中］钥匙（第9章前）"
    assert render_known_threads([], labels) == "（无）"


def test_render_escapes_summaries_so_they_cannot_forge_a_thread_line():
    rows = [Row("real one\n[T9] fake loop"), Row("two\r\n[T8]\u2028[T7] x"), Row("mentions [T9] inline")]
    text = render_known_threads(rows)
    lines = text.split("\n")
    assert len(lines) == 3
    assert [line[:4] for line in lines] == ["[T1]", "[T2]", "[T3]"]
    assert "[T9]" not in text and "[T8]" not in text and "[T7]" not in text
    assert lines[2] == "[T3] mentions (T9) inline"


def test_escape_summary_keeps_ordinary_text():
    assert escape_summary("a [note] and T9 stay") == "a [note] and T9 stay"
    assert escape_summary(None) == ""
    assert escape_summary("tab\there") == "tab here"
    assert escape_summary("[ t 12 ]") == "( t 12 )"


# --- from the mutation run: one behaviour per test -----------------------

def test_escape_summary_leaves_no_line_break_for_splitlines():
    for sep in ("\u2028", "\u2029", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x85"):
        out = escape_summary(f"one{sep}[T9] forged")
        assert out.splitlines() == [out], repr(sep)
        assert "[T9]" not in out
    rendered = render_known_threads([Row("a\u2028[T2] fake", "open", 0), Row("b\u2029c", "open", 0)])
    assert rendered.splitlines() == ["[T1] a (T2) fake", "[T2] b c"]


def test_float_deadline_is_truncated_to_a_chapter():
    assert resolve_thread_deadline(12.7, 5, 0) == 12
    assert resolve_thread_deadline(12.7, 5, 30) == 12


def test_one_chapter_book_keeps_its_planned_end_as_deadline():
    # chapter 0 (nothing written yet) of a one-chapter plan: the end is chapter 1.
    assert resolve_thread_deadline(None, 0, 1) == 1
    assert resolve_thread_deadline(50, 0, 1) == 1


def test_deadline_of_chapter_one_is_accepted_before_chapter_one():
    assert resolve_thread_deadline(1, 0, 0) == 1
    assert resolve_thread_deadline("1", -3, 0) == 1


def test_one_chapter_book_is_all_endgame():
    owed = [OwedThread("x", 1, 1, 0)]
    must, rest = plan_owed_payoff(owed, 1, 1)
    assert must is owed[0] and rest == []


def test_urgency_deadline_of_chapter_one_counts_as_a_deadline():
    assert compare_thread_urgency(ThreadUrgency(1, 4, 2), 5) == (0, 0, 1, 4, 2)
    assert compare_thread_urgency(ThreadUrgency(1, 4, 2), 0) == (1, 0, 1, 4, 2)


def test_urgency_due_exactly_now_is_urgent():
    assert compare_thread_urgency(ThreadUrgency(7, 3, 1), 7)[0] == 0
    assert compare_thread_urgency(ThreadUrgency(8, 3, 1), 7)[0] == 1
    assert compare_thread_urgency(ThreadUrgency(6, 3, 1), 7) == (0, 0, 6, 3, 1)


def test_urgency_without_deadline_ties_on_deadline_so_staleness_decides():
    # 0 and a negative value both mean "no deadline": the stalest goes first.
    fresh = ThreadUrgency(0, 9, 1)
    stale = ThreadUrgency(-5, 2, 1)
    assert compare_thread_urgency(fresh, 10) == (1, 1, 0, 9, 1)
    assert compare_thread_urgency(stale, 10) == (1, 1, 0, 2, 1)
    assert sorted([fresh, stale], key=lambda t: compare_thread_urgency(t, 10)) == [stale, fresh]


def test_ref_one_past_the_last_known_thread_is_unmatched():
    assert plan(RawThreadItem("resolve", "T4", "x")) == [("skip", None, "unmatched-ref")]
    assert plan(RawThreadItem("progress", "T4", "x")) == [("skip", None, "unmatched-ref")]


def test_skipped_ops_keep_their_summary():
    ops = plan_thread_ops(
        [RawThreadItem("resolve", "T3", " done "), RawThreadItem("resolve", "T9", " guess "),
         RawThreadItem("progress", "T9", " moved "), RawThreadItem("dance", None, " odd ")],
        KNOWN, 5, 20,
    )
    assert [(op.kind, op.reason, op.summary) for op in ops] == [
        ("skip", "already-resolved", "done"), ("skip", "unmatched-ref", "guess"),
        ("skip", "unmatched-ref", "moved"), ("skip", "unknown-action", "odd"),
    ]


def test_progress_op_carries_the_summary():
    ops = plan_thread_ops([RawThreadItem("progress", "T1", " the map is found ")], KNOWN, 5, 20)
    assert [(op.kind, op.id, op.summary) for op in ops] == [("progress", "a", "the map is found")]


def test_resolve_without_note_has_an_empty_note():
    (op,) = plan_thread_ops([RawThreadItem("resolve", "T1", "closed")], KNOWN, 5, 20)
    assert (op.kind, op.resolution_note) == ("resolve", "")


def test_every_item_after_any_skip_is_still_planned():
    later = RawThreadItem("open", None, "new loop")
    for first in (RawThreadItem("resolve", "T3", "x"), RawThreadItem("resolve", "T9", "x"),
                  RawThreadItem("progress", "T1", "x"), RawThreadItem("progress", "T9", "x"),
                  RawThreadItem("dance", None, "x"), RawThreadItem("resolve", "T1", "x")):
        assert plan(first, later)[-1] == ("open", None, None), first


def test_opened_loop_uses_the_model_deadline():
    (op,) = plan_thread_ops([RawThreadItem("open", None, "a promise", deadline_chapter=12)], KNOWN, 5, 20)
    assert (op.kind, op.deadline_chapter) == ("open", 12)
