"""Hypothesis properties of the budget, skeleton and deadline rules."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from memory.core.budget import (
    MAX_SKELETON_ENTRIES,
    MIN_SKELETON_STRIDE,
    SECTION_NAMES,
    SectionInput,
    estimate_tokens,
    fit_items,
    fit_sections,
    skeleton_chapters,
)
from memory.core.threads import resolve_thread_deadline

FAST = settings(max_examples=150, deadline=None)
texts = st.text(alphabet=st.sampled_from("ab 中。😀пก\u3000Ａ"), max_size=60)
section = st.lists(texts, max_size=25)


@FAST
@given(st.fixed_dictionaries({name: section for name in SECTION_NAMES}), st.integers(-10, 3000),
       st.booleans())
def test_fit_sections_invariants(items, total, keyed):
    secs = {}
    for name, values in items.items():
        pairs = list(enumerate(values))
        secs[name] = SectionInput(pairs, lambda p: p[1], chapter=(lambda p: p[0]) if keyed else None,
                                  brief=(lambda p: p[1][:5]) if name == "skeleton" else None)
    result = fit_sections(**secs, total=total)
    # used <= total, and the per-section sums add up.
    assert result.used_tokens <= max(total, 0)
    assert result.used_tokens == sum(result.section(n).used_tokens for n in SECTION_NAMES)
    for name in SECTION_NAMES:
        fitted = result.section(name)
        pairs = list(enumerate(items[name]))
        # Whole items only: every kept item is an input item costed at full
        # (or, for the skeleton, one-line) text.
        assert all(p in pairs for p in fitted.kept)
        assert len(set(fitted.kept)) == len(fitted.kept)
        assert fitted.used_tokens == sum(estimate_tokens(t) for t in fitted.texts)
        assert all(t.strip() for t in fitted.texts)
        blank = sum(1 for p in pairs if not p[1].strip())
        if name != "skeleton":  # a skeleton fitted on briefs counts blank briefs
            assert fitted.empty == blank
        assert len(fitted.kept) + fitted.dropped + fitted.empty == len(pairs)
    # Priority order: entity/retrieval keep a prefix of the non-blank items;
    # recent keeps the newest when keyed, else a prefix.
    for name in ("entity", "retrieval"):
        live = [p for p in enumerate(items[name]) if p[1].strip()]
        kept = result.section(name).kept
        assert kept == live[: len(kept)]
    live = [p for p in enumerate(items["recent"]) if p[1].strip()]
    kept = result.recent.kept
    if keyed:
        assert kept == live[len(live) - len(kept):]
    else:
        assert kept == live[: len(kept)]


@FAST
@given(st.lists(texts, max_size=30), st.integers(-5, 400))
def test_fit_items_keeps_a_prefix_within_budget(values, budget):
    got = fit_items(values, str, budget)
    live = [v for v in values if v.strip()]
    assert got.kept == live[: len(got.kept)]
    assert got.used_tokens <= max(budget, 0)
    if got.dropped:
        assert got.used_tokens + estimate_tokens(live[len(got.kept)]) > budget


@FAST
@given(st.integers(-5, 200_000), st.integers(-5, 200_000))
def test_skeleton_at_most_twelve_with_stride_at_least_ten(up_to, exclude_from):
    got = skeleton_chapters(up_to, exclude_from)
    assert len(got) <= MAX_SKELETON_ENTRIES
    assert all(b - a >= MIN_SKELETON_STRIDE for a, b in itertools.pairwise(got))
    assert all(1 <= c < min(up_to, exclude_from) for c in got)
    if min(up_to, exclude_from) > 1:
        assert got[0] == 1


raws = st.one_of(st.none(), st.integers(-10**6, 10**6), st.floats(allow_nan=True, allow_infinity=True),
                 st.text(max_size=8), st.booleans(), st.integers().map(str))


@FAST
@given(raws, st.integers(1, 10_000), st.integers(0, 10_000))
def test_deadline_is_always_after_the_chapter_and_within_the_plan(raw, chapter, total):
    out = resolve_thread_deadline(raw, chapter, total)
    assert out > chapter
    assert out >= 1
    if total > chapter:
        assert out <= total


@FAST
@given(st.text(max_size=80))
def test_estimate_tokens_is_at_least_a_quarter_token_per_char(text):
    assert estimate_tokens(text) * 4 >= len(text)
    assert estimate_tokens(text) <= len(text)
