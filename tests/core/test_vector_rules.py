"""Vector wire format and search: reverse-verified rules."""

from __future__ import annotations

import base64
import math
import struct

import numpy as np
import pytest

from memory.core.vector import (
    DEFAULT_MIN_SCORE,
    RELATIVE_FLOOR,
    VectorIndex,
    decode_vector,
    encode_vector,
    normalize,
    search_top_k,
)


def raw(values: list[float]) -> str:
    """Encode WITHOUT normalising, as a foreign writer might."""
    return base64.b64encode(struct.pack(f"<{len(values)}f", *values)).decode()


def ids(hits) -> list[str]:
    return [h.row[0] for h in hits]


def both(query, rows, **kw):
    plain = search_top_k(query, rows, lambda r: r[1], **kw)
    indexed = VectorIndex(rows, lambda r: r[1]).search(query, **kw)
    assert ids(plain) == ids(indexed)
    assert [h.score for h in plain] == pytest.approx([h.score for h in indexed], abs=1e-12)
    return ids(plain)


ROWS = [
    ("a", encode_vector([1.0, 0.0, 0.0])),
    ("b", encode_vector([0.95, 0.3, 0.0])),
    ("c", encode_vector([0.0, 1.0, 0.0])),
]


def test_constants():
    assert DEFAULT_MIN_SCORE == 0.2
    assert RELATIVE_FLOOR == 0.88


def test_search_orders_by_score_and_applies_both_floors():
    assert both([1, 0, 0], ROWS) == ["a", "b"]


def test_nan_row_never_reorders_or_empties_result():
    poisoned = [("nan", raw([math.nan, 0.0, 0.0])), *ROWS, ("nan2", raw([0.5, math.nan, 0.1]))]
    assert both([1, 0, 0], poisoned) == ["a", "b"]


def test_infinite_row_is_skipped():
    rows = [("inf", raw([math.inf, 0.0, 0.0])), *ROWS]
    assert both([1, 0, 0], rows) == ["a", "b"]


def test_unnormalised_row_cannot_outrank_by_length():
    # Norm 100 pointing mostly along y: raw dot would be ~30 and its relative
    # floor would empty everything else.
    rows = [*ROWS, ("big", raw([30.0, 95.0, 0.0]))]
    assert both([1, 0, 0], rows) == ["a", "b"]
    assert both([0.3, 0.95, 0], rows)[0] == "big"


def test_slightly_unnormalised_rows_are_read_as_stored():
    rows = [("a", raw([0.9999, 0.0, 0.0])), ("b", raw([1.0, 0.0, 0.0]))]
    hits = search_top_k([1, 0, 0], rows, lambda r: r[1])
    assert [h.row[0] for h in hits] == ["b", "a"]
    assert hits[1].score == pytest.approx(0.9999, abs=1e-7)


def test_zero_rows_score_zero_and_fall_below_min_score():
    rows = [("z", encode_vector([0, 0, 0])), *ROWS]
    assert both([1, 0, 0], rows) == ["a", "b"]
    assert both([1, 0, 0], rows, min_score=0.0, relative_floor=0.0) == ["a", "b", "z", "c"]


@pytest.mark.parametrize(
    ("k", "expected"),
    [(0, []), (-1, []), (-5, []), (1, ["a"]), (2, ["a", "b"]), (99, ["a", "b"]),
     (1.7, ["a"]), (math.inf, ["a", "b"]), (-math.inf, []), (math.nan, [])],
)
def test_odd_k_values_behave_sensibly(k, expected):
    assert both([1, 0, 0], ROWS, k=k) == expected


def test_rows_of_another_dimension_and_corrupt_rows_are_skipped():
    rows = [("short", encode_vector([1.0, 0.0])), ("bad", "!!!"), ("odd", base64.b64encode(b"abcde").decode()),
            ("none", ""), *ROWS]
    assert both([1, 0, 0], rows) == ["a", "b"]


def test_query_without_direction_returns_nothing():
    for query in ([0, 0, 0], [math.nan, 1, 0], [math.inf, 0, 0], []):
        assert both(query, ROWS, min_score=-1.0) == []


def test_min_score_is_inclusive():
    rows = [("x", encode_vector([1.0, 0.0]))]
    query = [0.5, math.sqrt(0.75)]
    score = search_top_k(query, rows, lambda r: r[1], min_score=-1)[0].score
    assert both(query, rows, min_score=score) == ["x"]
    assert both(query, rows, min_score=math.nextafter(score, 2)) == []


