"""The offline demo model: deterministic answers composed from the novel's own plan.

`demo_respond(task, context, language)` answers every prompt task (see
generation.prompts.TASKS): a JSON string for structured tasks, prose for
`draft` and `revise`. The test server reuses it, so a whole book can be
planned and written through the real openai client without a real model."""

from __future__ import annotations

import json
from typing import Any

from generation.llm import demo_chapter
from generation.llm.demo_kit import KnownThread, cast, clip, digest, lang_of, parse_threads, pick
from generation.llm.demo_words import bank

WINDOW_CAP = 25
# Plant, reinforce two chapters later, pay off four chapters later.
_PLANT_EVERY = 5
_REINFORCE_AFTER = 2
_PAYOFF_AFTER = 4
_ZH_OPS = {"plant": "埋下", "reinforce": "强化", "payoff": "回收"}


def demo_respond(task: str, context: dict[str, Any], language: str) -> str:
    lang = lang_of(language)
    if task == "draft":
        return demo_chapter.draft(context, lang)
    if task == "revise":
        return demo_chapter.revise(context, lang)
    handlers = {
        "architecture_core_seed": _core_seed,
        "architecture_characters": _characters,
        "architecture_world": _world,
        "architecture_plot_arcs": _plot_arcs,
        "blueprint_window": _blueprint,
        "review": demo_chapter.review,
        "finalize_summary": demo_chapter.summary,
        "finalize_extract": demo_chapter.extract,
    }
    if task not in handlers:
        raise ValueError(f"the demo model does not know task {task!r}")
    return json.dumps(handlers[task](context, lang), ensure_ascii=False)


# --- architecture -------------------------------------------------------------------


def _seed(context: dict[str, Any]) -> tuple[str, str, str]:
    return str(context.get("title") or ""), str(context.get("genre") or ""), str(context.get("premise") or "")


def _core_seed(context: dict[str, Any], lang: str) -> dict[str, Any]:
    title, genre, premise = _seed(context)
    w = bank(lang)
    desire, wound = pick(w["desires"], title, premise, "d"), pick(w["wounds"], title, premise, "w")
    place = pick(w["places"], title, "p")
    guidance = clip(str(context.get("guidance") or ""), 200)
    if lang == "zh":
        text = (
            f"一句话故事：《{title}》讲述一个背负着{wound}的人，为了{desire}，在{place}卷入一场越来越大的漩涡。"
            f"\n\n{premise or '故事从一个看似平常的日子开始。'}"
            "主角想要的东西与他必须付出的代价彼此拉扯：每向真相靠近一步，"
            f"就要失去一份安稳。{genre or '故事'}的外壳之下，是一个关于选择与承担的故事，结局将让主角直面最初的创伤。"
        )
        if guidance:
            text += f"\n\n作者的要求：{guidance}"
    else:
        text = (
            f"In one sentence: {title} follows someone carrying {wound} who sets out {desire}, "
            f"and is drawn into something far larger in {place}.\n\n"
            f"{premise or 'It begins on an ordinary day.'} What the protagonist wants and what it will cost pull "
            f"against each other: every step toward the truth costs a piece of safety. Beneath the "
            f"{genre or 'story'} surface this is a story about choice and responsibility, and the ending makes the "
            f"protagonist face the old wound head on."
        )
        if guidance:
            text += f"\n\nThe author asked for: {guidance}"
    return {"text": text}


def character_names(title: str, premise: str, lang: str) -> list[str]:
    w = bank(lang)
    count = 4 + digest(title, premise, "cast") % 3
    names: list[str] = []
    i = 0
    while len(names) < count:
        first = pick(w["first"], title, premise, "f", i)
        last = pick(w["last"], title, premise, "l", i)
        name = f"{first}{last}" if lang == "zh" else f"{first} {last}"
        if name not in names and all(n.split()[0] != first for n in names if lang == "en"):
            names.append(name)
        i += 1
    return names


