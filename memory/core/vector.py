"""Vectors as base64 text and brute-force cosine search.

Wire format (byte-identical to longform-memory): little-endian float32,
L2-normalised at write time, base64. ``search_top_k`` is the pure-Python
reference algorithm; :class:`VectorIndex` decodes a novel's rows once into a
numpy matrix and returns the same rows in the same order.
"""

from __future__ import annotations

import base64
import binascii
import math
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

import numpy as np
import numpy.typing as npt

__all__ = [
    "DEFAULT_MIN_SCORE",
    "NORM_TOLERANCE",
    "RELATIVE_FLOOR",
    "ScoredRow",
    "VectorIndex",
    "decode_vector",
    "encode_vector",
    "normalize",
    "search_top_k",
]

T = TypeVar("T")

# Calibrated for text-embedding-3-small (unrelated queries score 0.12-0.19).
# Other models (bge-m3: 0.275-0.348) need their own value.
DEFAULT_MIN_SCORE = 0.2
# The absolute floor rejects "nothing here is relevant"; this relative one
# rejects "a few of these are clearly weaker than the best".
RELATIVE_FLOOR = 0.88
# A stored row whose norm is further than this from 1 was not written by
# encode_vector; it is renormalised on read so its length cannot outrank
# everything (a norm-100 row would otherwise become the top hit and its
# relative floor would empty the rest of the result).
NORM_TOLERANCE = 1e-3


@dataclass
class ScoredRow(Generic[T]):
    """A hit; results are sorted by descending score."""

    row: T
    score: float


def normalize(vec: Sequence[float]) -> list[float]:
    """L2-normalise; zeros when the vector has no direction (zero or non-finite).

    The plain sum of squares is kept whenever it is safe so results are
    bit-identical to the reference; it overflows above ~1e154 and underflows
    below ~1e-154, and there we rescale by the largest component first rather
    than return a zero vector.
    """
    values = [float(x) for x in vec]
    total = 0.0
    for x in values:
        total += x * x
    if math.isfinite(total) and total > 1e-290:
        norm = total**0.5
        return [x / norm for x in values]
    if not all(math.isfinite(x) for x in values):
        return [0.0] * len(values)
    biggest = max((abs(x) for x in values), default=0.0)
    if biggest == 0.0:
        return [0.0] * len(values)
    scaled = [x / biggest for x in values]
    norm = math.fsum(x * x for x in scaled) ** 0.5
    return [x / norm for x in scaled]


def encode_vector(vec: Sequence[float]) -> str:
    """Normalise, pack as little-endian float32, base64 (fits a TEXT column)."""
    unit = normalize(vec)
    return base64.b64encode(struct.pack(f"<{len(unit)}f", *unit)).decode("ascii")


def decode_vector(b64: str) -> list[float] | None:
    """base64 -> floats; ``None`` for corrupt input so one bad row is skipped."""
    if not b64:
        return None
    try:
        raw = base64.b64decode(b64, validate=True)
    except (binascii.Error, ValueError, TypeError):
        return None
    if len(raw) % 4 != 0:
        return None
    return list(struct.unpack(f"<{len(raw) // 4}f", raw))


def _as_stored(vec: list[float]) -> list[float] | None:
    """A decoded row as search should see it, or None when it is unusable."""
    if not all(math.isfinite(x) for x in vec):
        return None
    total = 0.0
    for x in vec:
        total += x * x
    if total == 0.0 or abs(math.sqrt(total) - 1.0) <= NORM_TOLERANCE:
        return vec
    # Read it as if it had been written by encode_vector.
    unit = normalize(vec)
    return list(struct.unpack(f"<{len(unit)}f", struct.pack(f"<{len(unit)}f", *unit)))


def _floor(top: float, relative_floor: float) -> float:
    # top * 0.88 above a negative top would exclude the top row itself.
    return top * relative_floor if top > 0 else top * (2.0 - relative_floor)


def _count(k: float) -> int:
    if isinstance(k, float):
        if math.isnan(k):
            return 0
        if math.isinf(k):
            return 0 if k < 0 else 2**62
        return max(0, math.floor(k))
    # A negative k must mean "nothing", not "all but the last -k".
    return max(0, int(k))


def search_top_k(
    query_vec: Sequence[float],
    rows: Sequence[T],
    get_embedding: Callable[[T], str],
    k: int = 6,
    min_score: float = DEFAULT_MIN_SCORE,
    relative_floor: float = RELATIVE_FLOOR,
) -> list[ScoredRow[T]]:
    """Brute-force top-k by cosine (pure Python; the reference algorithm).

    Rows of another dimension, corrupt rows and rows holding NaN or infinity
    are skipped; ties keep input order.
    """
    limit = _count(k)
    if limit == 0 or not all(math.isfinite(float(x)) for x in query_vec):
        return []
    q = normalize(query_vec)
    if not q or not any(q):
        return []
    scored: list[ScoredRow[T]] = []
    for row in rows:
        decoded = decode_vector(get_embedding(row))
        if decoded is None or len(decoded) != len(q):
            continue
        vec = _as_stored(decoded)
        if vec is None:
            continue
        score = 0.0
        for x, y in zip(q, vec, strict=True):
            score += x * y
        if score < min_score:
            continue
        scored.append(ScoredRow(row=row, score=score))
    if not scored:
        return []
    scored.sort(key=lambda s: s.score, reverse=True)
    floor = _floor(scored[0].score, relative_floor)
    return [s for s in scored if s.score >= floor][:limit]


