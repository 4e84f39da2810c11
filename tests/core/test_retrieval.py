"""Deterministic retrieval: rules on synthetic passages, then both corpora."""

from __future__ import annotations

import json
import math

import pytest

from memory.core.retrieval import (
    ENTITY_WEIGHT,
    MIN_SCORE,
    OVERLAP_CAP,
    SKIP_RECENT_CHAPTERS,
    TOP_K,
    VECTOR_BONUS_MAX,
    Passage,
    RetrievalIndex,
    query_terms,
    retrieve,
)
from memory.core.vector import encode_vector

from .conftest import split_passages


def test_seed_constants():
    assert (ENTITY_WEIGHT, OVERLAP_CAP, MIN_SCORE, TOP_K, SKIP_RECENT_CHAPTERS) == (3, 25, 6, 4, 3)


def test_query_terms_chinese_bigrams_and_english_content_words():
    assert query_terms("刘备骑马") == {"刘备", "备骑", "骑马"}
    assert query_terms("中。文") == set()
    assert query_terms("The officers eloped; ladies were eloping with letters") == {"officer", "elop", "lady", "letter"}
    assert query_terms("Officers OFFICER") == {"officer"}
    assert query_terms("an of the it") == set()
    assert query_terms("dress glass houses") == {"dress", "glass", "hous"}


def P(pid: object, chapter: int, text: str, entities: tuple[str, ...] = (), vector: str | None = None) -> Passage:
    return Passage(pid, chapter, text, entities, vector)


def q(index, **kw):
    kw.setdefault("chapter", 100)
    kw.setdefault("total_chapters", 100)
    kw.setdefault("text", "")
    return [h.passage_id for h in index.query(**kw)]


def test_entity_hit_scores_three_and_overlap_caps_at_twenty_five():
    words = " ".join(f"word{chr(97 + i)}{chr(97 + j)}" for i in range(6) for j in range(6))
    index = RetrievalIndex([P("p", 50, "Alice " + words)])
    hit = index.query(chapter=100, total_chapters=100, text=words, entities=["Alice", "Bob"])[0]
    assert (hit.entity_score, hit.overlap, hit.overlap_score, hit.score) == (3, 36, 25, 28)
    assert hit.bigram_score == 25
    assert hit.matched_entities == ("Alice",)
    assert hit.vector_similarity is None and hit.vector_bonus == 0


def test_threshold_six_is_inclusive():
    index = RetrievalIndex([P("p", 50, "Alice walked garden river")])
    assert q(index, text="garden river", entities=["Alice"]) == []  # 3 + 2 = 5
    assert q(index, text="garden", entities=["Alice"]) == []
    assert q(index, text="walk garden river", entities=["Alice"]) == ["p"]  # 3 + 3 = 6
    assert q(index, text="walk garden river", entities=["Alice"], min_score=7) == []


def test_overlap_alone_can_recall_outside_the_first_quarter():
    text = "lantern harbour midnight smuggler ledger quay"
    index = RetrievalIndex([P("late", 50, text), P("early", 25, text), P("edge", 26, text)])
    assert q(index, text=text) == ["late", "edge"]
    assert q(index, text=text.rsplit(" ", 1)[0]) == []  # overlap 5 < 6


def test_first_quarter_needs_an_entity_hit():
    text = "lantern harbour midnight smuggler ledger quay"
    index = RetrievalIndex([P("early", 25, "Bob " + text)])
    assert q(index, text=text) == []
    assert q(index, text=text, entities=["Bob"]) == ["early"]


def test_unknown_book_length_uses_chapters_written():
    text = "lantern harbour midnight smuggler ledger quay"
    index = RetrievalIndex([P("p", 12, text)])
    assert q(index, chapter=50, total_chapters=0, text=text) == []  # 12*4 <= 49
    assert q(index, chapter=40, total_chapters=0, text=text) == ["p"]  # 12*4 > 39


def test_three_chapters_before_the_current_one_are_skipped():
    text = "lantern harbour midnight smuggler ledger quay"
    index = RetrievalIndex([P(f"c{c}", c, text) for c in range(90, 102)])
    got = q(index, chapter=100, total_chapters=200, text=text, k=20)
    assert got == ["c96", "c95", "c94", "c93", "c92", "c91", "c90"]


