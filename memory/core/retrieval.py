"""Deterministic recall of distant passages (seed 003), with optional vectors.

score = 3 x entity hits + min(term overlap, 25) [+ bounded vector bonus]
keep score >= 6, at most 4 passages, never from the 3 chapters just before
the one being written (the recent summaries cover them), and from the first
quarter of the book only on an entity hit (term overlap that far back is
mostly coincidence). Every hit carries its breakdown so a person can see why
it was recalled. This module is the one seam to replace when retrieval
changes; the index is built once per book and queried per chapter.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from .vector import DEFAULT_MIN_SCORE, VectorIndex

__all__ = [
    "BOOK_FRACTION_EARLY",
    "ENTITY_WEIGHT",
    "MIN_SCORE",
    "OVERLAP_CAP",
    "SKIP_RECENT_CHAPTERS",
    "TOP_K",
    "VECTOR_BONUS_MAX",
    "Passage",
    "RetrievalHit",
    "RetrievalIndex",
    "query_terms",
    "retrieve",
]

ENTITY_WEIGHT = 3
OVERLAP_CAP = 25
MIN_SCORE = 6
TOP_K = 4
SKIP_RECENT_CHAPTERS = 3
# Passages with chapter <= book length / 4 need an entity hit.
BOOK_FRACTION_EARLY = 4
# A vector similarity s >= the model's min score adds
# floor(VECTOR_BONUS_MAX * (s - min) / (1 - min)) points: an integer, bounded
# well below what entities and terms can give together, so the deterministic
# breakdown still explains most of any score.
VECTOR_BONUS_MAX = 6

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

# Scripts written without spaces: a character bigram stands in for a word
# (most modern Chinese words are two characters).
_DENSE_RUN = re.compile(
    "[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\U00020000-\U0003ffff]+"
)
_WORD = re.compile(r"[^\W\d_]+")
# Function words carry no topic; in Chinese they mostly fall out of bigrams
# on their own, in English they would swamp the overlap.
_STOPWORDS = frozenset(
    """
    a about above after again against all also am an and any are aren as at be because been before being
    below between both but by can cannot could couldn did didn do does doesn doing don down during each
    even ever every few for from further had hadn has hasn have haven having he her here hers herself him
    himself his how however i if in into is isn it its itself just least less let like made make many may
    me might more most much must mustn my myself neither never no nor not now of off often on once one only
    or other ought our ours ourselves out over own quite rather really said same say says shall shan she
    should shouldn since so some such than that the their theirs them themselves then there these they
    this those though through thus till to too under until up upon us very was wasn we were weren what
    when where whether which while who whom whose why will with within without won would wouldn yet you
    your yours yourself yourselves mr mrs miss sir lady
    """.split()  # noqa: SIM905
)


def _stem(word: str) -> str:
    # Light suffix folding ("elopes", "eloped", "eloping" -> "elop"): enough
    # for inflections to meet, without a full stemmer's surprises on names.
    if len(word) > 4 and word.endswith("ies"):
        word = word[:-3] + "y"
    elif len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    if len(word) > 5 and word.endswith("ing"):
        word = word[:-3]
    elif len(word) > 4 and word.endswith("ed"):
        word = word[:-2]
    if len(word) > 4 and word.endswith("e"):
        word = word[:-1]
    return word


def query_terms(text: str) -> set[str]:
    """The overlap units of a text: character bigrams inside runs of CJK or
    Thai, and lower-cased, plural-folded content words (3+ letters, minus
    stopwords) everywhere else."""
    terms: set[str] = set()
    for run in _DENSE_RUN.findall(text):
        terms.update(run[i : i + 2] for i in range(len(run) - 1))
    rest = _DENSE_RUN.sub(" ", text)
    for word in _WORD.findall(rest.lower()):
        if len(word) >= 3 and word not in _STOPWORDS:
            terms.add(_stem(word))
    return terms


@dataclass(frozen=True)
class Passage:
    """One recallable passage. ``entities`` are names known to occur in it
    (e.g. from extraction); names in ``text`` are found without them.
    ``vector`` is an :func:`~memory.core.vector.encode_vector` string."""

    passage_id: Any
    chapter: int
    text: str
    entities: tuple[str, ...] = ()
    vector: str | None = None


@dataclass(frozen=True)
class RetrievalHit:
    """A recalled passage and why: ``score`` = ``entity_score`` +
    ``overlap_score`` + ``vector_bonus``."""

    passage_id: Any
    chapter: int
    matched_entities: tuple[str, ...]
    entity_score: int
    overlap: int
    overlap_score: int
    vector_similarity: float | None
    vector_bonus: int
    score: int
    passage: Passage = field(repr=False, compare=False)

    @property
    def bigram_score(self) -> int:
        """The seed's name for ``overlap_score``."""
        return self.overlap_score

    def as_dict(self) -> dict[str, Any]:
        """JSON-serialisable breakdown (without the passage text)."""
        return {
            "passage_id": self.passage_id,
            "chapter": self.chapter,
            "matched_entities": list(self.matched_entities),
            "entity_score": self.entity_score,
            "overlap": self.overlap,
            "bigram_score": self.overlap_score,
            "vector_similarity": self.vector_similarity,
            "vector_bonus": self.vector_bonus,
            "score": self.score,
        }


