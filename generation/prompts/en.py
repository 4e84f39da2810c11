"""English prompt templates. Placeholders are filled by generation.prompts.render."""

from __future__ import annotations

from typing import Any

NONE = "(none)"
LANGUAGE_RULE = "Write every piece of prose in {language_name}."
JSON_RULE = (
    "Answer with one JSON object and nothing else — no code fences, no commentary. "
    "Keys and enum values stay exactly as shown (in English); the text inside is in the novel's language. "
    "It must have exactly this shape:\n{shape}"
)
PACING = (
    "Pacing rules:\n"
    "- Build a suspense unit every 3–5 chapters: a question raised, tightened and answered or turned.\n"
    "- Rhythm: two tense chapters, then one breather chapter (suspense density 1–2) before tension rises again.\n"
    '- Foreshadowing runs plant → reinforce → pay off. A plant introduces a new thread (leave "thread" empty); '
    'reinforce and payoff ops name the thread label they act on ("T3"). Pay off threads listed as owed '
    "before their deadline."
)
CARD_LABELS = {
    "title": "Title",
    "position": "Position in the story",
    "core_function": "Core function",
    "suspense_density": "Suspense density (1–5)",
    "foreshadowing": "Foreshadowing",
    "cognitive_twist": "Cognitive twist (1–5)",
    "brief": "Brief",
}
PART_LABELS = {"core_seed": "Core seed", "characters": "Characters", "world": "World", "plot_arcs": "Plot arcs"}
FINDING = '- [{severity}/{dimension}] "{quote}" → {suggestion}'

SYSTEM = (
    "You are a professional novelist and story architect helping an author write a whole novel "
    "chapter by chapter. You follow the plan, keep every established fact, "
    "and never contradict the memory you are given."
)

_ARCH_USER = (
    "Novel: {title}\nGenre: {genre}\nPremise: {premise}\nPlanned length: {target_chapters} chapters\n\n"
    "Parts written so far:\n{previous}\n\nAuthor's guidance:\n{guidance}\n\n{instruction}"
)

USER: dict[str, str] = {
    "architecture_core_seed": _ARCH_USER.replace(
        "{instruction}",
        "Step 1 of 4 (snowflake method): write the core seed — the story in one strong sentence, then one paragraph "
        "expanding it: protagonist, want, obstacle, stakes, and the ending's direction.",
    ),
    "architecture_characters": _ARCH_USER.replace(
        "{instruction}",
        "Step 2 of 4: design the main cast (4–8 characters) consistent with the core seed. For each: name, role, "
        'desire, wound, arc, and the relationships that matter. "text" is the cast as prose for the author; '
        '"characters" lists the same people with their initial state.',
    ),
    "architecture_world": _ARCH_USER.replace(
        "{instruction}",
        "Step 3 of 4: build the world — places, rules (and their costs), factions, and the everyday texture "
        "the chapters will need. Only what this story uses.",
    ),
    "architecture_plot_arcs": _ARCH_USER.replace(
        "{instruction}",
        "Step 4 of 4: lay out the plot arcs across all {target_chapters} chapters — acts, turning points, the main "
        "mysteries with where each is planted and paid off, and each main character's arc.",
    ),
    "blueprint_window": (
        "Novel: {title}\nPlanned length: {target_chapters} chapters\n\nArchitecture:\n{architecture}\n\n"
        "Story so far (global summary):\n{global_summary}\n\nOpen threads (cite these labels):\n{known_threads}\n\n"
        "Earlier cards:\n{previous_cards}\n\nAuthor's guidance:\n{guidance}\n\n"
        "Plan chapters {start} to {end}: exactly one card per chapter, numbered {start}..{end} in order, no gaps, "
        'no placeholders such as "...". Every card has all seven fields.'
    ),
    "draft": (
        "Write chapter {chapter_number}.\n\nChapter card:\n{card}\n\n"
        "Next chapter's card (set it up, do not write it):\n"
        "{next_card}\n\nMemory (facts, characters, threads, earlier chapters):\n{memory_block}\n\n"
        "{architecture_block}End of the previous chapter (continue seamlessly from here):\n{previous_tail}\n\n"
        "Owed payoffs (must happen in this chapter):\n{owed_payoffs}\n\n"
        "Length: about {target_length} characters. Output only the chapter's prose — no title, no notes."
    ),
    "revise": (
        "Revise chapter {chapter_number} to fix the editor's findings, keeping everything that works.\n\n"
        "Chapter card:\n{card}\n\nNext chapter's card:\n{next_card}\n\nMemory:\n{memory_block}\n\n"
        "{architecture_block}End of the previous chapter:\n{previous_tail}\n\nOwed payoffs:\n{owed_payoffs}\n\n"
        "Findings:\n{findings}\n\nCurrent draft:\n{draft_text}\n\n"
        "Length: about {target_length} characters. Output only the revised chapter's prose."
    ),
    "review": (
        "Review chapter {chapter_number} as a strict editor. Check consistency with memory, continuity with the "
        "previous chapter, threads (planted and owed), pacing against the card, language, and length "
        "(target about {target_length} characters). Report only real problems, most serious first; "
        "an empty list is a fine answer.\n\nChapter card:\n{card}\n\nNext chapter's card:\n{next_card}\n\n"
        "Memory:\n{memory_block}\n\nEnd of the previous chapter:\n{previous_tail}\n\nChapter text:\n{chapter_text}"
    ),
    "finalize_summary": (
        "Chapter {chapter_number} is final.\n\nIts card:\n{card}\n\nGlobal summary before this chapter:\n"
        "{previous_global_summary}\n\nChapter text:\n{chapter_text}\n\n"
        'Write: "summary" — what happened in this chapter (a paragraph); "skeleton" — one line; '
        '"global_summary" — the whole story so far REWRITTEN (not appended to), at most 2000 characters, '
        "compressing older events."
    ),
    "finalize_extract": (
        "Chapter {chapter_number} of {total_chapters} is final. Extract what it changed.\n\n"
        "Characters now:\n{characters}\n\nOpen threads (cite their [T#] labels):\n{known_threads}\n\n"
        "Chapter text:\n{chapter_text}\n\n"
        "List: characters whose state changed (only the fields that changed); facts established (1–10, concrete, "
        'naming their entities); thread operations — "resolve" or "progress" with the ref of a listed thread, '
        '"open" with an empty ref and a deadline_chapter for a new promise the chapter makes.'
    ),
}

