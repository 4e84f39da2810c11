"""A deterministic synthetic book with memory as if every chapter had been finalized.

Benchmarks and scale tests need chapter 1000 without writing 1000 chapters
through a model. Everything is derived from ``seed`` through random.Random
(no clock, no global state), so two builds with one seed hold the same
texts, summaries, threads and cues; only row ids and timestamps differ.

Sizes, chosen so a 1000-chapter book builds in seconds yet weighs what a real
one does in memory (the chapter loop reads memory, not chapter text):
chapter text ~6000 characters in English / ~2000 in Chinese (about a third of
a real chapter: text only feeds passages and the previous-chapter tail);
chapter summary 150-250 words / 200-300 characters; skeleton ~20 words /
~30 characters; global summary 1500-1950 characters, newest 50 versions
kept; 25 characters with a state version every ~10 chapters; 3 facts and 4
passages per chapter; one thread opened every 3 chapters living 40-200
chapters (about 40 live at any time).
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from memory.models import (
    ChapterSummary,
    Character,
    CharacterState,
    Fact,
    GlobalSummary,
    Passage,
    Thread,
    ThreadEvent,
    ThreadStatus,
)
from novels.models import Chapter, ChapterRevision, ChapterStatus, Novel, RevisionSource
from novels.services import novel_create

__all__ = ["PlantedCue", "SyntheticBook", "synthetic_book_build", "synthetic_cues"]

_BATCH = 500
CHARACTERS = 25
GLOBAL_VERSIONS_KEPT = 50
PASSAGES_PER_CHAPTER = 4
FACTS_PER_CHAPTER = 3
THREAD_EVERY = 3
THREAD_LIFETIME = (40, 200)
STATE_EVERY = (8, 12)
CUE_EVERY = 20
# Timestamps are not derived from a clock, so finalized_at is a fixed epoch plus one minute per chapter.
_EPOCH = dt.datetime(2024, 1, 1, tzinfo=dt.UTC)


@dataclass(frozen=True)
class PlantedCue:
    """A distinctive name planted in one chapter and named again much later: retrieval at
    ``recalled_in`` should bring back a passage of ``planted_in``."""

    planted_in: int
    name: str
    recalled_in: int


@dataclass
class SyntheticBook:
    novel: Novel
    cues: list[PlantedCue]


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


@dataclass(frozen=True)
class _Vocab:
    first: Sequence[str]
    last: Sequence[str]
    places: Sequence[str]
    things: Sequence[str]
    verbs: Sequence[str]
    moods: Sequence[str]
    sentences: Sequence[str]
    summary: Sequence[str]
    cue_a: Sequence[str]
    cue_b: Sequence[str]
    plant: str
    recall: str
    text_chars: int
    summary_size: tuple[int, int]
    skeleton: str
    sep: str


_EN = _Vocab(
    first=_words(
        "Ada Bram Cora Dell Esme Finn Greer Hale Ivo Jun Kit Lark Mara Nell Oren Pia Quin Rhys Sela Tam Una Vale "
        "Wren Yara Zev Ansel Briar Cass Dorian Elka"
    ),
    last=_words(
        "Ashdown Blackthorn Carrow Dunmore Everly Fairhold Greaves Holloway Ironwood Kestrel Larkin Merrow "
        "Northcott Penhallow Quarry Ravenscar Stroud Thorne Underhill Westbrook"
    ),
    places=_words(
        "harbour mill chapel market archive lighthouse granary ferry quay orchard foundry courthouse "
        "observatory tannery bridge"
    ),
    things=_words("letter lantern ledger key map rope coin knife shawl compass bell ring"),
    verbs=_words("watched followed questioned warned avoided thanked betrayed sheltered doubted trusted"),
    moods=_words("tired wary hopeful angry restless calm frightened resolute grieving amused"),
    sentences=(
        "{a} {verb} {b} near the {place} while the rain kept on.",
        "At the {place}, {a} found a {thing} that nobody claimed.",
        '"You should not have come back," {a} told {b}, turning the {thing} over.',
        "{a} was {mood} and said little; {b} did most of the talking.",
        "By evening the {place} was empty except for {a} and a {thing}.",
        "{b} remembered the {place} differently, and {a} did not correct it.",
        "Nobody at the {place} had seen {b} since the {thing} went missing.",
        "{a} kept the {thing} close and {verb} everyone who asked about it.",
    ),
    summary=(
        "{a} goes to the {place} and {verb} {b}, who hides a {thing}.",
        "{b} learns that {a} has been lying about the {thing}.",
        "At the {place} {a} and {b} quarrel; {b} leaves {mood}.",
        "{a} decides to trust {b} with the {thing}, against advice.",
        "News from the {place} forces {a} to change plans.",
    ),
    cue_a=_words(
        "Verdigris Obsidian Saffron Cobalt Ivory Cinnabar Umber Jade Vermilion Pewter Sable Amber Indigo Russet Celadon"
    ),
    cue_b=_words(
        "Astrolabe Reliquary Sextant Chalice Orrery Hourglass Codex Locket Thurible Monstrance Pendulum Tinderbox"
    ),
    plant="{a} hid the {cue} beneath the floor of the {place}, telling no one.",
    recall="{a} thought again of the {cue}, and of what it had cost.",
    text_chars=6000,
    summary_size=(150, 250),
    skeleton="{a} and {b} at the {place}; the {thing} changes hands and {a} is left {mood}.",
    sep=" ",
)

_ZH = _Vocab(
    first=_words(
        "子云 伯言 仲谋 孟起 文远 公瑾 奉孝 元直 士元 汉升 子龙 云长 翼德 玄德 孔明 仲达 伯约 文长 公明 子敬 "
        "兴霸 幼平 德珪 季常 叔至"
    ),
    last=list("赵钱孙李周吴郑王冯陈褚卫蒋沈韩杨朱秦尤许何吕施张孔曹严华"),
    places=_words("渡口 城楼 驿站 祠堂 集市 书院 军营 山寨 江畔 古寺 酒肆 府衙"),
    things=_words("书信 令牌 地图 长剑 玉佩 铜钱 兵符 锦囊"),
    verbs=_words("拜访 跟踪 盘问 提防 感谢 出卖 收留 怀疑 信任 劝说"),
    moods=_words("疲惫 警觉 满怀希望 愤怒 不安 镇定 惊惧 坚决 悲伤"),
    sentences=(
        "{a}在{place}{verb}{b}，雨一直没有停。",
        "{a}在{place}捡到一件{thing}，无人认领。",
        "“你不该回来，”{a}对{b}说，手里翻看着那件{thing}。",
        "{a}神色{mood}，一言不发；倒是{b}说个不停。",
        "天色已晚，{place}里只剩下{a}和一件{thing}。",
        "自从{thing}丢失，{place}里再没人见过{b}。",
    ),
    summary=(
        "{a}前往{place}{verb}{b}，{b}暗藏{thing}。",
        "{b}得知{a}在{thing}一事上撒了谎。",
        "{a}与{b}在{place}争执，{b}{mood}离去。",
        "{a}不顾劝阻，把{thing}托付给{b}。",
    ),
    cue_a=list("玄赤青紫墨素苍金银碧丹雪"),
    cue_b=list("霄鸾螭璃蟾麟鼍犀"),
    plant="{a}把{cue}藏在{place}的地砖之下，没有告诉任何人。",
    recall="{a}又想起了那{cue}，想起它让自己付出的代价。",
    text_chars=2000,
    summary_size=(200, 300),
    skeleton="{a}与{b}在{place}，{thing}易手，{a}{mood}。",
    sep="",
)
_VOCABS = {"en": _EN, "zh": _ZH}
_ZH_CUE_OBJECTS = _words("铜镜 玉玺 罗盘 宝匣 古琴 铁券 香炉 漏壶")


def _vocab(language: str) -> _Vocab:
    if language not in _VOCABS:
        raise ValueError(f"Synthetic books come in {sorted(_VOCABS)}, not '{language}'.")
    return _VOCABS[language]


def _names(vocab: _Vocab, rng: random.Random) -> list[str]:
    pairs = [(f, s) for f in vocab.first for s in vocab.last]
    chosen = rng.sample(pairs, CHARACTERS)
    return [f"{f} {s}" if vocab.sep else f"{s}{f}" for f, s in chosen]


def synthetic_cues(*, chapters: int, language: str = "en", seed: int = 0) -> list[PlantedCue]:
    """The cues a build with these arguments plants (recomputable without the database)."""
    vocab = _vocab(language)
    rng = random.Random(f"inkstone-synthetic:{seed}:{language}:cues")
    if language == "zh":
        names = [f"{a}{b}{o}" for a in vocab.cue_a for b in vocab.cue_b for o in _ZH_CUE_OBJECTS]
    else:
        names = [f"{a} {b}" for a in vocab.cue_a for b in vocab.cue_b]
    count = max(1, chapters // CUE_EVERY)
    chosen = rng.sample(names, min(count, len(names)))
    cues = []
    gap_min = max(4, chapters // 5)
    for i, name in enumerate(chosen):
        # Planted in the first half, recalled at least a fifth of the book later.
        planted = 1 + (i * max(1, chapters // 2)) // count
        recalled = min(chapters, planted + rng.randint(gap_min, max(gap_min, chapters // 2)))
        if recalled > planted:
            cues.append(PlantedCue(planted_in=planted, name=name, recalled_in=recalled))
    return cues


class _Writer:
    """Generates one book's rows; every draw goes through self.rng in a fixed order."""

    def __init__(self, *, novel: Novel, chapters: int, language: str, seed: int, cues: list[PlantedCue]) -> None:
        self.novel, self.chapters, self.v = novel, chapters, _vocab(language)
        self.rng = random.Random(f"inkstone-synthetic:{seed}:{language}:book")
        self.names = _names(self.v, self.rng)
        self.plants = {c.planted_in: c for c in cues}
        self.recalls: dict[int, list[PlantedCue]] = {}
        for cue in cues:
            self.recalls.setdefault(cue.recalled_in, []).append(cue)

    def pick(self, seq: Sequence[str]) -> str:
        # random() and an index rather than choice(): a third of the build's time is spent here.
        return seq[int(self.rng.random() * len(seq))]

    def fill(self, template: str, cast: Sequence[str], **extra: str) -> str:
        v, pick = self.v, self.pick
        a = pick(cast)
        b = pick([name for name in cast if name != a])
        return template.format(
            a=a, b=b, mood=pick(v.moods), place=pick(v.places), thing=pick(v.things), verb=pick(v.verbs), **extra
        )

    def chapter_text(self, number: int, cast: Sequence[str]) -> list[str]:
        """Sentences of one chapter; a planted or recalled cue sits in exactly one sentence."""
        target = int(self.v.text_chars * self.rng.uniform(0.85, 1.15))
        sentences: list[str] = []
        size = 0
        while size < target:
            sentences.append(self.fill(self.pick(self.v.sentences), cast))
            size += len(sentences[-1]) + len(self.v.sep)
        if number in self.plants:
            sentences.insert(
                self.rng.randrange(len(sentences)), self.fill(self.v.plant, cast, cue=self.plants[number].name)
            )
        for cue in self.recalls.get(number, []):
            sentences.insert(self.rng.randrange(len(sentences)), self.fill(self.v.recall, cast, cue=cue.name))
        return sentences

    def summary(self, cast: Sequence[str], low: int, high: int, *, words: bool) -> str:
        """Whole sentences adding up to between low and high words (or characters)."""
        target = self.rng.randint(low, high)

        def size(parts: list[str]) -> int:
            joined = self.v.sep.join(parts)
            return len(joined.split()) if words else len(joined)

        parts: list[str] = []
        while size(parts) < target:
            parts.append(self.fill(self.pick(self.v.summary), cast))
        if size(parts) > high and size(parts[:-1]) >= low:
            parts.pop()
        return self.v.sep.join(parts)

    def global_summary(self, number: int) -> str:
        head = f"Through chapter {number}: " if self.v.sep else f"截至第{number}章："
        return (head + self.summary(self.names, 1500, 1950, words=False))[: GlobalSummary.MAX_CHARS]


