"""The demo model's chapter loop: draft, revise, review, summaries and extraction.

The draft states its foreshadowing in fixed sentence forms, so the demo's own
extraction (which sees only the text, the cast and the thread list) finds the
plants and payoffs the card asked for."""

from __future__ import annotations

import re
from typing import Any

from generation.llm.demo_kit import cast, clip, digest, mentioned_thread, parse_threads, pick, sentences
from generation.llm.demo_words import bank

_PLANT_FORM = {"en": "Nobody yet knew what to make of it: {s}.", "zh": "谁也不知道其中的含义：{s}。"}
_PAYOFF_FORM = {"en": "At last it came clear: {s}.", "zh": "直到此刻，一切才终于清楚：{s}。"}
_REINFORCE_FORM = {"en": "It came back to mind again: {s}.", "zh": "那件事又一次浮上心头：{s}。"}
_PLANT_FOUND = {
    "en": re.compile(r"Nobody yet knew what to make of it: ([^\n]+?)\."),
    "zh": re.compile(r"谁也不知道其中的含义：([^\n]+?)。"),
}
_PAYOFF_FOUND = {
    "en": re.compile(r"At last it came clear: ([^\n]+?)\."),
    "zh": re.compile(r"直到此刻，一切才终于清楚：([^\n]+?)。"),
}
_LABEL = re.compile(r"[\[【(（]?\s*[Tt]\s*\d+\s*[\]】)）]?")
_GLOBAL_MAX = 2000
_DEADLINE_SPAN = 5


def _names(context: dict[str, Any], lang: str) -> list[str]:
    """The chapter's cast: names from memory that the card mentions, else the two a demo brief opens with."""
    card = context.get("card") or {}
    card_text = " ".join(str(v) for v in card.values())
    candidates = cast(str(context.get("memory_block") or ""), str(context.get("architecture_text") or ""))
    names = [n for n in candidates if n in card_text and _looks_like_name(n, lang)]
    if len(names) < 2:
        head = str(card.get("brief") or "")
        split = re.split(r"和|在| and | meet", head, maxsplit=2)[:2]
        names += [s.strip(" ，,;；") for s in split if _looks_like_name(s.strip(" ，,;；"), lang)]
        names = list(dict.fromkeys(names))
    return names or (["她", "他"] if lang == "zh" else ["she", "he"])


def _looks_like_name(text: str, lang: str) -> bool:
    if not text or any(ch.isdigit() for ch in text):
        return False
    if lang == "zh":
        return 2 <= len(text) <= 4 and not re.search(r"[章幕摘要总览记忆人物伏笔，。：]", text)
    words = text.split()
    return 1 <= len(words) <= 3 and all(w[:1].isupper() for w in words)


def _filler(*, context: dict[str, Any], lang: str, names: list[str], i: int) -> str:
    w = bank(lang)
    n = context.get("chapter_number", 0)
    a = pick(names, n, i, "a")
    b = pick([x for x in names if x != a] or names, n, i, "b")
    mood = pick(w["moods"], n, i, "m")
    act1 = pick(w["actions"], n, i, "x").format(a=a, b=b)
    act2 = pick(w["actions"], n, i, "y").format(a=b, b=a)
    if lang == "zh":
        return f"{mood}。{act1}。{act2}。"
    return f"{mood[0].upper()}{mood[1:]}. {act1[0].upper()}{act1[1:]}. {act2[0].upper()}{act2[1:]}."


def _strip_labels(text: str) -> str:
    return " ".join(_LABEL.sub("", text).split())