REPAIR = (
    "Your answer could not be used:\n{problems}\n\n"
    "Reply again with the corrected JSON object only, in the same shape, fixing every problem above."
)


def shapes() -> dict[str, Any]:
    card = {
        "number": 1,
        "title": "chapter title",
        "position": "where the chapter stands in the story",
        "core_function": "what the chapter must achieve",
        "suspense_density": 3,
        "foreshadowing": [
            {"op": "plant | reinforce | payoff", "thread": 'T3, or "" for a new plant', "summary": "..."}
        ],
        "cognitive_twist": 2,
        "brief": "what happens, in a few sentences",
    }
    return {
        "part": {"text": "the part, several paragraphs"},
        "characters": {
            "text": "the cast as prose",
            "characters": [
                {
                    "name": "full name",
                    "aliases": [],
                    "description": "role, desire, wound, arc",
                    "state": {
                        "alive": True,
                        "location": "",
                        "physical": "",
                        "mental": "",
                        "items": [],
                        "abilities": [],
                        "relationships": {"other character's name": "relation"},
                    },
                }
            ],
        },
        "blueprint_window": {"cards": [card]},
        "review": {
            "findings": [
                {
                    "dimension": "consistency | continuity | threads | pacing | language | length",
                    "severity": "info | minor | major | critical",
                    "quote": "the passage, quoted exactly",
                    "suggestion": "how to fix it",
                }
            ]
        },
        "finalize_summary": {
            "summary": "paragraph",
            "skeleton": "one line",
            "global_summary": "at most 2000 characters",
        },
        "finalize_extract": {
            "characters": [
                {
                    "name": "name as listed",
                    "alive": None,
                    "location": None,
                    "physical": None,
                    "mental": None,
                    "items_gained": [],
                    "items_lost": [],
                    "abilities_gained": [],
                    "relationships": {},
                }
            ],
            "facts": [{"text": "one concrete fact", "entities": ["names it mentions"]}],
            "threads": [
                {
                    "action": "open | progress | resolve",
                    "ref": 'T2, or "" when opening',
                    "summary": "the promise",
                    "thread_type": "foreshadowing | mystery | conflict | promise",
                    "deadline_chapter": 12,
                    "resolution_note": "how it was resolved",
                }
            ],
        },
    }
