"""中文提示词模板。占位符由 generation.prompts.render 填充。"""

# ruff: noqa: E501  (ruff counts each Chinese character as two columns; splitting prose mid-sentence reads worse)

from __future__ import annotations

from typing import Any

NONE = "（无）"
LANGUAGE_RULE = "所有正文内容必须用{language_name}书写。"
JSON_RULE = "只输出一个 JSON 对象，不要代码块标记，不要任何解释。键名和枚举值保持原样（英文），内容用小说的语言。结构必须完全如下：\n{shape}"
PACING = (
    "节奏规则：\n"
    "- 每 3–5 章构成一个悬念单元：提出疑问、收紧、再解答或反转。\n"
    "- 张弛节奏：连续两章紧张，随后一章舒缓（悬念密度 1–2），再重新推高。\n"
    "- 伏笔按“埋设 → 强化 → 回收”推进。埋设新伏笔时 thread 留空；强化（reinforce）和回收（payoff）"
    '必须写明所作用的伏笔标签（如 "T3"）。列为待回收的伏笔须在期限前回收。'
)
CARD_LABELS = {
    "title": "章节标题",
    "position": "本章定位",
    "core_function": "核心作用",
    "suspense_density": "悬念密度（1–5）",
    "foreshadowing": "伏笔操作",
    "cognitive_twist": "认知颠覆（1–5）",
    "brief": "本章简述",
}
PART_LABELS = {"core_seed": "核心种子", "characters": "角色", "world": "世界观", "plot_arcs": "情节弧"}
FINDING = "- [{severity}/{dimension}] “{quote}” → {suggestion}"

SYSTEM = "你是一位专业的长篇小说作家和故事架构师，正在协助作者逐章完成一部完整的长篇小说。你严格遵循大纲，保留所有已确立的事实，绝不与给定的记忆矛盾。"

_ARCH_USER = (
    "小说：{title}\n类型：{genre}\n故事梗概：{premise}\n计划篇幅：{target_chapters} 章\n\n"
    "已完成的部分：\n{previous}\n\n作者的指导意见：\n{guidance}\n\n{instruction}"
)