def _characters(context: dict[str, Any], lang: str) -> dict[str, Any]:
    title, _genre, premise = _seed(context)
    w = bank(lang)
    names = character_names(title, premise, lang)
    lines, people = [], []
    for i, name in enumerate(names):
        role = w["roles"][i % len(w["roles"])]
        desire, wound = pick(w["desires"], name, "d"), pick(w["wounds"], name, "w")
        place = pick(w["places"], name, "p")
        if lang == "zh":
            description = f"{role}。想要{desire}；心里藏着{wound}。"
            relation = "同伴" if i % 2 else "宿敌"
        else:
            description = f"The {role}. Wants {desire}; carries {wound}."
            relation = "ally" if i % 2 else "old adversary"
        lines.append(f"{name} — {description}")
        relationships = {names[0]: relation} if i else {names[1]: relation}
        people.append(
            {
                "name": name,
                "aliases": [],
                "description": description,
                "state": {
                    "alive": True,
                    "location": place,
                    "physical": "",
                    "mental": "",
                    "items": [],
                    "abilities": [],
                    "relationships": relationships,
                },
            }
        )
    return {"text": "\n".join(lines), "characters": people}


def _world(context: dict[str, Any], lang: str) -> dict[str, Any]:
    title, _genre, premise = _seed(context)
    w = bank(lang)
    places = [pick(w["places"], title, "world", i) for i in range(3)]
    rules = [pick(w["rules"], title, "rule", i) for i in range(2)]
    if lang == "zh":
        text = (
            f"故事发生在{places[0]}、{places[1]}和{places[2]}之间。这里的规矩是：{rules[0]}；而且{rules[1]}。"
            f"\n\n每个地方都有自己的代价，人物的每一步行动都受这些规矩约束。{premise}"
        )
    else:
        text = (
            f"The story moves between {places[0]}, {places[1]} and {places[2]}. Here, {rules[0]}; and {rules[1]}."
            f"\n\nEvery place has its price, and each move the characters make is bound by these rules. {premise}"
        )
    return {"text": text}