def draft(context: dict[str, Any], lang: str) -> str:
    card = context.get("card") or {}
    target = int(context.get("target_length") or 3000)
    names = _names(context, lang)
    paragraphs: list[str] = []
    tail = sentences(str(context.get("previous_tail") or ""))
    if tail:
        echo = clip(tail[-1], 80)
        paragraphs.append(
            f"{echo}——这句话还悬在半空。" if lang == "zh" else f"\u201c{echo}\u201d still hung in the air."
        )
    brief = str(card.get("brief") or card.get("title") or "")
    if brief:
        paragraphs.append(_strip_labels(brief))
    for op in card.get("foreshadowing") or []:
        summary = _strip_labels(str(op.get("summary") or ""))
        form = {"plant": _PLANT_FORM, "payoff": _PAYOFF_FORM}.get(str(op.get("op")), _REINFORCE_FORM)[lang]
        if summary:
            paragraphs.append(form.format(s=summary.rstrip("。.")))
    for owed in context.get("owed_payoffs") or []:
        paragraphs.append(_PAYOFF_FORM[lang].format(s=_strip_labels(str(owed)).rstrip("。.")))
    memory_lines = [
        ln.strip(" -*") for ln in str(context.get("memory_block") or "").splitlines() if len(ln.strip()) > 8
    ]
    if memory_lines:
        recalled = clip(pick(memory_lines, context.get("chapter_number"), "mem"), 120)
        paragraphs.append(
            f"{names[0]}想起了一件事：{recalled}" if lang == "zh" else f"{names[0]} remembered: {recalled}"
        )
    function = str(card.get("core_function") or "")
    i = 0
    while sum(len(p) for p in paragraphs) < target * 0.9 and i < 400:
        paragraphs.append(_filler(context=context, lang=lang, names=names, i=i))
        i += 1
        if function and i == 3:
            paragraphs.append(_strip_labels(function) + ("。" if lang == "zh" else "."))
    return "\n\n".join(paragraphs)


def revise(context: dict[str, Any], lang: str) -> str:
    text = str(context.get("draft_text") or "") or draft(context, lang)
    target = int(context.get("target_length") or 3000)
    names = _names(context, lang)
    paragraphs = text.split("\n\n")
    for k, finding in enumerate(context.get("findings") or []):
        fix = _strip_labels(str(finding.get("suggestion") or "")) if isinstance(finding, dict) else ""
        bridge = _filler(context=context, lang=lang, names=names, i=1000 + k)
        at = min(len(paragraphs), 1 + k * 2)
        paragraphs.insert(at, bridge if not fix or _foreign(fix, lang) else f"{bridge} {fix}")
    i = 0
    while sum(len(p) for p in paragraphs) < target * 0.9 and i < 400:
        paragraphs.append(_filler(context=context, lang=lang, names=names, i=2000 + i))
        i += 1
    return "\n\n".join(paragraphs)


def _foreign(text: str, lang: str) -> bool:
    has_han = bool(re.search(r"[\u4e00-\u9fff]", text))
    return has_han != (lang == "zh")