def test_at_most_k_hits_best_first_with_deterministic_ties():
    text = "lantern harbour midnight smuggler ledger quay"
    index = RetrievalIndex([P(f"c{c}", c, text + (" Bob" if c == 60 else "")) for c in range(50, 70)])
    assert q(index, text=text, entities=["Bob"]) == ["c60", "c69", "c68", "c67"]
    assert q(index, text=text, k=2) == ["c69", "c68"]
    assert q(index, text=text, k=0) == []
    assert RetrievalIndex([]).query(chapter=5, total_chapters=5, text="x") == []


def test_ties_prefer_entity_evidence_then_later_chapter_then_passage_order():
    index = RetrievalIndex([
        P("a", 60, "Bob lantern harbour midnight"),  # 3 + 3
        P("b", 60, "lantern harbour midnight smuggler ledger quay"),  # 0 + 6
        P("c", 61, "lantern harbour midnight smuggler ledger quay"),
        P("d", 61, "lantern harbour midnight smuggler ledger quay"),
    ])
    got = q(index, text="lantern harbour midnight smuggler ledger quay", entities=["Bob"])
    assert got == ["a", "c", "d", "b"]


def test_aliases_count_as_one_entity_and_duplicates_once():
    index = RetrievalIndex([P("p", 50, "Lizzy and Elizabeth Bennet walked")])
    hit = index.query(chapter=100, total_chapters=100, text="", entities=[("Elizabeth", "Lizzy"), "Elizabeth",
                                                                          ("Lizzy", "Elizabeth"), "Bennet"])[0]
    assert hit.matched_entities == ("Elizabeth", "Bennet")
    assert hit.entity_score == 6


def test_capitalised_names_match_case_sensitively_as_whole_words():
    index = RetrievalIndex([P("verb", 50, "she will go and hope"), P("name", 51, "Will went home"),
                            P("part", 52, "Willow trees")])
    assert q(index, entities=["Will", "x"], min_score=3) == ["name"]
    assert q(index, entities=["will"], min_score=3) == ["name", "verb"]


def test_multi_word_names_match_across_punctuation_only_in_order():
    index = RetrievalIndex([P("a", 50, "said Mr. Darcy."), P("b", 51, "Darcy met Mr. Bingley"),
                            P("c", 52, "mr darcy")])
    assert q(index, entities=["Mr. Darcy"], min_score=3) == ["a"]
    assert q(index, entities=["mr darcy"], min_score=3) == ["c", "a"]


def test_chinese_names_of_any_length():
    index = RetrievalIndex([P("a", 50, "诸葛亮出山"), P("b", 51, "诸葛瑾来"), P("c", 52, "布衣"),
                            P("d", 53, "关羽斩华雄"), P("e", 54, "葛亮")])
    assert q(index, entities=["诸葛亮"], min_score=3) == ["a"]
    assert q(index, entities=["关羽"], min_score=3) == ["d"]
    assert q(index, entities=["布"], min_score=3) == ["c"]
    assert q(index, entities=["Zhuge 亮"], min_score=3) == []


def test_tagged_entities_count_without_appearing_in_text():
    index = RetrievalIndex([P("p", 50, "he rode north", entities=("Liu Bei",))])
    assert q(index, entities=["liu bei"], min_score=3) == ["p"]
    assert q(index, entities=["  "], min_score=0, text="rode") == ["p"]


def test_vector_similarity_adds_a_bounded_integer_bonus():
    near = encode_vector([1.0, 0.0])
    far = encode_vector([0.0, 1.0])
    index = RetrievalIndex([P("near", 50, "lantern harbour midnight", vector=near),
                            P("far", 51, "lantern harbour midnight", vector=far),
                            P("none", 52, "lantern harbour midnight")])
    hits = index.query(chapter=100, total_chapters=100, text="lantern harbour midnight", query_vector=[1.0, 0.0])
    assert [h.passage_id for h in hits] == ["near"]
    assert hits[0].vector_bonus == VECTOR_BONUS_MAX == 6
    assert hits[0].score == 9
    assert hits[0].vector_similarity == pytest.approx(1.0)
    mid = index.query(chapter=100, total_chapters=100, text="lantern harbour midnight",
                      query_vector=[0.6, 0.8], min_score=0)
    by_id = {h.passage_id: h for h in mid}
    assert by_id["near"].vector_bonus == 3  # floor(6 * 0.4 / 0.8)
    assert by_id["far"].vector_bonus == 4  # floor(6 * 0.6 / 0.8)
    assert by_id["none"].vector_similarity is None and by_id["none"].vector_bonus == 0
    below = index.query(chapter=100, total_chapters=100, text="lantern", query_vector=[1.0, 0.0], min_score=0,
                        vector_min_score=0.5)
    assert {h.passage_id: h.vector_bonus for h in below} == {"near": 6, "far": 0, "none": 0}


