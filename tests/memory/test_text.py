from __future__ import annotations

from memory.text import alias_map, names_in, split_passages


def test_chinese_text_is_split_into_passages_of_300_to_600_characters_on_paragraph_boundaries():
    paragraphs = [f"第{i}段，刘备与关羽在桃园中饮酒，谈论天下大势，言及黄巾之乱与百姓之苦。" * 3 for i in range(30)]
    passages = split_passages("\n\n".join(paragraphs), language="zh")
    assert all(300 <= len(p) <= 600 for p in passages[:-1])
    assert "\n\n".join(passages) == "\n\n".join(paragraphs)


def test_a_capitalised_name_does_not_match_the_common_word():
    aliases = alias_map([("Will", []), ("刘备", ["玄德"])])
    assert names_in("You will see. 玄德公至。", aliases) == ["刘备"]
    assert names_in("Will smiled.", aliases) == ["Will"]