def review(context: dict[str, Any], lang: str) -> dict[str, Any]:
    text = str(context.get("chapter_text") or "")
    target = int(context.get("target_length") or 3000)
    findings: list[dict[str, str]] = []
    if len(text) < target * 0.6:
        findings.append(
            {
                "dimension": "length",
                "severity": "major",
                "quote": clip(text, 60),
                "suggestion": f"本章只有约{len(text)}字，目标约{target}字：补写场景和人物反应。"
                if lang == "zh"
                else f"About {len(text)} characters against a target of about {target}: add scenes and reactions.",
            }
        )
    body = sentences(text)
    if body and digest(context.get("chapter_number"), text[:400], "review") % 3 == 0:
        quote = body[len(body) // 2]
        findings.append(
            {
                "dimension": "pacing",
                "severity": "minor",
                "quote": clip(quote, 120),
                "suggestion": "这里节奏偏慢，可以压缩描写，尽快推进到冲突。"
                if lang == "zh"
                else "The pace sags here; trim the description and get to the conflict sooner.",
            }
        )
    return {"findings": findings[:2]}


def summary(context: dict[str, Any], lang: str) -> dict[str, Any]:
    n = int(context.get("chapter_number") or 0)
    card = context.get("card") or {}
    text = str(context.get("chapter_text") or "")
    body = sentences(text)
    title = str(card.get("title") or "")
    first = clip(body[0], 120) if body else title
    last = clip(body[-1], 120) if len(body) > 1 else ""
    brief = clip(_strip_labels(str(card.get("brief") or "")), 300)
    if lang == "zh":
        chapter_summary = f"第{n}章《{title}》：{brief or first}{last}"
        skeleton = f"第{n}章：{clip(title or first, 60)}——{clip(first, 80)}"
        line = f"第{n}章：{clip(brief or first, 90)}"
    else:
        chapter_summary = f"Chapter {n}, \u201c{title}\u201d: {brief or first} {last}".strip()
        skeleton = f"Ch. {n}: {clip(title or first, 60)} \u2014 {clip(first, 80)}"
        line = f"Ch. {n}: {clip(brief or first, 140)}"
    return {
        "summary": clip(chapter_summary, 3900),
        "skeleton": clip(skeleton, 290),
        "global_summary": _rewrite_global(str(context.get("previous_global_summary") or ""), line=line, n=n, lang=lang),
    }


def _rewrite_global(previous: str, *, line: str, n: int, lang: str) -> str:
    """Lead plus the most recent chapter lines; older lines fold into one count, so it never grows past 2000."""
    marker = re.compile(r"^(第\d+章|Ch\. \d+)")
    lines = [ln.strip() for ln in previous.splitlines() if ln.strip()]
    chapter_lines = [ln for ln in lines if marker.match(ln) and not ln.startswith(("第" + str(n) + "章", f"Ch. {n}:"))]
    lead_lines = [ln for ln in lines if not marker.match(ln) and not ln.startswith(("此前", "Earlier"))]
    lead = clip(lead_lines[0], 300) if lead_lines else ("故事至此：" if lang == "zh" else "The story so far:")
    kept = [*chapter_lines, line]
    while True:
        folded = len(chapter_lines) + 1 - len(kept)
        fold = ""
        if folded:
            fold = (
                f"此前{folded}章的事件为后来的发展埋下伏笔。"
                if lang == "zh"
                else f"Earlier: {folded} chapters set all this in motion."
            )
        result = "\n".join([lead, *([fold] if fold else []), *kept])
        if len(result) <= _GLOBAL_MAX or len(kept) == 1:
            return clip(result, _GLOBAL_MAX) if len(result) > _GLOBAL_MAX else result
        kept = kept[1:]


def extract(context: dict[str, Any], lang: str) -> dict[str, Any]:
    n = int(context.get("chapter_number") or 0)
    total = int(context.get("total_chapters") or n + _DEADLINE_SPAN)
    text = str(context.get("chapter_text") or "")
    names = [name for name in cast(str(context.get("characters") or "")) if name in text][:6]
    w = bank(lang)
    changes = []
    for name in names:
        place = next((p for p in w["places"] if p in text), "")
        changes.append(
            {
                "name": name,
                "location": place or None,
                "mental": ("心事重重" if lang == "zh" else "uneasy, turning things over")
                if digest(name, n) % 2
                else None,
            }
        )
    facts: list[dict[str, Any]] = []
    for sentence in sentences(text):
        if any(name in sentence for name in names) and len(facts) < 3:
            facts.append({"text": clip(sentence, 300), "entities": [x for x in names if x in sentence]})
    if not facts and text.strip():
        facts.append({"text": clip(sentences(text)[0] if sentences(text) else text, 300), "entities": []})
    return {
        "characters": changes,
        "facts": facts,
        "threads": _thread_ops(context, text=text, n=n, total=total, lang=lang),
    }


def _thread_ops(context: dict[str, Any], *, text: str, n: int, total: int, lang: str) -> list[dict[str, Any]]:
    known = parse_threads(str(context.get("known_threads") or ""))
    card = context.get("card") or {}
    card_ops = [op for op in card.get("foreshadowing") or [] if isinstance(op, dict)]
    ops: list[dict[str, Any]] = []
    paid = " ".join(m.group(1) for m in _PAYOFF_FOUND[lang].finditer(text))
    for thread in known:
        named = any(_number(op.get("thread")) == _number(thread.label) for op in card_ops if op.get("op") == "payoff")
        if named or mentioned_thread(paid, thread):
            ops.append(
                {
                    "action": "resolve",
                    "ref": thread.label,
                    "summary": thread.summary,
                    "resolution_note": f"在第{n}章揭开。" if lang == "zh" else f"Paid off in chapter {n}.",
                }
            )
    planted = [m.group(1) for m in _PLANT_FOUND[lang].finditer(text)]
    planted += [_strip_labels(str(op.get("summary") or "")) for op in card_ops if op.get("op") == "plant"]
    by_summary = {t.summary: t for t in known}
    seen: set[str] = set()
    for summary in planted:
        summary = summary.rstrip("。.")
        if summary in by_summary and summary not in seen:
            # Planned by the blueprint: the ledger already has it; this chapter sets it in motion.
            seen.add(summary)
            ops.append({"action": "progress", "ref": by_summary[summary].label, "summary": summary})
        elif summary and summary not in seen:
            seen.add(summary)
            ops.append(
                {
                    "action": "open",
                    "ref": "",
                    "summary": summary,
                    "thread_type": "foreshadowing",
                    "deadline_chapter": min(total, n + _DEADLINE_SPAN),
                }
            )
    return ops[:10]


def _number(label: Any) -> str:
    return "".join(ch for ch in str(label or "") if ch.isascii() and ch.isdigit())