def test_vector_bonus_never_bypasses_the_first_quarter_rule():
    index = RetrievalIndex([P("early", 5, "lantern harbour midnight", vector=encode_vector([1.0, 0.0]))])
    assert q(index, text="lantern harbour midnight", query_vector=[1.0, 0.0]) == []


def test_hits_serialise_their_breakdown():
    index = RetrievalIndex([P(7, 50, "Bob lantern harbour midnight")])
    hit = index.query(chapter=100, total_chapters=100, text="lantern harbour midnight", entities=["Bob"])[0]
    assert json.loads(json.dumps(hit.as_dict())) == {
        "passage_id": 7, "chapter": 50, "matched_entities": ["Bob"], "entity_score": 3, "overlap": 3,
        "bigram_score": 3, "vector_similarity": None, "vector_bonus": 0, "score": 6}
    assert hit.passage.text.startswith("Bob")
    assert retrieve([P(7, 50, "Bob lantern harbour midnight")], chapter=100, total_chapters=100,
                    text="lantern harbour midnight", entities=["Bob"]) == [hit]
    assert len(index) == 1


# --- corpora -------------------------------------------------------------

@pytest.fixture(scope="module")
def english_index(english_chapters):
    passages = split_passages(english_chapters, 2500)
    return RetrievalIndex(passages), passages


@pytest.fixture(scope="module")
def chinese_index(chinese_chapters):
    passages = split_passages(chinese_chapters, 1000)
    return RetrievalIndex(passages), passages


def test_english_recalls_the_chapter_that_introduced_a_named_character(english_index, english_chapters):
    index, _ = english_index
    assert len(english_chapters) == 61
    hits = index.query(chapter=61, total_chapters=61, entities=["Mrs. Reynolds"],
                       text="Elizabeth tours Pemberley with her aunt and uncle; the housekeeper praises her "
                            "master and shows the portrait gallery")
    assert hits and {h.chapter for h in hits} == {43}
    assert all(h.matched_entities == ("Mrs. Reynolds",) for h in hits)
    assert all("Reynolds" in h.passage.text for h in hits)


def test_english_recalls_a_named_object_for_a_later_chapter(english_index):
    index, _ = english_index
    hits = index.query(chapter=60, total_chapters=61, entities=["Rosings"],
                       text="Lady Catherine's great house, the parsonage at Hunsford and Charlotte's garden")
    assert hits and all("Rosings" in h.passage.text for h in hits)
    assert all(h.chapter <= 56 for h in hits)


def test_english_first_quarter_not_recalled_on_overlap_alone(english_index):
    index, passages = english_index
    early = next(p for p in passages if p.chapter == 3)
    late = next(p for p in passages if p.chapter == 40)
    recalled = index.query(chapter=61, total_chapters=61, text=late.text)
    assert recalled and all(h.entity_score == 0 and h.overlap_score == 25 for h in recalled)
    hits = index.query(chapter=61, total_chapters=61, text=early.text)
    assert all(h.chapter * 4 > 61 for h in hits)
    assert early.passage_id not in [h.passage_id for h in hits]
    named = index.query(chapter=61, total_chapters=61, text=early.text, entities=["Bingley"], k=len(passages))
    assert early.passage_id in [h.passage_id for h in named]


