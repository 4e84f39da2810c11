"""The offline demo model: every task validates, in both languages, deterministically."""

from __future__ import annotations

import json

import pytest

from generation import schemas as S
from generation.llm import llm_for
from generation.llm.demo import demo_respond
from generation.llm.parsing import language_problems, parse_answer
from generation.models import GenerationJob, LLMCall

SEEDS = {
    "en": {"title": "The Lighthouse Keeper", "genre": "mystery", "premise": "A keeper finds a letter in a bottle."},
    "zh": {"title": "灯塔守夜人", "genre": "悬疑", "premise": "一个守夜人在漂流瓶里发现了一封写给自己的信。"},
}
PARTS = [("core_seed", S.ArchitecturePartOut), ("characters", S.CharactersOut), ("world", S.ArchitecturePartOut),
         ("plot_arcs", S.ArchitecturePartOut)]


def _check(text: str, schema, lang: str):
    out = parse_answer(text, schema)
    assert language_problems(out, language=lang) == []
    return out


def _architecture(lang: str) -> dict[str, str]:
    previous: dict[str, str] = {}
    for part, schema in PARTS:
        context = {**SEEDS[lang], "language": lang, "target_chapters": 60, "guidance": "", "previous": dict(previous)}
        previous[part] = _check(demo_respond(f"architecture_{part}", context, lang), schema, lang).text
    return previous


def _window(lang: str, *, start: int, end: int, known: str = "") -> S.BlueprintWindowOut:
    context = {"title": SEEDS[lang]["title"], "architecture": _architecture(lang), "global_summary": "",
               "known_threads": known, "start": start, "end": end, "target_chapters": 60, "previous_cards": "",
               "guidance": ""}
    out = _check(demo_respond("blueprint_window", context, lang), S.BlueprintWindowOut, lang)
    assert isinstance(out, S.BlueprintWindowOut)
    return out


