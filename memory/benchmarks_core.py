"""Pure benchmark functions for ``manage.py bench`` (no Django, no I/O).

Synthetic data comes from numpy's seeded Generator, so figures are
repeatable; the memory core itself stays free of randomness and clocks.
"""

from __future__ import annotations

import functools
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from memory.core.retrieval import Passage, RetrievalIndex
from memory.core.vector import VectorIndex, encode_vector, search_top_k


def _stats(samples_ms: Sequence[float]) -> dict[str, float]:
    return {
        "median_ms": round(statistics.median(samples_ms), 3),
        "min_ms": round(min(samples_ms), 3),
        "max_ms": round(max(samples_ms), 3),
    }


def _timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    out = fn()
    return out, (time.perf_counter() - start) * 1000.0


def _embedding(row: tuple[int, str]) -> str:
    return row[1]


def bench_vector_search(n_rows: int = 2000, dim: int = 1536, repeats: int = 20, seed: int = 0) -> dict[str, Any]:
    """numpy :class:`VectorIndex` vs the pure-Python ``search_top_k``.

    Rows are decoded once for the index (build time reported separately); the
    pure-Python path decodes on every query, as the reference does. The
    reference path is timed on ``min(repeats, 5)`` queries: it is ~100x slower.
    """
    rng = np.random.default_rng(seed)
    matrix = rng.normal(size=(n_rows, dim))
    rows = [(i, encode_vector(v.tolist())) for i, v in enumerate(matrix)]
    # Queries near existing rows so results are non-empty and ordered.
    picks = rng.integers(0, n_rows, size=repeats)
    queries = [(matrix[j] + rng.normal(scale=0.7, size=dim)).tolist() for j in picks]
    index, build_ms = _timed(functools.partial(VectorIndex, rows, _embedding))
    numpy_ms, python_ms, agree = [], [], True
    for n, query in enumerate(queries):
        fast, ms = _timed(functools.partial(index.search, query))
        numpy_ms.append(ms)
        if n < min(repeats, 5):
            slow, ms = _timed(functools.partial(search_top_k, query, rows, _embedding))
            python_ms.append(ms)
            agree = agree and [h.row[0] for h in fast] == [h.row[0] for h in slow]
    return {
        "n_rows": n_rows,
        "dim": dim,
        "repeats": repeats,
        "seed": seed,
        "build_ms": round(build_ms, 3),
        "numpy": _stats(numpy_ms),
        "python": _stats(python_ms),
        "same_rows_and_order": agree,
    }


def bench_retrieval(
    passages: Sequence[Passage], queries: Sequence[dict[str, Any]], repeats: int = 3
) -> dict[str, Any]:
    """Build a :class:`RetrievalIndex` once, then time each query (keyword
    arguments of :meth:`RetrievalIndex.query`) ``repeats`` times."""
    index, build_ms = _timed(lambda: RetrievalIndex(passages))
    samples = []
    for _ in range(max(1, repeats)):
        for kwargs in queries:
            _, ms = _timed(functools.partial(index.query, **kwargs))
            samples.append(ms)
    return {
        "passages": len(passages),
        "queries": len(queries) * max(1, repeats),
        "build_ms": round(build_ms, 3),
        **(_stats(samples) if samples else {"median_ms": 0.0, "min_ms": 0.0, "max_ms": 0.0}),
    }


def synthetic_book(chapters: int = 1000, per_chapter: int = 5, seed: int = 0) -> list[Passage]:
    """A deterministic fake Chinese book for :func:`bench_retrieval`: ~800
    characters per passage drawn from a 3000-character, Zipf-ish vocabulary,
    with recurring character names."""
    rng = np.random.default_rng(seed)
    alphabet = np.array([chr(0x4E00 + i) for i in range(3000)])
    weights = 1.0 / np.arange(1, 3001)
    weights /= weights.sum()
    names = ["刘备", "关羽", "张飞", "诸葛亮", "曹操", "赤兔马"]
    out = []
    for chapter in range(1, chapters + 1):
        for part in range(per_chapter):
            text = "".join(rng.choice(alphabet, size=800, p=weights))
            text += "".join(rng.choice(names, size=2))
            out.append(Passage(f"{chapter}-{part}", chapter, text))
    return out