def test_chinese_recalls_red_hare_for_a_later_chapter(chinese_index, chinese_chapters):
    index, _ = chinese_index
    assert len(chinese_chapters) == 120
    hits = index.query(chapter=100, total_chapters=120, entities=["赤兔"], text="吕布骑赤兔马")
    assert hits and all("赤兔" in h.passage.text for h in hits)
    assert all(h.matched_entities == ("赤兔",) and h.entity_score == 3 for h in hits)


def test_chinese_recalls_a_named_character(chinese_index):
    index, _ = chinese_index
    hits = index.query(chapter=110, total_chapters=120, entities=["貂蝉"], text="王允设连环计，貂蝉拜月")
    assert hits and all("貂蝉" in h.passage.text for h in hits)
    assert {h.chapter for h in hits} <= set(range(1, 107))


def test_chinese_first_quarter_not_recalled_on_bigrams_alone(chinese_index):
    index, passages = chinese_index
    early = next(p for p in passages if p.chapter == 1 and "桃园" in p.text)
    hits = index.query(chapter=100, total_chapters=120, text=early.text)
    assert hits, "overlap alone still recalls later passages"
    assert all(h.chapter * 4 > 120 for h in hits)
    named = index.query(chapter=100, total_chapters=120, text=early.text, entities=["张飞"], k=200)
    assert early.passage_id in [h.passage_id for h in named]


# --- from the mutation run: one behaviour per test -----------------------

@pytest.mark.parametrize(
    ("word", "term"),
    [
        ("ties", "tie"), ("flies", "fly"), ("countries", "country"),  # -ies needs 5+ letters
        ("gas", "gas"), ("dogs", "dog"),  # -s needs 4+ letters
        ("census", "census"), ("analysis", "analysis"), ("glass", "glass"),  # -us, -is, -ss kept
        ("thing", "thing"), ("riding", "rid"),  # -ing needs 6+ letters
        ("shed", "shed"), ("cared", "car"),  # -ed needs 5+ letters
        ("cake", "cake"), ("stone", "ston"),  # -e needs 5+ letters
        ("war", "war"),  # three letters is a content word
    ],
)
def test_suffix_folding_length_guards(word, term):
    assert query_terms(word) == {term}


def test_dense_runs_separate_adjacent_latin_words():
    assert query_terms("Liu刘备Bei") == {"liu", "bei", "刘备"}


def test_chinese_name_needs_its_characters_adjacent_not_just_its_bigrams():
    index = RetrievalIndex([P("split", 50, "诸葛瑾与葛亮"), P("whole", 51, "诸葛亮"), P("three", 52, "诸葛瑾说葛亮来了")])
    assert q(index, entities=["诸葛亮"], min_score=3) == ["whole"]
    assert q(index, entities=["刘关张"], min_score=3) == []


def test_name_mixing_latin_and_chinese_is_found_as_written():
    index = RetrievalIndex([P("p", 50, "他叫Liu刘备"), P("q", 51, "Liu and 刘备")])
    assert q(index, entities=["Liu刘备"], min_score=3) == ["p"]


def test_latin_name_directly_followed_by_chinese_is_found():
    index = RetrievalIndex([P("p", 50, "Darcy说了很多话"), P("q", 51, "没有名字")])
    assert q(index, entities=["Darcy"], min_score=3) == ["p"]


def test_multi_word_capitalised_name_is_verified_case_sensitively():
    index = RetrievalIndex([P("p", 50, "the mr. darcy of gossip, and later Mr Bennet met Darcy")])
    assert q(index, entities=["Mr. Darcy"], min_score=3) == []


def test_blank_alias_does_not_hide_the_next_alias():
    index = RetrievalIndex([P("p", 50, "Lizzy walked")])
    assert q(index, entities=[("  ", "Lizzy")], min_score=3) == ["p"]


def test_negative_k_returns_nothing():
    text = "lantern harbour midnight smuggler ledger quay"
    index = RetrievalIndex([P("a", 50, text), P("b", 51, text)])
    assert q(index, text=text, k=-1) == []


def test_k_of_one_returns_the_best_hit():
    text = "lantern harbour midnight smuggler ledger quay"
    index = RetrievalIndex([P("a", 50, text), P("b", 51, text)])
    assert q(index, text=text, k=1) == ["b"]