def _postings(sets: Iterable[Iterable[str]]) -> dict[str, IntArray]:
    lists: dict[str, list[int]] = {}
    for i, terms in enumerate(sets):
        for term in terms:
            lists.setdefault(term, []).append(i)
    return {term: np.asarray(ids, dtype=np.int64) for term, ids in lists.items()}


# Code-point ranges of _DENSE_RUN, for the vectorised bigram builder.
_DENSE_RANGES = (
    (0x0E00, 0x0E7F),
    (0x3040, 0x30FF),
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xF900, 0xFAFF),
    (0xAC00, 0xD7AF),
    (0x20000, 0x3FFFF),
)
# A bigram's key: first code point << 21 | second (code points are < 2**21).
_CP_BITS = 21
_EMPTY: IntArray = np.zeros(0, dtype=np.int64)


def _code_points(text: str) -> npt.NDArray[np.uint32]:
    # surrogatepass: a lone surrogate is a code point like any other (never dense).
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


def _dense_mask(cps: npt.NDArray[np.uint32]) -> BoolArray:
    mask = np.zeros(cps.shape[0], dtype=bool)
    for lo, hi in _DENSE_RANGES:
        mask |= (cps >= lo) & (cps <= hi)
    return mask


def _bigram_key(term: str) -> int | None:
    """The key of a dense character bigram (as ``query_terms`` makes them), else None."""
    if len(term) == 2 and _DENSE_RUN.fullmatch(term):
        return (ord(term[0]) << _CP_BITS) | ord(term[1])
    return None


def _distinct_pairs(ids: IntArray, owners: IntArray, n: int) -> tuple[IntArray, IntArray]:
    """Distinct ``(id, owner)`` pairs sorted by id, then owner (owners < n)."""
    if ids.size == 0:
        return _EMPTY, _EMPTY
    if (int(ids.max()) + 1) * n < 2**62:
        # One int64 sort of id * n + owner, then drop repeats.
        pairs = np.sort(ids * n + owners)
        pairs = pairs[np.r_[True, pairs[1:] != pairs[:-1]]]
        return pairs // n, pairs % n
    order = np.lexsort((owners, ids))
    ids, owners = ids[order], owners[order]
    fresh = np.r_[True, (ids[1:] != ids[:-1]) | (owners[1:] != owners[:-1])]
    return ids[fresh], owners[fresh]


def _grouped(ids: IntArray, owners: IntArray, n: int, names: Sequence[str]) -> dict[str, IntArray]:
    """``{names[id]: ascending distinct owners}`` for every id that occurs (id -1: none)."""
    keep = ids >= 0
    ids, owners = _distinct_pairs(ids[keep], owners[keep], n)
    bounds = np.searchsorted(ids, np.arange(len(names) + 1, dtype=np.int64))
    return {name: owners[bounds[i] : bounds[i + 1]] for i, name in enumerate(names) if bounds[i + 1] > bounds[i]}