def _passages(sentences: list[str], sep: str) -> list[str]:
    per = max(1, -(-len(sentences) // PASSAGES_PER_CHAPTER))
    return [sep.join(sentences[i : i + per]) for i in range(0, len(sentences), per)][:PASSAGES_PER_CHAPTER]


def _state(rng: random.Random, v: _Vocab, names: list[str], alive: bool) -> dict[str, Any]:
    return {
        "alive": alive,
        "location": rng.choice(v.places),
        "physical": rng.choice(v.moods),
        "mental": rng.choice(v.moods),
        "items": rng.sample(list(v.things), 2),
        "abilities": rng.sample(list(v.verbs), 2),
        "relationships": {name: rng.choice(v.verbs) for name in rng.sample(names, 3)},
    }


@transaction.atomic
def synthetic_book_build(
    *, owner: User, chapters: int = 1000, language: str = "en", seed: int = 0, title: str = ""
) -> SyntheticBook:
    """Create a novel whose first ``chapters`` chapters are finalized, with all their memory."""
    cues = synthetic_cues(chapters=chapters, language=language, seed=seed)
    novel = novel_create(
        owner=owner,
        title=title or (f"Synthetic book {seed}" if language == "en" else f"合成之书 {seed}"),
        language=language,
        target_chapters=chapters,
        target_chapter_length=_vocab(language).text_chars,
    )
    w = _Writer(novel=novel, chapters=chapters, language=language, seed=seed, cues=cues)
    _write_chapters(w)
    _write_characters(w)
    _write_threads(w)
    return SyntheticBook(novel=novel, cues=cues)


def _write_chapters(w: _Writer) -> None:
    v, rng, novel = w.v, w.rng, w.novel
    rows, summaries, globals_, passages, facts_by_chapter = [], [], [], [], {}
    words = bool(v.sep)
    for n in range(1, w.chapters + 1):
        cast = rng.sample(w.names, 5)
        sentences = w.chapter_text(n, cast)
        rows.append(
            Chapter(
                novel=novel,
                number=n,
                title=w.fill("{a} at the {place}" if words else "{a}夜至{place}", cast),
                status=ChapterStatus.FINALIZED,
                text=v.sep.join(sentences),
                finalized_at=_EPOCH + dt.timedelta(minutes=n),
                finalize_count=1,
            )
        )
        low, high = v.summary_size
        summaries.append(
            ChapterSummary(
                novel=novel,
                source_chapter=n,
                chapter=n,
                summary=w.summary(cast, low, high, words=words),
                skeleton=w.fill(v.skeleton, cast)[:400],
            )
        )
        if n > w.chapters - GLOBAL_VERSIONS_KEPT:
            globals_.append(GlobalSummary(novel=novel, source_chapter=n, chapter=n, text=w.global_summary(n)))
        for ordinal, text in enumerate(_passages(sentences, v.sep)):
            entities = [name for name in cast if name in text]
            entities += [c.name for c in [w.plants.get(n), *w.recalls.get(n, [])] if c and c.name in text]
            passages.append(
                Passage(novel=novel, source_chapter=n, chapter=n, ordinal=ordinal, text=text, entities=entities)
            )
        facts_by_chapter[n] = [w.fill(rng.choice(v.summary), cast) for _ in range(FACTS_PER_CHAPTER)]
        if n in w.plants:
            facts_by_chapter[n][0] = w.fill(v.plant, cast, cue=w.plants[n].name)
    Chapter.objects.bulk_create(rows, batch_size=_BATCH)
    revisions = [
        ChapterRevision(chapter=row, text=row.text, source=RevisionSource.DRAFT, model_label="synthetic")
        for row in rows
    ]
    ChapterRevision.objects.bulk_create(revisions, batch_size=_BATCH)
    # One UPDATE joining on the revision table instead of 1000 single-row saves.
    for row, revision in zip(rows, revisions, strict=True):
        row.finalized_revision = revision
    Chapter.objects.bulk_update(rows, ["finalized_revision"], batch_size=_BATCH)
    ChapterSummary.objects.bulk_create(summaries, batch_size=_BATCH)
    GlobalSummary.objects.bulk_create(globals_, batch_size=_BATCH)
    Passage.objects.bulk_create(passages, batch_size=_BATCH)
    first_passage = {p.chapter: p for p in passages if p.ordinal == 0}
    Fact.objects.bulk_create(
        [
            Fact(
                novel=novel,
                source_chapter=n,
                text=text,
                passage=first_passage[n] if i == 0 else None,
                entities=[name for name in w.names if name in text]
                + ([w.plants[n].name] if n in w.plants and i == 0 else []),
            )
            for n, texts in facts_by_chapter.items()
            for i, text in enumerate(texts)
        ],
        batch_size=_BATCH,
    )


def _write_characters(w: _Writer) -> None:
    v, rng, novel = w.v, w.rng, w.novel
    characters = Character.objects.bulk_create(
        [
            Character(
                novel=novel,
                name=name,
                aliases=[name.split()[0]] if v.sep else [name[1:]],
                description=w.fill(v.skeleton, [name, rng.choice([n for n in w.names if n != name])]),
            )
            for name in w.names
        ]
    )
    states = []
    for character in characters:
        # A few characters die somewhere in the second half; their later versions stay dead.
        dies_at = rng.randint(w.chapters // 2, w.chapters) if rng.random() < 0.2 else None
        chapter = 0
        while chapter <= w.chapters:
            alive = dies_at is None or chapter < dies_at
            state = _state(rng, v, w.names, alive)
            states.append(
                CharacterState(
                    novel=novel,
                    source_chapter=chapter or None,
                    character=character,
                    chapter=chapter,
                    state=state,
                    changes={} if chapter == 0 else {"location": state["location"], "mental": state["mental"]},
                )
            )
            chapter += rng.randint(*STATE_EVERY)
    CharacterState.objects.bulk_create(states, batch_size=_BATCH)


def _write_threads(w: _Writer) -> None:
    v, rng, novel = w.v, w.rng, w.novel
    threads, plans = [], []
    for number, opened in enumerate(range(1, w.chapters + 1, THREAD_EVERY), start=1):
        resolves = opened + rng.randint(*THREAD_LIFETIME)
        deadline = opened + rng.randint(THREAD_LIFETIME[0], THREAD_LIFETIME[1] + 20)
        progress = sorted(rng.sample(range(opened + 1, resolves), 2)) if resolves - opened > 3 else []
        progress = [c for c in progress if c <= w.chapters]
        resolved = resolves <= w.chapters
        status = ThreadStatus.RESOLVED if resolved else (ThreadStatus.PROGRESSING if progress else ThreadStatus.OPEN)
        cast = rng.sample(w.names, 3)
        threads.append(
            Thread(
                novel=novel,
                source_chapter=opened,
                number=number,
                summary=w.fill(rng.choice(v.summary), cast),
                kind=rng.choice(["foreshadowing", "mystery", "promise", "setup"]),
                status=status,
                opened_at=opened,
                last_activated_at=resolves if resolved else (progress[-1] if progress else opened),
                deadline=deadline,
                resolved_at=resolves if resolved else None,
                resolution_note=w.fill(rng.choice(v.summary), cast) if resolved else "",
            )
        )
        plans.append((opened, progress, resolves if resolved else None))
    Thread.objects.bulk_create(threads, batch_size=_BATCH)
    events = []
    for thread, (opened, progress, resolved_at) in zip(threads, plans, strict=True):
        events.append(ThreadEvent(thread=thread, chapter=opened, action="open", after={"status": "open"}))
        state = "open"
        for chapter in progress:
            after = {"status": "progressing", "last_activated_at": chapter}
            events.append(
                ThreadEvent(thread=thread, chapter=chapter, action="progress", before={"status": state}, after=after)
            )
            state = "progressing"
        if resolved_at is not None:
            after = {"status": "resolved", "resolved_at": resolved_at}
            events.append(
                ThreadEvent(thread=thread, chapter=resolved_at, action="resolve", before={"status": state}, after=after)
            )
    ThreadEvent.objects.bulk_create(events, batch_size=_BATCH)