def test_a_name_repeated_after_another_still_counts_once():
    index = RetrievalIndex([P("p", 50, "Bob and Alice")])
    hit = index.query(chapter=100, total_chapters=100, text="", entities=["Bob", "Alice", "Bob"])[0]
    assert (hit.matched_entities, hit.entity_score) == (("Bob", "Alice"), 6)


def test_query_without_vector_ignores_passage_vectors():
    index = RetrievalIndex([P("p", 50, "Bob lantern harbour midnight", vector=encode_vector([1.0, 0.0]))])
    (hit,) = index.query(chapter=100, total_chapters=100, text="lantern harbour midnight", entities=["Bob"])
    assert (hit.vector_similarity, hit.vector_bonus, hit.score) == (None, 0, 6)


def test_query_vector_without_passage_vectors_adds_nothing():
    index = RetrievalIndex([P("p", 50, "Bob lantern harbour midnight")])
    (hit,) = index.query(chapter=100, total_chapters=100, text="lantern harbour midnight", entities=["Bob"],
                         query_vector=[1.0, 0.0])
    assert (hit.vector_similarity, hit.vector_bonus, hit.score) == (None, 0, 6)


def test_vector_similarity_is_reported_to_six_decimals():
    index = RetrievalIndex([P("p", 50, "Bob lantern harbour midnight", vector=encode_vector([1.0, 0.0]))])
    (hit,) = index.query(chapter=100, total_chapters=100, text="lantern harbour midnight", entities=["Bob"],
                         query_vector=[0.123456789, 1.0])
    cosine = 0.123456789 / math.hypot(0.123456789, 1.0)
    assert hit.vector_similarity == round(cosine, 6)


def test_passages_without_vectors_get_no_bonus_at_any_threshold():
    index = RetrievalIndex([P("v", 50, "lantern harbour midnight", vector=encode_vector([0.0, 1.0])),
                            P("none", 51, "lantern harbour midnight smuggler ledger quay")])
    hits = index.query(chapter=100, total_chapters=100, text="lantern harbour midnight smuggler ledger quay",
                       query_vector=[1.0, 0.0], vector_min_score=0.0, min_score=0)
    assert {h.passage_id: h.vector_bonus for h in hits} == {"v": 0, "none": 0}


def test_similarity_just_above_the_threshold_earns_no_point_yet():
    index = RetrievalIndex([P("p", 50, "lantern harbour midnight", vector=encode_vector([1.0, 0.0]))])
    (hit,) = index.query(chapter=100, total_chapters=100, text="lantern harbour midnight",
                         query_vector=[0.6, 0.8], vector_min_score=0.55, min_score=0)
    assert hit.vector_bonus == 0  # floor(6 * 0.05 / 0.45)


def test_unknown_plan_first_quarter_boundary_uses_chapters_written():
    text = "lantern harbour midnight smuggler ledger quay"
    index = RetrievalIndex([P("p", 25, text)])
    assert q(index, chapter=100, total_chapters=0, text=text) == ["p"]  # book 99: 100 > 99
    assert q(index, chapter=101, total_chapters=0, text=text) == []  # book 100: 100 <= 100


def test_retrieve_passes_k_and_the_query_vector_through():
    text = "lantern harbour midnight smuggler ledger quay"
    passages = [P("a", 50, text, vector=encode_vector([1.0, 0.0])), P("b", 51, text)]
    hits = retrieve(passages, chapter=100, total_chapters=100, text=text, k=1, query_vector=[1.0, 0.0])
    assert [(h.passage_id, h.vector_bonus) for h in hits] == [("a", 6)]


def test_chinese_query_against_a_book_without_chinese_text():
    index = RetrievalIndex([P("p", 50, "Bob lantern harbour midnight")])
    assert q(index, text="刘备骑马 lantern harbour midnight", entities=["Bob"]) == ["p"]


def test_query_bigram_sorting_after_every_indexed_bigram():
    index = RetrievalIndex([P("p", 50, "刘备骑马出城" * 2)])
    # 龜/龠 (U+9F9C, U+9FA0) sort after every bigram of the passage.
    hits = index.query(chapter=100, total_chapters=100, text="刘备骑马出城 龜龠", min_score=0)
    assert [(h.passage_id, h.overlap) for h in hits] == [("p", 5)]
