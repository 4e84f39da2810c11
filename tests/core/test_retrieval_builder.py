"""The vectorised RetrievalIndex builder against the original per-passage one.

The original builder (kept here verbatim as the oracle) tokenised every
passage in Python with ``query_terms`` and one dict append per term; the
current one does the bigrams with numpy over the whole book and the words
once per distinct word. Postings and query results must be identical.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pytest

from memory.core.retrieval import _DENSE_RUN, _WORD, Passage, RetrievalIndex, query_terms
from memory.core.vector import encode_vector

from .conftest import split_passages


def _old_postings(sets: Iterable[Iterable[str]]) -> dict[str, np.ndarray]:
    lists: dict[str, list[int]] = {}
    for i, terms in enumerate(sets):
        for term in terms:
            lists.setdefault(term, []).append(i)
    return {term: np.asarray(ids, dtype=np.int64) for term, ids in lists.items()}


class _DictPostings(dict):
    """The original ``dict[str, array]`` postings, with the original overlap sum."""

    def gather(self, terms: Iterable[str]) -> np.ndarray:
        lists = [self[t] for t in set(terms) if t in self]
        return np.concatenate(lists) if lists else np.zeros(0, dtype=np.int64)


class OldRetrievalIndex(RetrievalIndex):
    def __init__(self, passages: Sequence[Passage]) -> None:
        super().__init__(passages)  # chapters, tags, vectors: unchanged code
        texts = [p.text or "" for p in self.passages]
        self._terms = _DictPostings(_old_postings(query_terms(t) for t in texts))  # type: ignore[assignment]  # duck-typed stand-in
        self._words = _old_postings(set(_WORD.findall(_DENSE_RUN.sub(" ", t))) for t in texts)
        self._lower_words = _old_postings({w.lower() for w in _WORD.findall(_DENSE_RUN.sub(" ", t))} for t in texts)
        self._bigrams = self._terms


TRICKY = [
    "",
    "İstanbul İSTANBUL ǅemal Straße STRASSE",  # lower() changes what a letter is
    "刘备骑马\n关羽\u3000张飞。The officers eloped; ladies were eloping",
    "ภาษาไทยในเมือง กรุงเทพ and Bangkok",
    "𠀀𠀁𠀂 rare ideographs 𠀀𠀁 and 한국어 텍스트 カタカナ ｶﾀｶﾅ",
    "Ελληνικά κείμενα, Русский текст, العربية",
    "lone \ud800 surrogate 刘\ud800备",
    "ends with a dense char 刘",
    "刘",
    "Mr. Darcy met Mr. Bingley at Netherfield; Darcy's pride",
    "123 ___ 4five six_seven",
    # Both ends of every dense range, in pairs (a bigram needs two).
    "\u0e00\u0e00 \u0e7f\u0e7f \u3040\u3040 \u30ff\u30ff \u3400\u3400 \u4dbf\u4dbf \u4e00\u4e00 \u9fff\u9fff",
    "\uf900\uf900 \ufaff\ufaff \uac00\uac00 \ud7af\ud7af \U00020000\U00020000 \U0003ffff\U0003ffff",
    # ... and their outside neighbours, which are not dense.
    "\u0dff\u0dff \u0e80\u0e80 \u303f\u303f \u3100\u3100 \u33ff\u33ff \u9fff\ua000 \uabff\uabff \ud7b0\ud7b0",
    "\U0001ffff\U0001ffff \U00040000\U00040000 \uf8ff\uf8ff \ufb00\ufb00",
]


def _check_same_postings(new: RetrievalIndex, old: OldRetrievalIndex) -> None:
    for name in ("_terms", "_words", "_lower_words"):
        want = getattr(old, name)
        got = getattr(new, name)
        assert len(got) == len(want), name
        for term, ids in want.items():
            assert got.get(term) is not None, (name, term)
            assert got.get(term).tolist() == ids.tolist(), (name, term)


@pytest.fixture(scope="module")
def corpus_sample(english_chapters, chinese_chapters) -> list[Passage]:
    english = split_passages(english_chapters[:20], 1200)
    chinese = split_passages(chinese_chapters[:20], 800)
    extra = [Passage(f"x{i}", 21 + i, t, ("Liu Bei",) if i % 3 == 0 else (),
                     encode_vector([1.0, float(i)]) if i % 2 else None) for i, t in enumerate(TRICKY)]
    # Interleave so passages of both languages share chapters and postings.
    mixed = [p for pair in zip(english, chinese, strict=False) for p in pair]
    return mixed + extra


def test_builder_postings_match_the_original_builder(corpus_sample):
    _check_same_postings(RetrievalIndex(corpus_sample), OldRetrievalIndex(corpus_sample))


def test_builder_postings_match_on_tricky_texts_alone():
    passages = [Passage(i, i + 1, t) for i, t in enumerate(TRICKY)]
    _check_same_postings(RetrievalIndex(passages), OldRetrievalIndex(passages))
    _check_same_postings(RetrievalIndex([]), OldRetrievalIndex([]))


def test_builder_query_results_match_the_original_builder(corpus_sample):
    new, old = RetrievalIndex(corpus_sample), OldRetrievalIndex(corpus_sample)
    queries = [p.text for p in corpus_sample[::7]] + TRICKY + ["吕布骑赤兔马", "Pemberley housekeeper"]
    names = [["Darcy", "Mr. Bingley"], ["刘备", ("关羽", "云长")], ["诸葛亮"], ["Liu Bei"], ["İstanbul"], []]
    compared = 0
    for n, text in enumerate(queries):
        for chapter in (25, 45):
            kw = dict(chapter=chapter, total_chapters=40, text=text, entities=names[n % len(names)],
                      k=10, query_vector=[1.0, 2.0] if n % 2 else None)
            got = [h.as_dict() for h in new.query(**kw)]
            assert got == [h.as_dict() for h in old.query(**kw)]
            compared += len(got)
    assert compared > 100  # the comparison saw real recalls, not only empty lists


def test_builder_name_lookups_match_the_original_builder(corpus_sample):
    new, old = RetrievalIndex(corpus_sample), OldRetrievalIndex(corpus_sample)
    for name in ["Darcy", "darcy", "Mr. Darcy", "刘备", "刘", "诸葛亮", "İstanbul", "istanbul", "Bangkok",
                 "กรุงเทพ", "𠀀𠀁", "Straße", "STRASSE"]:
        assert new._name_matches(name).tolist() == old._name_matches(name).tolist(), name


def test_bigram_postings_never_span_two_passages():
    index = RetrievalIndex([Passage("a", 1, "刘"), Passage("b", 2, "备")])
    assert index._terms.get("刘备") is None
    assert len(index._terms) == 0


def test_distinct_pairs_same_with_the_packed_sort_and_the_lexsort_fallback():
    from memory.core.retrieval import _distinct_pairs

    rng = np.random.default_rng(5)
    owners = rng.integers(0, 7, size=500)
    small = rng.integers(0, 40, size=500)
    got_ids, got_owners = _distinct_pairs(small, owners, 7)  # packed: id * 7 + owner
    want = sorted(set(zip(small.tolist(), owners.tolist(), strict=True)))
    assert list(zip(got_ids.tolist(), got_owners.tolist(), strict=True)) == want
    huge = small + 2**61  # id * 7 would overflow an int64: the lexsort path
    got_ids, got_owners = _distinct_pairs(huge, owners, 7)
    assert list(zip(got_ids.tolist(), got_owners.tolist(), strict=True)) == [(i + 2**61, o) for i, o in want]
    empty = np.zeros(0, dtype=np.int64)
    assert [a.tolist() for a in _distinct_pairs(empty, empty, 3)] == [[], []]


def test_every_dense_range_end_makes_bigrams():
    ends = ["\u0e00", "\u0e7f", "\u3040", "\u30ff", "\u3400", "\u4dbf", "\u4e00", "\u9fff",
            "\uf900", "\ufaff", "\uac00", "\ud7af", "\U00020000", "\U0003ffff"]
    index = RetrievalIndex([Passage(i, 1, c + c) for i, c in enumerate(ends)])
    postings = [index._terms.get(c + c) for c in ends]
    assert [p.tolist() if p is not None else None for p in postings] == [[i] for i in range(len(ends))]