def test_relative_floor_is_inclusive_and_relative_to_the_top():
    rows = [("top", encode_vector([1.0, 0.0])), ("near", encode_vector([0.9, math.sqrt(1 - 0.81)])),
            ("far", encode_vector([0.8, 0.6]))]
    assert both([1, 0], rows) == ["top", "near"]
    assert both([1, 0], rows, relative_floor=0.0) == ["top", "near", "far"]
    top = search_top_k([1, 0], rows, lambda r: r[1], relative_floor=0)
    near = top[1].score
    assert both([1, 0], rows, relative_floor=near / top[0].score) == ["top", "near"]


def test_negative_top_score_keeps_the_top_row():
    rows = [("a", encode_vector([-1.0, 0.1])), ("b", encode_vector([-1.0, 0.5]))]
    assert both([1, 0], rows, min_score=-1.0) == ["b", "a"]
    assert both([1, 0], rows, min_score=-1.0, relative_floor=0.99) == ["b"]


def test_ties_keep_input_order():
    same = encode_vector([1.0, 2.0, 3.0])
    rows = [(f"r{i}", same) for i in range(8)]
    assert both([1, 2, 3], rows, k=5) == ["r0", "r1", "r2", "r3", "r4"]


def test_normalize_survives_overflow_and_underflow():
    assert encode_vector([1e200, 1e200]) == encode_vector([1, 1])
    assert encode_vector([3e-200, 4e-200]) == encode_vector([3, 4])
    assert encode_vector([1e300, -1e300, 0]) == encode_vector([1, -1, 0])
    assert normalize([5e-324, 0.0]) == [1.0, 0.0]


def test_normalize_returns_zeros_without_direction():
    assert normalize([0.0, 0.0]) == [0.0, 0.0]
    assert normalize([math.nan, 1.0]) == [0.0, 0.0]
    assert normalize([math.inf, 1.0]) == [0.0, 0.0]
    assert normalize([1e200, math.inf]) == [0.0, 0.0]
    assert normalize([]) == []


def test_encode_is_little_endian_float32_normalised():
    b64 = encode_vector([0.0, 2.0])
    assert base64.b64decode(b64) == struct.pack("<2f", 0.0, 1.0)


def test_decode_rejects_bad_input():
    assert decode_vector("") is None
    assert decode_vector("not base64!") is None
    assert decode_vector(base64.b64encode(b"abc").decode()) is None
    assert decode_vector(encode_vector([3, 4])) == pytest.approx([0.6, 0.8])


def test_index_reports_dimensions_length_and_similarities():
    rows = [*ROWS, ("short", encode_vector([1.0, 0.0])), ("bad", "")]
    index = VectorIndex(rows, lambda r: r[1])
    assert len(index) == 4
    assert index.dimensions == (2, 3)
    sims = index.similarities([1, 0, 0])
    assert sims[:3] == pytest.approx([1.0, 0.95 / math.hypot(0.95, 0.3), 0.0], abs=1e-6)
    assert math.isnan(sims[3]) and math.isnan(sims[4])
    assert np.isnan(index.similarities([0, 0, 0])).all()
    assert np.isnan(index.similarities([1, 0, 0, 0])).all()
    assert index.search([1, 0, 0, 0]) == []


def test_index_matches_reference_on_near_ties():
    rng = np.random.default_rng(7)
    base = rng.normal(size=64)
    rows = []
    for i in range(300):
        vec = base + rng.normal(scale=1e-6 if i % 2 else 1e-4, size=64)
        rows.append((f"r{i}", encode_vector(vec.tolist())))
    rows += [("dup-a", rows[5][1]), ("dup-b", rows[5][1])]
    for k in (1, 3, 10, 50):
        assert len(both(base.tolist(), rows, k=k, relative_floor=0.9999995)) >= 1
        both(base.tolist(), rows, k=k)


def test_index_matches_reference_on_random_data():
    rng = np.random.default_rng(11)
    for trial in range(20):
        dim = int(rng.integers(2, 40))
        rows = [(f"r{i}", encode_vector(rng.normal(size=dim).tolist())) for i in range(60)]
        query = rng.normal(size=dim).tolist()
        both(query, rows, k=int(rng.integers(1, 10)), min_score=float(rng.uniform(-0.5, 0.5)),
             relative_floor=float(rng.uniform(0, 1)))


