"""Differential test against longform-memory 0.1.1 on randomized valid input.

Inputs are drawn only from the region where README's difference table does
not apply; there the two must agree exactly.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memory.core import budget, language, threads, vector

lm = pytest.importorskip("longform_memory", reason="longform-memory (test-only reference) is not installed")

FAST = settings(max_examples=120, deadline=None)

# ASCII plus the five CJK blocks the reference counts: both estimators agree.
common_text = st.text(alphabet=st.sampled_from("abc xyz.,!一二三あア가豈"), min_size=1, max_size=40).filter(
    lambda t: t.strip()
)


@FAST
@given(st.text(alphabet=st.sampled_from("abc xyz.,!\n一二三あア가豈"), max_size=60))
def test_estimate_tokens_agrees(text):
    assert budget.estimate_tokens(text) == lm.estimate_tokens(text)


@FAST
@given(st.text(max_size=60))
def test_estimate_tokens_never_below_reference(text):
    assert budget.estimate_tokens(text) >= lm.estimate_tokens(text)


@FAST
@given(st.integers(-100, 100_000), st.integers(-100, 100_000))
def test_allocate_and_skeleton_agree(a, b):
    assert budget.allocate(a) == lm.allocate(a)
    assert budget.skeleton_chapters(a, b) == lm.skeleton_chapters(a, b)


@FAST
@given(st.lists(common_text, max_size=20), st.integers(-5, 200))
def test_fit_items_agrees(items, limit):
    ours, ref = budget.fit_items(items, str, limit), lm.fit_items(items, str, limit)
    assert (ours.kept, ours.used_tokens, ours.dropped) == (ref.kept, ref.used_tokens, ref.dropped)


@FAST
@given(st.fixed_dictionaries({n: st.lists(common_text, max_size=15) for n in budget.SECTION_NAMES}),
       st.integers(0, 600))
def test_fit_sections_agrees_when_the_skeleton_fits_its_share(items, total):
    # Difference table: a skeleton that overflows its share is spread, not cut.
    skeleton_cost = sum(budget.estimate_tokens(t) for t in items["skeleton"])
    if skeleton_cost > budget.allocate(total)["skeleton"]:
        items = {**items, "skeleton": []}
    entity, recent, skeleton, retrieval = (budget.SectionInput(items[n], str) for n in budget.SECTION_NAMES)
    ours = budget.fit_sections(entity, recent, skeleton, retrieval, total=total)
    ref = lm.fit_sections(*(lm.SectionInput(items[n], str) for n in budget.SECTION_NAMES), total=total)
    assert ours.used_tokens == ref.used_tokens
    for name in budget.SECTION_NAMES:
        a, b = getattr(ours, name), getattr(ref, name)
        assert (a.kept, a.used_tokens, a.dropped) == (b.kept, b.used_tokens, b.dropped)


# Difference table: magnitudes whose squares underflow are zeroed by the
# reference and normalised by us.
finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False).filter(lambda x: x == 0 or abs(x) > 1e-100)


@FAST
@given(st.lists(finite, min_size=1, max_size=12))
def test_encode_decode_agree(vec):
    assert vector.encode_vector(vec) == lm.encode_vector(vec)
    assert vector.decode_vector(lm.encode_vector(vec)) == lm.decode_vector(lm.encode_vector(vec))


@FAST
@given(st.integers(2, 6).flatmap(lambda d: st.tuples(
    st.lists(finite, min_size=d, max_size=d).filter(any),
    st.lists(st.lists(finite, min_size=d, max_size=d), max_size=25),
)), st.integers(1, 30), st.floats(0.0, 0.9), st.floats(0.0, 1.0))
def test_search_top_k_agrees_on_encoded_rows(data, k, min_score, floor):
    query, rows = data
    stored = [(i, vector.encode_vector(r)) for i, r in enumerate(rows)]
    ours = vector.search_top_k(query, stored, lambda r: r[1], k, min_score, floor)
    ref = lm.search_top_k(query, stored, lambda r: r[1], k, min_score, floor)
    assert [(h.row, h.score) for h in ours] == [(h.row, h.score) for h in ref]
    index = vector.VectorIndex(stored, lambda r: r[1]).search(query, k, min_score, floor)
    assert [(h.row, h.score) for h in index] == [(h.row, h.score) for h in ref]


SCRIPT_CHARS = {
    "Han": "一二三中文字", "Kana": "あいうアイウ", "Hangul": "가나다한국", "Cyrillic": "абвгдж",
    "Arabic": "ابتثجح", "Hebrew": "אבגדהו", "Devanagari": "कखगघ", "Thai": "กขคง",
}


@FAST
@given(st.sampled_from(sorted(SCRIPT_CHARS)).flatmap(
    lambda s: st.text(alphabet=st.sampled_from(SCRIPT_CHARS[s] + "abcXYZ  .,!"), max_size=40)))
def test_resolve_language_agrees_on_one_script_plus_latin(text):
    ours, ref = language.resolve_language(text), lm.resolve_language(text)
    assert (ours.directive, ours.unit, ours.char_counted) == (ref.directive, ref.unit, ref.char_counted)
    for ours_p, ref_p in ((language.HAN, lm.language.HAN), (language.CYRILLIC, lm.language.CYRILLIC),
                          (language.THAI, lm.language.THAI)):
        assert language.dominates(text, ours_p) == lm.dominates(text, ref_p)


@FAST
@given(st.text(alphabet=st.sampled_from("abcdefXYZ  .,一二三あいア가나"), max_size=40), st.booleans())
def test_language_mismatch_agrees_on_latin_and_cjk(text, char_counted):
    assert language.language_mismatch(text, char_counted) == lm.language_mismatch(text, char_counted)


@FAST
@given(st.one_of(st.none(), st.integers(-50, 200), st.floats(-50, 200), st.integers(-50, 200).map(str),
                 st.sampled_from(["", "soon", "NaN", "0"])), st.integers(1, 100), st.integers(0, 150))
def test_resolve_thread_deadline_agrees(raw, chapter, total):
    assert threads.resolve_thread_deadline(raw, chapter, total) == lm.resolve_thread_deadline(raw, chapter, total)


@FAST
@given(st.integers(0, 6).flatmap(lambda n: st.tuples(
    st.lists(st.sampled_from(["open", "progressing"]), min_size=n, max_size=n),
    st.lists(st.builds(
        lambda action, ref, summary, deadline: (action, ref, summary, deadline),
        st.sampled_from([None, "open", "progress", "resolve", " Resolve "]),
        st.one_of(st.none(), st.just(""), st.integers(1, n).map(lambda i: f"T{i}") if n else st.none()),
        st.sampled_from(["", "  ", "a loop", "another"]),
        st.one_of(st.none(), st.integers(0, 40)),
    ), max_size=14),
)), st.integers(1, 30), st.integers(0, 40), st.integers(0, 12))
def test_plan_thread_ops_agrees_on_valid_refs(data, chapter, total, max_ops):
    statuses, raw = data
    ours_known = [threads.KnownThread(f"id{i}", s) for i, s in enumerate(statuses)]
    ref_known = [lm.KnownThread(f"id{i}", s) for i, s in enumerate(statuses)]
    ours = threads.plan_thread_ops([threads.RawThreadItem(a, r, s, None, d) for a, r, s, d in raw],
                                   ours_known, chapter, total, max_ops)
    ref = lm.plan_thread_ops([lm.RawThreadItem(a, r, s, None, d) for a, r, s, d in raw],
                             ref_known, chapter, total, max_ops)
    assert [vars(o) for o in ours] == [vars(o) for o in ref]


@FAST
@given(st.lists(st.tuples(st.text(alphabet="ab [T]1.", max_size=12).filter(lambda s: "[T1]" not in s),
                          st.sampled_from(["open", "progressing"]), st.integers(0, 30)), max_size=6))
def test_render_and_urgency_agree(rows):
    ours_rows = [threads.OwedThread(s, 1, d, 0) for s, _, d in rows]
    objs = [type("R", (), {"summary": s, "status": st_, "deadline_chapter": d})() for s, st_, d in rows]
    assert threads.render_known_threads(objs) == lm.render_known_threads(objs)
    for chapter in (1, 10, 40):
        for s, _, d in rows:
            item = threads.ThreadUrgency(d, len(s), 3)
            assert threads.compare_thread_urgency(item, chapter) == lm.compare_thread_urgency(item, chapter)
        ours = threads.plan_owed_payoff(ours_rows, chapter, 20)
        ref = lm.plan_owed_payoff([lm.OwedThread(t.summary, 1, t.deadline_chapter, t.overdue_by)
                                   for t in ours_rows], chapter, 20)
        assert (ours[0] is None) == (ref[0] is None)
        assert [t.summary for t in ours[1]] == [t.summary for t in ref[1]]