def _chapter_context(lang: str, n: int = 5) -> dict:
    window = _window(lang, start=1, end=10)
    return {"chapter_number": n, "card": window.cards[n - 1].model_dump(), "next_card": window.cards[n].model_dump(),
            "memory_block": _architecture(lang)["characters"], "previous_tail": "", "architecture_text": "",
            "owed_payoffs": [], "target_length": 3000}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_architecture_parts_validate_in_the_novels_language(lang):
    parts = _architecture(lang)
    assert SEEDS[lang]["title"] in parts["core_seed"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_characters_step_names_four_to_six_people(lang):
    context = {**SEEDS[lang], "target_chapters": 60, "guidance": "", "previous": {}}
    out = _check(demo_respond("architecture_characters", context, lang), S.CharactersOut, lang)
    names = [c.name for c in out.characters]  # type: ignore[attr-defined]
    assert 4 <= len(names) <= 6 and len(set(names)) == len(names)
    assert all(name in out.text for name in names)  # type: ignore[attr-defined]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_blueprint_window_is_numbered_exactly_start_to_end(lang):
    out = _window(lang, start=26, end=50)
    assert [c.number for c in out.cards] == list(range(26, 51))
    assert S.validate_window(out, start=26, end=50) == []


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_blueprint_plants_early_and_pays_off_a_few_chapters_later(lang):
    out = _window(lang, start=1, end=25)
    plants = [(c.number, op.summary) for c in out.cards for op in c.foreshadowing if op.op == "plant"]
    payoffs = {op.summary: c.number for c in out.cards for op in c.foreshadowing if op.op == "payoff"}
    first_at, first_summary = plants[0]
    assert first_at == 1
    # Not yet in the ledger, so no label: the payoff repeats the plant's summary for the ledger to match.
    assert payoffs[first_summary] - first_at in range(3, 6)
    assert len({summary for _n, summary in plants}) == len(plants)


@pytest.mark.parametrize("known,label", [
    ("#4 [open] the bell that rang at noon (due by ch. 30)\n#7 [progressing] the second key", "#4"),
    ("[T4] the bell that rang at noon (due by Ch.30)\n[T7] [in progress] the second key", "T4"),
])
def test_blueprint_pays_off_threads_the_context_lists_citing_their_labels(known, label):
    out = _window("en", start=26, end=50, known=known)
    cited = {op.thread: op.summary for c in out.cards for op in c.foreshadowing if op.op == "payoff" and op.thread}
    assert cited[label] == "the bell that rang at noon"
    assert len(cited) == 2


def test_blueprint_does_not_pay_off_again_what_an_earlier_window_already_paid_off():
    known = "#5 [planned, plant at ch. 21] the map with one island too many (due by ch. 25)"
    out = _window("en", start=26, end=50, known=known)
    assert not [op for c in out.cards for op in c.foreshadowing if op.thread == "#5"]


def test_blueprint_keeps_the_rhythm_two_tense_chapters_then_a_breather():
    out = _window("en", start=1, end=9)
    assert [c.suspense_density <= 2 for c in out.cards] == [False, False, True] * 3


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_draft_is_roughly_the_target_length_and_follows_the_card(lang):
    context = _chapter_context(lang)
    text = demo_respond("draft", context, lang)
    assert 0.8 * 3000 <= len(text) <= 1.3 * 3000
    assert context["card"]["foreshadowing"][0]["summary"] in text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_review_gives_zero_to_two_findings(lang):
    context = _chapter_context(lang)
    for text in (demo_respond("draft", context, lang), "Too short."):
        out = _check(demo_respond("review", {**context, "chapter_text": text}, lang), S.ReviewOut, lang)
        assert 0 <= len(out.findings) <= 2  # type: ignore[attr-defined]


def test_review_flags_a_chapter_far_below_target_length():
    context = {**_chapter_context("en"), "chapter_text": "It was short."}
    out = parse_answer(demo_respond("review", context, "en"), S.ReviewOut)
    assert out.findings[0].dimension == "length"  # type: ignore[attr-defined]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_revise_keeps_the_draft_and_reaches_the_target(lang):
    context = _chapter_context(lang)
    draft = demo_respond("draft", context, lang)[:1000]
    findings = [{"dimension": "length", "severity": "major", "quote": "", "suggestion": ""}]
    revised = demo_respond("revise", {**context, "draft_text": draft, "findings": findings}, lang)
    assert draft.split("\n\n")[0] in revised and len(revised) >= 2500


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_global_summary_is_rewritten_within_2000_characters(lang):
    context = _chapter_context(lang)
    text = demo_respond("draft", context, lang)
    summary = ""
    for n in range(1, 80):
        out = _check(demo_respond("finalize_summary", {**context, "chapter_number": n, "chapter_text": text,
                                                       "previous_global_summary": summary}, lang), S.SummaryOut, lang)
        summary = out.global_summary  # type: ignore[attr-defined]
    assert len(summary) <= 2000
    assert ("第79章" if lang == "zh" else "Ch. 79") in summary


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_extraction_names_the_cast_cites_owed_threads_and_plants_new_ones(lang):
    window = _window(lang, start=1, end=10)
    cast = _architecture(lang)["characters"]
    plant = window.cards[0].foreshadowing[0]
    payoff_card = next(c for c in window.cards if any(op.op == "payoff" for op in c.foreshadowing))
    ctx = {**_chapter_context(lang, payoff_card.number), "card": payoff_card.model_dump()}
    text = demo_respond("draft", ctx, lang)
    known = f"[T1] {plant.summary} (due by Ch.9)\n[T2] something unrelated"
    out = _check(demo_respond("finalize_extract", {"chapter_number": payoff_card.number, "chapter_text": text,
                                                   "characters": cast, "known_threads": known,
                                                   "total_chapters": 60}, lang), S.ExtractionOut, lang)
    assert isinstance(out, S.ExtractionOut)
    assert out.characters and all(c.name in text and c.name in cast for c in out.characters)
    assert 1 <= len(out.facts) <= 3
    assert [(t.action, t.ref) for t in out.threads if t.action == "resolve"] == [("resolve", "T1")]

    plant_ctx = {**_chapter_context(lang, 1), "card": window.cards[0].model_dump()}
    planted = parse_answer(demo_respond("finalize_extract", {
        "chapter_number": 1, "chapter_text": demo_respond("draft", plant_ctx, lang), "characters": cast,
        "known_threads": "", "total_chapters": 60}, lang), S.ExtractionOut)
    opens = [t for t in planted.threads if t.action == "open"]  # type: ignore[attr-defined]
    assert [t.summary for t in opens] == [plant.summary] and opens[0].deadline_chapter == 6


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_same_input_gives_the_same_output(lang):
    context = _chapter_context(lang)
    assert demo_respond("draft", context, lang) == demo_respond("draft", json.loads(json.dumps(context)), lang)
    assert _window(lang, start=1, end=25) == _window(lang, start=1, end=25)


def test_different_novels_get_different_plans():
    a = demo_respond("architecture_characters", {**SEEDS["en"], "previous": {}}, "en")
    b = demo_respond("architecture_characters", {**SEEDS["en"], "title": "Salt Road", "previous": {}}, "en")
    assert a != b


def test_without_a_key_the_novel_gets_the_demo_model(novel, settings):
    settings.OPENAI_API_KEY = ""
    llm = llm_for(novel)
    assert llm.is_demo and llm.model_for("planner") == "demo"
    assert llm.embed(texts=["x"]) is None


def test_with_a_key_roles_use_the_novels_model_or_the_site_default(novel, settings):
    settings.OPENAI_API_KEY = "test-key"
    novel.writer_model = "my-writer"
    llm = llm_for(novel)
    assert not llm.is_demo
    assert llm.model_for("writer") == "my-writer"
    assert llm.model_for("reviewer") == settings.LLM_DEFAULT_MODELS["reviewer"]


def test_demo_model_streams_a_draft_into_the_job_row_and_records_estimated_usage(novel, job, settings):
    settings.OPENAI_API_KEY = ""
    chunks: list[str] = []
    text = llm_for(novel).stream_text(role="writer", task="draft", context=_chapter_context("en"), job_id=job.pk,
                                      on_chunk=chunks.append)
    assert len(chunks) > 5 and "".join(chunks) == text
    assert GenerationJob.objects.get(pk=job.pk).stream_text == text
    call = LLMCall.objects.get(job=job)
    assert call.model == "demo" and call.tokens_out > 0


def test_demo_model_answers_structured_steps_through_the_llm_layer(zh_novel, settings):
    settings.OPENAI_API_KEY = ""
    out = llm_for(zh_novel).structured(role="planner", task="architecture_characters", schema=S.CharactersOut,
                                       context={**SEEDS["zh"], "previous": {}})
    assert isinstance(out, S.CharactersOut) and len(out.characters) >= 4


def test_extraction_progresses_a_planned_thread_at_its_plant_chapter_instead_of_opening_a_twin():
    window = _window("en", start=1, end=10)
    plant = window.cards[0].foreshadowing[0]
    text = demo_respond("draft", {**_chapter_context("en", 1), "card": window.cards[0].model_dump()}, "en")
    out = parse_answer(demo_respond("finalize_extract", {
        "chapter_number": 1, "chapter_text": text, "characters": "", "known_threads": f"[T1] {plant.summary} (due by Ch.5)",
        "total_chapters": 60}, "en"), S.ExtractionOut)
    assert [(t.action, t.ref) for t in out.threads] == [("progress", "T1")]  # type: ignore[attr-defined]