Float32Matrix = npt.NDArray[np.float32]
Float64Array = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class _Block:
    """All usable rows of one dimension."""

    positions: IntArray  # index of each matrix row in the original sequence
    matrix: Float32Matrix


class VectorIndex(Generic[T]):
    """Rows decoded once into float32 matrices (one per dimension).

    Scores are computed with a float32 matrix-vector product, then every
    decision the approximation could get wrong (near the absolute floor, the
    relative floor, the top score, or a tie inside the first ``k``) is
    re-scored with the reference's exact left-to-right float64 sum, so rows
    and order match :func:`search_top_k` exactly.
    """

    def __init__(self, rows: Sequence[T], get_embedding: Callable[[T], str]) -> None:
        self.rows: tuple[T, ...] = tuple(rows)
        by_dim: dict[int, tuple[list[int], list[Float32Matrix]]] = {}
        for position, row in enumerate(self.rows):
            vec = self._decode(get_embedding(row))
            if vec is None:
                continue
            slot = by_dim.setdefault(int(vec.shape[0]), ([], []))
            slot[0].append(position)
            slot[1].append(vec)
        self._blocks: dict[int, _Block] = {
            dim: _Block(
                positions=np.asarray(positions, dtype=np.int64),
                matrix=np.ascontiguousarray(np.vstack(vectors), dtype=np.float32),
            )
            for dim, (positions, vectors) in by_dim.items()
        }

    @staticmethod
    def _decode(b64: str) -> Float32Matrix | None:
        decoded = decode_vector(b64)
        if decoded is None:
            return None
        stored = _as_stored(decoded)
        if stored is None:
            return None
        return np.asarray(stored, dtype=np.float32)

    def __len__(self) -> int:
        return sum(int(block.positions.shape[0]) for block in self._blocks.values())

    @property
    def dimensions(self) -> tuple[int, ...]:
        return tuple(sorted(self._blocks))

    @staticmethod
    def _query(query_vec: Sequence[float]) -> Float64Array | None:
        if not all(math.isfinite(float(x)) for x in query_vec):
            return None
        q = normalize(query_vec)
        if not q or not any(q):
            return None
        return np.asarray(q, dtype=np.float64)

    def similarities(self, query_vec: Sequence[float]) -> Float64Array:
        """Cosine for every row (NaN where a row has no usable vector of this
        dimension). Approximate to ~1e-6; for ranking use :meth:`search`."""
        out = np.full(len(self.rows), np.nan, dtype=np.float64)
        q = self._query(query_vec)
        if q is None:
            return out
        block = self._blocks.get(int(q.shape[0]))
        if block is None:
            return out
        out[block.positions] = block.matrix @ q.astype(np.float32)
        return out

    def search(
        self,
        query_vec: Sequence[float],
        k: int = 6,
        min_score: float = DEFAULT_MIN_SCORE,
        relative_floor: float = RELATIVE_FLOOR,
    ) -> list[ScoredRow[T]]:
        """Same contract, rows and order as :func:`search_top_k`."""
        limit = _count(k)
        q = self._query(query_vec)
        if limit == 0 or q is None:
            return []
        block = self._blocks.get(int(q.shape[0]))
        if block is None:
            return []
        # Bound on |float32 approximation - exact|: float32 rounding of the
        # query plus worst-case float32 accumulation over `dim` terms of a
        # product of two unit vectors.
        eps = 4.0 * (q.shape[0] + 2) * 2.0**-24
        approx = (block.matrix @ q.astype(np.float32)).astype(np.float64)
        exact = np.zeros(approx.shape[0], dtype=bool)

        def refine(idx: IntArray) -> None:
            todo = idx[~exact[idx]]
            if todo.size:
                products = block.matrix[todo].astype(np.float64) * q
                # Sequential accumulation reproduces the reference's rounding.
                approx[todo] = np.add.accumulate(products, axis=1)[:, -1]
                exact[todo] = True

        cand = np.flatnonzero(approx >= min_score - eps)
        refine(cand[approx[cand] < min_score + eps])
        cand = cand[approx[cand] >= min_score]
        if cand.size == 0:
            return []
        refine(cand[approx[cand] >= approx[cand].max() - eps])
        floor = _floor(float(approx[cand].max()), relative_floor)
        refine(cand[np.abs(approx[cand] - floor) <= eps])
        cand = cand[approx[cand] >= floor]
        while True:
            # Stable order: score descending, then original position.
            order = cand[np.lexsort((block.positions[cand], -approx[cand]))]
            # Any row within eps of the k-th score could still be above it, or
            # tie with it: all of them get the exact score (this includes the
            # whole top k) before the order is trusted. Checking only adjacent
            # gaps inside the first k + 1 missed a row further down whose exact
            # score beats the k-th.
            kth = approx[order[min(limit, order.size) - 1]]
            near = order[approx[order] >= kth - eps]
            if bool(exact[near].all()):
                break
            refine(near)
        return [
            ScoredRow(row=self.rows[int(block.positions[i])], score=float(approx[i]))
            for i in order[:limit]
        ]