# --- from the mutation run: one behaviour per test -----------------------

def strict(query, rows, **kw):
    """The index must give the reference's rows, order and exact scores."""
    plain = [(h.row[0], h.score) for h in search_top_k(query, rows, lambda r: r[1], **kw)]
    indexed = [(h.row[0], h.score) for h in VectorIndex(rows, lambda r: r[1]).search(query, **kw)]
    assert indexed == plain, kw
    return plain


def _tie_groups(seed: int, dim: int, cosines=(0.9, 0.7, 0.5), size: int = 12):
    """A top row, then groups of near-identical rows far below it: their
    order is decided by differences well below float32 precision."""
    rng = np.random.default_rng(seed)
    u = rng.normal(size=dim)
    u /= np.linalg.norm(u)
    w = rng.normal(size=dim)
    w -= (w @ u) * u
    w /= np.linalg.norm(w)
    rows = [("top", encode_vector(u.tolist()))]
    for g, c in enumerate(cosines):
        v = c * u + math.sqrt(1 - c * c) * w
        for i in range(size):
            rows.append((f"g{g}-{i}", encode_vector((v + rng.normal(scale=3e-8, size=dim)).tolist())))
    query = (u + rng.normal(scale=3e-8, size=dim)).tolist()
    return rows, query


@pytest.mark.parametrize("dim", [2, 3, 8, 64])
def test_index_orders_near_ties_far_below_the_top_exactly(dim):
    for seed in range(6):
        rows, query = _tie_groups(seed, dim)
        for k in (2, 5, 8, 13, 20, 40):  # cut-offs inside and between groups
            strict(query, rows, k=k, min_score=-1.0, relative_floor=0.0)


@pytest.mark.parametrize("dim", [2, 3, 8, 64])
def test_index_applies_min_score_exactly_inside_a_near_tie_group(dim):
    for seed in range(6):
        rows, query = _tie_groups(seed, dim)
        exact = {rid: s for rid, s in strict(query, rows, k=100, min_score=-1.0, relative_floor=0.0)}
        for rid in ("g0-3", "g1-5", "g2-7"):
            strict(query, rows, k=100, min_score=exact[rid], relative_floor=0.0)


@pytest.mark.parametrize("dim", [2, 3, 8, 64])
def test_index_applies_the_relative_floor_exactly_inside_a_near_tie_group(dim):
    for seed in range(6):
        rows, query = _tie_groups(seed, dim)
        exact = {rid: s for rid, s in strict(query, rows, k=100, min_score=-1.0, relative_floor=0.0)}
        for rid in ("g0-3", "g1-5", "g2-7"):
            strict(query, rows, k=100, min_score=-1.0, relative_floor=exact[rid] / exact["top"])


def test_default_k_is_six():
    rows = [(f"r{i}", encode_vector([1.0, 0.0])) for i in range(10)]
    assert len(search_top_k([1.0, 0.0], rows, lambda r: r[1])) == 6
    assert len(VectorIndex(rows, lambda r: r[1]).search([1.0, 0.0])) == 6


def test_infinite_k_returns_every_row_above_the_floors():
    rows = [(f"r{i}", encode_vector([1.0, 0.0])) for i in range(200)]
    assert len(both([1.0, 0.0], rows, k=math.inf)) == 200


@pytest.mark.parametrize("k", [0.5, 0.999, -2.0, -0.5])
def test_float_k_below_one_returns_nothing(k):
    assert both([1, 0, 0], ROWS, k=k) == []


def test_normalize_is_bit_identical_to_the_plain_formula_when_safe():
    rng = np.random.default_rng(3)
    for scale in (1e-100, 1e-3, 0.5, 1.0, 7.0, 1e100):
        for _ in range(50):
            values = (rng.normal(size=int(rng.integers(1, 20))) * scale).tolist()
            total = 0.0
            for x in values:
                total += x * x
            assert normalize(values) == [x / total**0.5 for x in values]


def test_decode_rejects_characters_outside_base64():
    assert decode_vector("AAAAAA==") == [0.0]
    assert decode_vector("AAAA*AA==") is None
    assert decode_vector("AAAA AA==") is None