def _plot_arcs(context: dict[str, Any], lang: str) -> dict[str, Any]:
    title, _genre, premise = _seed(context)
    total = int(context.get("target_chapters") or 60)
    a1, a2 = max(1, total // 4), max(2, total * 3 // 4)
    names = cast(str((context.get("previous") or {}).get("characters") or "")) or character_names(title, premise, lang)
    mystery = pick(bank(lang)["mysteries"], title, "arc").format(
        place=pick(bank(lang)["places"], title, "p"), name=names[0]
    )
    if lang == "zh":
        text = (
            f"第一幕（第1–{a1}章）：平静被打破，{mystery}第一次出现。\n第二幕（第{a1 + 1}–{a2}章）：调查步步深入，"
            "每三到五章揭开一层，盟友与对手的界线逐渐模糊。"
            f"\n第三幕（第{a2 + 1}–{total}章）：所有伏笔回收，主角直面代价。"
            f"\n\n主线：{premise}"
        )
    else:
        text = (
            f"Act one (chapters 1–{a1}): the calm breaks and {mystery} first appears.\n"
            f"Act two (chapters {a1 + 1}–{a2}): the search deepens, one layer every three to five chapters, "
            f"and the line between ally and rival blurs.\nAct three (chapters {a2 + 1}–{total}): every thread is "
            f"paid off and the protagonist faces the cost.\n\nThrough-line: {premise}"
        )
    return {"text": text}


# --- blueprint ----------------------------------------------------------------------


def _blueprint(context: dict[str, Any], lang: str) -> dict[str, Any]:
    start, end = int(context["start"]), int(context["end"])
    title = str(context.get("title") or "")
    total = int(context.get("target_chapters") or end)
    architecture = context.get("architecture") or {}
    names = cast(str(architecture.get("characters") or "")) or character_names(title, "", lang)
    w = bank(lang)
    known = parse_threads(str(context.get("known_threads") or ""))
    ops = _plan_ops(start=start, end=end, known=known, names=names, title=title, lang=lang)
    cards = []
    for n in range(start, end + 1):
        beat = (n - 1) % 3  # two tense chapters, then a breather
        density = 1 + digest(title, n, "s") % 2 if beat == 2 else 3 + digest(title, n, "s") % 3
        unit_end = n % 4 == 0
        twist = min(5, 1 + digest(title, n, "t") % 3 + (2 if unit_end else 0))
        a, b = pick(names, title, n, "a"), pick(names, title, n, "b")
        if a == b:
            b = names[(names.index(a) + 1) % len(names)]
        place = pick(w["places"], title, n, "place")
        card_title = pick(w["titles"], title, n).format(place=place, name=a, noun=pick(w["nouns"], title, n, "n"))
        act = 1 if n <= total // 4 else 2 if n <= total * 3 // 4 else 3
        cards.append(
            {
                "number": n,
                "title": card_title,
                "position": _position(n=n, total=total, act=act, beat=beat, lang=lang),
                "core_function": _function(beat=beat, unit_end=unit_end, a=a, lang=lang),
                "suspense_density": density,
                "foreshadowing": ops.get(n, []),
                "cognitive_twist": twist,
                "brief": _brief(a=a, b=b, place=place, ops=ops.get(n, []), mood=pick(w["moods"], title, n), lang=lang),
            }
        )
    return {"cards": cards}


def _plan_ops(
    *, start: int, end: int, known: list[KnownThread], names: list[str], title: str, lang: str
) -> dict[int, list[dict[str, str]]]:
    """Owed threads paid off first (citing their listed label); new plants early in the
    window, reinforced two chapters later and paid off four chapters later.

    A new plant has no label until the ledger stores it, so its reinforce and
    payoff leave `thread` blank and repeat the plant's summary exactly: the
    ledger matches them by summary (and dates the plant's deadline by the payoff)."""
    ops: dict[int, list[dict[str, str]]] = {}
    size = end - start + 1
    # A planned thread due before this window was already given its payoff by an earlier window.
    owed = [t for t in known if not (t.planned and t.due is not None and t.due < start)]
    owed.sort(key=lambda t: (t.due is None, t.due or 0))
    for i, thread in enumerate(owed[: max(1, size // 3)]):
        at = start + min(size - 1, 1 + 2 * i)
        ops.setdefault(at, []).append({"op": "payoff", "thread": thread.label, "summary": thread.summary})
    offsets = [o for o in range(0, size, _PLANT_EVERY) if o + _PAYOFF_AFTER < size]
    if size >= 6:
        offsets.append(size - 2)  # carried into the next window
    used = {t.summary for t in known}
    for offset in offsets:
        n = start + offset
        mystery = _fresh_mystery(title=title, n=n, names=names, used=used, lang=lang)
        ops.setdefault(n, []).append({"op": "plant", "thread": "", "summary": mystery})
        if offset + _PAYOFF_AFTER < size:
            ops.setdefault(n + _REINFORCE_AFTER, []).append({"op": "reinforce", "thread": "", "summary": mystery})
            ops.setdefault(n + _PAYOFF_AFTER, []).append({"op": "payoff", "thread": "", "summary": mystery})
    return ops


def _fresh_mystery(*, title: str, n: int, names: list[str], used: set[str], lang: str) -> str:
    w = bank(lang)
    mystery = ""
    for attempt in range(50):
        template = pick(w["mysteries"], title, n, "m", attempt)
        mystery = template.format(
            place=pick(w["places"], title, n, attempt), name=pick(names, title, n, "who", attempt)
        )
        if mystery not in used:
            break
    used.add(mystery)
    return mystery


def _position(*, n: int, total: int, act: int, beat: int, lang: str) -> str:
    if lang == "zh":
        kind = "舒缓章" if beat == 2 else "紧张章"
        return f"第{act}幕，第{n}/{total}章，{kind}"
    kind = "breather" if beat == 2 else "tense chapter"
    return f"Act {act}, chapter {n} of {total}, {kind}"


def _function(*, beat: int, unit_end: bool, a: str, lang: str) -> str:
    if lang == "zh":
        if unit_end:
            return f"悬念单元收束：{a}得到一个答案，却引出更大的问题"
        return f"让{a}喘口气，整理线索，加深人物关系" if beat == 2 else f"推高压力：{a}被迫行动"
    if unit_end:
        return f"Close a suspense unit: {a} gets an answer that raises a bigger question"
    return (
        f"Let {a} breathe, sort the clues and deepen a relationship"
        if beat == 2
        else f"Raise the pressure: {a} is forced to act"
    )


def _brief(*, a: str, b: str, place: str, ops: list[dict[str, str]], mood: str, lang: str) -> str:
    extra = "".join(
        (
            f"本章{_ZH_OPS.get(op['op'], '回收')}伏笔：{op['summary']}。"
            if lang == "zh"
            else f" Foreshadowing ({op['op']}): {op['summary']}."
        )
        for op in ops
    )
    if lang == "zh":
        return f"{a}和{b}在{place}相遇，{mood}。两人各怀心事，一件小事打破了僵局。{extra}"
    return f"{a} and {b} meet in {place}; {mood}. Each keeps something back until a small thing breaks the ice.{extra}"