USER: dict[str, str] = {
    "architecture_core_seed": _ARCH_USER.replace(
        "{instruction}",
        "第 1 步（雪花写作法）：写出核心种子——先用一句有力的话概括整个故事，再用一段话展开：主角、欲望、阻碍、代价，以及结局的走向。",
    ),
    "architecture_characters": _ARCH_USER.replace(
        "{instruction}",
        "第 2 步：设计与核心种子一致的主要角色（4–8 人）。每人写明：姓名、身份、欲望、创伤、成长弧线和关键关系。"
        '"text" 是给作者看的角色介绍；"characters" 列出同样的人物及其初始状态。',
    ),
    "architecture_world": _ARCH_USER.replace(
        "{instruction}",
        "第 3 步：构建世界观——地点、规则（及其代价）、势力，以及各章需要的日常质感。只写本故事用得到的部分。",
    ),
    "architecture_plot_arcs": _ARCH_USER.replace(
        "{instruction}",
        "第 4 步：规划贯穿全部 {target_chapters} 章的情节弧——分幕、转折点、主要谜团各自的埋设与回收位置，以及每个主要角色的成长弧线。",
    ),
    "blueprint_window": (
        "小说：{title}\n计划篇幅：{target_chapters} 章\n\n小说架构：\n{architecture}\n\n"
        "前情总览：\n{global_summary}\n\n未回收的伏笔（引用这些标签）：\n{known_threads}\n\n"
        "已有章节卡：\n{previous_cards}\n\n作者的指导意见：\n{guidance}\n\n"
        "请规划第 {start} 章到第 {end} 章：每章恰好一张卡片，编号 {start}..{end} 依次连续，不得跳号，"
        "不得用“……”之类的占位。每张卡片七个字段齐全。"
    ),
    "draft": (
        "请写第 {chapter_number} 章。\n\n本章卡片：\n{card}\n\n下一章卡片（为其铺垫，不要提前写）：\n{next_card}\n\n"
        "记忆（事实、人物、伏笔、前文）：\n{memory_block}\n\n{architecture_block}"
        "上一章结尾（从这里无缝接续）：\n{previous_tail}\n\n必须在本章完成的伏笔回收：\n{owed_payoffs}\n\n"
        "篇幅：约 {target_length} 字。只输出本章正文，不要标题，不要说明。"
    ),
    "revise": (
        "请根据编辑意见修改第 {chapter_number} 章，保留写得好的部分。\n\n本章卡片：\n{card}\n\n下一章卡片：\n{next_card}\n\n"
        "记忆：\n{memory_block}\n\n{architecture_block}上一章结尾：\n{previous_tail}\n\n必须完成的伏笔回收：\n{owed_payoffs}\n\n"
        "编辑意见：\n{findings}\n\n当前稿件：\n{draft_text}\n\n篇幅：约 {target_length} 字。只输出修改后的正文。"
    ),
    "review": (
        "请以严格编辑的身份审阅第 {chapter_number} 章。检查：与记忆的一致性、与上一章的连贯性、伏笔（埋设与待回收）、"
        "是否符合卡片的节奏、语言，以及篇幅（目标约 {target_length} 字）。只报告真实存在的问题，最严重的放在前面；"
        "没有问题就返回空列表。\n\n本章卡片：\n{card}\n\n下一章卡片：\n{next_card}\n\n记忆：\n{memory_block}\n\n"
        "上一章结尾：\n{previous_tail}\n\n本章正文：\n{chapter_text}"
    ),
    "finalize_summary": (
        "第 {chapter_number} 章已定稿。\n\n本章卡片：\n{card}\n\n本章之前的前情总览：\n{previous_global_summary}\n\n"
        '本章正文：\n{chapter_text}\n\n请写："summary"——本章发生了什么（一段）；"skeleton"——一句话梗概；'
        '"global_summary"——重写（不是追加）到目前为止的整个故事，不超过 2000 字，压缩较早的事件。'
    ),
    "finalize_extract": (
        "全书共 {total_chapters} 章，第 {chapter_number} 章已定稿。请提取本章带来的变化。\n\n当前人物状态：\n{characters}\n\n"
        "未回收的伏笔（引用其 [T#] 标签）：\n{known_threads}\n\n本章正文：\n{chapter_text}\n\n"
        "列出：状态发生变化的人物（只写变化的字段）；本章确立的事实（1–10 条，具体，注明涉及的实体）；"
        '伏笔操作——对已列出的伏笔用 "resolve" 或 "progress" 并填写其 ref；本章新埋下的伏笔用 "open"，'
        "ref 留空并给出 deadline_chapter。"
    ),
}

REPAIR = "你的回答无法使用：\n{problems}\n\n请重新回答：只输出修正后的 JSON 对象，结构不变，修正上面列出的每一个问题。"


def shapes() -> dict[str, Any]:
    card = {
        "number": 1,
        "title": "章节标题",
        "position": "本章在故事中的位置",
        "core_function": "本章必须完成的作用",
        "suspense_density": 3,
        "foreshadowing": [
            {"op": "plant | reinforce | payoff", "thread": 'T3，埋设新伏笔时为 ""', "summary": "伏笔内容"}
        ],
        "cognitive_twist": 2,
        "brief": "用几句话写本章发生的事",
    }
    return {
        "part": {"text": "本部分内容，若干段落"},
        "characters": {
            "text": "角色介绍正文",
            "characters": [
                {
                    "name": "姓名",
                    "aliases": [],
                    "description": "身份、欲望、创伤、成长弧线",
                    "state": {
                        "alive": True,
                        "location": "",
                        "physical": "",
                        "mental": "",
                        "items": [],
                        "abilities": [],
                        "relationships": {"另一角色的姓名": "关系"},
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
                    "quote": "原文片段，一字不改",
                    "suggestion": "修改建议",
                }
            ]
        },
        "finalize_summary": {"summary": "一段话", "skeleton": "一句话", "global_summary": "不超过 2000 字"},
        "finalize_extract": {
            "characters": [
                {
                    "name": "与列表一致的姓名",
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
            "facts": [{"text": "一条具体的事实", "entities": ["涉及的名字"]}],
            "threads": [
                {
                    "action": "open | progress | resolve",
                    "ref": 'T2，新埋设时为 ""',
                    "summary": "伏笔内容",
                    "thread_type": "foreshadowing | mystery | conflict | promise",
                    "deadline_chapter": 12,
                    "resolution_note": "如何回收",
                }
            ],
        },
    }