def _word_postings(texts: Sequence[str]) -> tuple[dict[str, IntArray], dict[str, IntArray], dict[str, IntArray]]:
    """Postings of the Latin-script terms (as :func:`query_terms` makes them),
    of the words as written, and of their lower-case forms, with the Python
    work done once per distinct word rather than once per occurrence."""
    n = len(texts)
    flat: list[str] = []  # every word of every text
    counts: list[int] = []
    lowered: list[str] = []  # words of lower-cased non-ASCII texts
    lowered_counts: list[int] = []
    ascii_texts: list[bool] = []
    for t in texts:
        rest = _DENSE_RUN.sub(" ", t)
        found = _WORD.findall(rest)
        flat.extend(found)
        counts.append(len(found))
        # For ASCII text the words of rest.lower() are the lowered words of
        # rest; elsewhere lower() can change what counts as a letter.
        ascii_texts.append(rest.isascii())
        more = [] if ascii_texts[-1] else _WORD.findall(rest.lower())
        lowered.extend(more)
        lowered_counts.append(len(more))
    owners = np.repeat(np.arange(n, dtype=np.int64), counts)
    vocab = list(dict.fromkeys(flat))
    word_id = {w: i for i, w in enumerate(vocab)}
    ids = np.fromiter(map(word_id.__getitem__, flat), dtype=np.int64, count=len(flat))
    lower_vocab = list(dict.fromkeys(w.lower() for w in vocab))
    lower_id = {w: i for i, w in enumerate(lower_vocab)}
    to_lower = np.fromiter((lower_id[w.lower()] for w in vocab), dtype=np.int64, count=len(vocab))
    lower_ids = to_lower[ids]

    term_id: dict[str, int] = {}

    def term_of(word: str) -> int:
        if len(word) < 3 or word in _STOPWORDS:
            return -1
        return term_id.setdefault(_stem(word), len(term_id))

    from_lower = np.fromiter(map(term_of, lower_vocab), dtype=np.int64, count=len(lower_vocab))
    more_vocab = list(dict.fromkeys(lowered))
    more_id = {w: i for i, w in enumerate(more_vocab)}
    from_more = np.fromiter(map(term_of, more_vocab), dtype=np.int64, count=len(more_vocab))
    more_ids = np.fromiter(map(more_id.__getitem__, lowered), dtype=np.int64, count=len(lowered))
    on_ascii = np.asarray(ascii_texts, dtype=bool)[owners]
    term_ids = np.concatenate([from_lower[lower_ids[on_ascii]], from_more[more_ids]])
    term_owners = np.concatenate(
        [owners[on_ascii], np.repeat(np.arange(n, dtype=np.int64), lowered_counts)]
    )
    terms = list(term_id)
    return (
        _grouped(term_ids, term_owners, n, terms),
        _grouped(ids, owners, n, vocab),
        _grouped(lower_ids, owners, n, lower_vocab),
    )


class _Postings:
    """Term -> ascending passage ids. Dense bigrams live in sorted numpy
    arrays (CSR: ``keys``, ``offsets``, ``ids``); every other term in a dict.
    Looked up like the ``dict[str, IntArray]`` it replaces (``get``)."""

    def __init__(self, keys: IntArray, offsets: IntArray, ids: IntArray, other: dict[str, IntArray]) -> None:
        self._keys = keys
        self._offsets = offsets
        self._ids = ids
        self._other = other

    @classmethod
    def build(cls, texts: Sequence[str], other: dict[str, IntArray]) -> _Postings:
        """Distinct dense bigrams of every text, in one pass over all of them."""
        n = len(texts)
        # One separator (not dense) between texts, so no bigram spans two.
        cps = _code_points("\n".join(texts))
        owner = np.repeat(np.arange(n, dtype=np.int64), [len(t) + 1 for t in texts])[: cps.shape[0]]
        dense = _dense_mask(cps)
        at = np.flatnonzero(dense[:-1] & dense[1:])
        keys = (cps[at].astype(np.int64) << _CP_BITS) | cps[at + 1].astype(np.int64)
        keys, pids = _distinct_pairs(keys, owner[at], n)
        starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]]) if keys.size else _EMPTY
        offsets = np.append(starts, keys.shape[0]).astype(np.int64)
        return cls(keys[starts], offsets, pids, other)

    def _slot(self, key: int) -> int:
        pos = int(np.searchsorted(self._keys, key))
        return pos if pos < self._keys.shape[0] and int(self._keys[pos]) == key else -1

    def get(self, term: str) -> IntArray | None:
        key = _bigram_key(term)
        if key is not None:
            pos = self._slot(key)
            if pos >= 0:
                return self._ids[self._offsets[pos] : self._offsets[pos + 1]]
        return self._other.get(term)

    def __len__(self) -> int:
        return int(self._keys.shape[0]) + len(self._other)

    def gather(self, terms: Iterable[str]) -> IntArray:
        """The posting lists of every distinct term present, concatenated."""
        keys: list[int] = []
        parts: list[IntArray] = []
        for term in set(terms):
            key = _bigram_key(term)
            if key is not None:
                keys.append(key)
            elif (ids := self._other.get(term)) is not None:
                parts.append(ids)
        if keys and self._keys.size:
            wanted = np.asarray(keys, dtype=np.int64)
            pos = np.minimum(np.searchsorted(self._keys, wanted), self._keys.shape[0] - 1)
            found = pos[self._keys[pos] == wanted]
            starts = self._offsets[found]
            lengths = self._offsets[found + 1] - starts
            # Every position starts[j] .. starts[j] + lengths[j] - 1, in one array.
            before = np.cumsum(lengths) - lengths
            shift = np.repeat(starts - before, lengths)
            parts.append(self._ids[shift + np.arange(shift.shape[0], dtype=np.int64)])
        return np.concatenate(parts) if parts else _EMPTY


def _is_dense(name: str) -> bool:
    return bool(_DENSE_RUN.fullmatch(name))


class RetrievalIndex:
    """Passages tokenised once; each query touches only posting lists."""

    def __init__(self, passages: Sequence[Passage]) -> None:
        self.passages: tuple[Passage, ...] = tuple(passages)
        n = len(self.passages)
        self._chapters: IntArray = np.asarray([p.chapter for p in self.passages], dtype=np.int64).reshape(n)
        texts = [p.text or "" for p in self.passages]
        # Tokenised once: dense (CJK/Thai) bigrams vectorised over the whole
        # book, words with Python work per distinct word.
        latin_terms, self._words, self._lower_words = _word_postings(texts)
        self._terms = _Postings.build(texts, latin_terms)
        # The term postings already hold every CJK bigram, so they double as
        # the bigram index for names.
        self._bigrams = self._terms
        self._tagged = _postings({e.casefold() for e in p.entities if e} for p in self.passages)
        with_vectors = [i for i, p in enumerate(self.passages) if p.vector]
        self._vector_rows: IntArray = np.asarray(with_vectors, dtype=np.int64)
        self._vectors: VectorIndex[int] | None = (
            VectorIndex(with_vectors, lambda i: self.passages[i].vector or "") if with_vectors else None
        )
        # The same cast is looked up query after query; a name's matches depend only on
        # the (immutable) passages, so each is verified against the texts once.
        self._name_memo: dict[str, IntArray] = {}

    def __len__(self) -> int:
        return len(self.passages)

    def _intersect(self, postings: _Postings | dict[str, IntArray], keys: Sequence[str]) -> IntArray:
        found: IntArray | None = None
        for key in keys:
            ids = postings.get(key)
            if ids is None:
                return np.zeros(0, dtype=np.int64)
            found = ids if found is None else np.intersect1d(found, ids, assume_unique=True)
        return found if found is not None else np.arange(len(self.passages), dtype=np.int64)

    def _verify(self, ids: IntArray, pattern: re.Pattern[str]) -> IntArray:
        keep = [int(i) for i in ids if pattern.search(self.passages[int(i)].text or "")]
        return np.asarray(keep, dtype=np.int64)

    def _name_matches(self, name: str) -> IntArray:
        """Passages whose text contains ``name`` as a whole name."""
        found = self._name_memo.get(name)
        if found is None:
            found = self._name_memo[name] = self._name_scan(name)
        return found

    def _name_scan(self, name: str) -> IntArray:
        if _is_dense(name):
            if len(name) == 1:
                ids = np.arange(len(self.passages), dtype=np.int64)
            else:
                ids = self._intersect(self._bigrams, [name[i : i + 2] for i in range(len(name) - 1)])
                if len(name) == 2:
                    return ids
            return self._verify(ids, re.compile(re.escape(name)))
        words = _WORD.findall(name)
        if not words or _DENSE_RUN.search(name):
            return self._verify(np.arange(len(self.passages), dtype=np.int64), re.compile(re.escape(name)))
        # A capitalised name is matched case-sensitively so "Will" is not "will".
        exact = name != name.lower()
        ids = self._intersect(self._words, words) if exact else self._intersect(self._lower_words, words)
        if len(words) == 1 and name.strip() == words[0]:
            return ids
        pattern = r"(?<!\w)" + r"\W+".join(re.escape(w) for w in words) + r"(?!\w)"
        return self._verify(ids, re.compile(pattern, 0 if exact else re.IGNORECASE))

    def _entity_mask(self, aliases: Sequence[str]) -> BoolArray:
        mask = np.zeros(len(self.passages), dtype=bool)
        for alias in aliases:
            alias = alias.strip()
            if not alias:
                continue
            mask[self._name_matches(alias)] = True
            tagged = self._tagged.get(alias.casefold())
            if tagged is not None:
                mask[tagged] = True
        return mask

    def query(
        self,
        *,
        chapter: int,
        total_chapters: int,
        text: str,
        entities: Sequence[str | Sequence[str]] = (),
        k: int = TOP_K,
        query_vector: Sequence[float] | None = None,
        min_score: int = MIN_SCORE,
        vector_min_score: float = DEFAULT_MIN_SCORE,
    ) -> list[RetrievalHit]:
        """Passages worth recalling while writing ``chapter``, best first.

        ``total_chapters`` is the planned length (0 if unknown; then the
        chapters written so far count as the book). ``entities`` are names to
        look for; an entry may be a tuple of aliases, which counts once.
        Ties are broken by entity score, then the later chapter, then
        passage order.
        """
        n = len(self.passages)
        if n == 0 or k <= 0:
            return []
        groups: list[tuple[str, ...]] = []
        seen: set[str] = set()
        for entry in entities:
            aliases = (entry,) if isinstance(entry, str) else tuple(entry)
            keys = {a.strip().casefold() for a in aliases} - {""}
            # A name given twice, alone or as someone's alias, is one entity.
            if keys and not keys & seen:
                seen |= keys
                groups.append(aliases)
        masks = [self._entity_mask(g) for g in groups]
        hits: IntArray = np.zeros(n, dtype=np.int64)
        for mask in masks:
            hits += mask

        matched = self._terms.gather(query_terms(text or ""))
        overlap = np.bincount(matched, minlength=n).astype(np.int64)
        overlap_score = np.minimum(overlap, OVERLAP_CAP)

        similarity = np.full(n, np.nan)
        bonus = np.zeros(n, dtype=np.int64)
        if query_vector is not None and self._vectors is not None:
            sims = np.round(self._vectors.similarities(query_vector), 6)
            similarity[self._vector_rows] = sims
            strong = np.nan_to_num(similarity, nan=-np.inf) >= vector_min_score
            span = max(1e-9, 1.0 - vector_min_score)
            raw = np.floor(VECTOR_BONUS_MAX * (similarity[strong] - vector_min_score) / span + 1e-9)
            bonus[strong] = np.clip(raw, 0, VECTOR_BONUS_MAX).astype(np.int64)

        entity_score = ENTITY_WEIGHT * hits
        total = entity_score + overlap_score + bonus
        book = max(total_chapters, chapter - 1)
        early = self._chapters * BOOK_FRACTION_EARLY <= book
        eligible = self._chapters <= chapter - 1 - SKIP_RECENT_CHAPTERS
        keep = np.flatnonzero(eligible & (total >= min_score) & (~early | (hits > 0)))
        if keep.size == 0:
            return []
        order = keep[np.lexsort((keep, -self._chapters[keep], -hits[keep], -total[keep]))][: min(k, keep.size)]
        out = []
        for i in (int(j) for j in order):
            sim = float(similarity[i])
            out.append(
                RetrievalHit(
                    passage_id=self.passages[i].passage_id,
                    chapter=self.passages[i].chapter,
                    matched_entities=tuple(g[0] for g, m in zip(groups, masks, strict=True) if m[i]),
                    entity_score=int(entity_score[i]),
                    overlap=int(overlap[i]),
                    overlap_score=int(overlap_score[i]),
                    vector_similarity=None if math.isnan(sim) else sim,
                    vector_bonus=int(bonus[i]),
                    score=int(total[i]),
                    passage=self.passages[i],
                )
            )
        return out


def retrieve(
    passages: Sequence[Passage],
    *,
    chapter: int,
    total_chapters: int,
    text: str,
    entities: Sequence[str | Sequence[str]] = (),
    k: int = TOP_K,
    query_vector: Sequence[float] | None = None,
) -> list[RetrievalHit]:
    """One-shot form of :meth:`RetrievalIndex.query` (builds the index; for
    repeated queries on one book build a :class:`RetrievalIndex` once)."""
    return RetrievalIndex(passages).query(
        chapter=chapter,
        total_chapters=total_chapters,
        text=text,
        entities=entities,
        k=k,
        query_vector=query_vector,
    )
