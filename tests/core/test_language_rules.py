"""Script detection and the language guard: reverse-verified rules."""

from __future__ import annotations

import pytest

from memory.core.language import (
    CYRILLIC,
    HAN,
    HANGUL,
    KANA,
    LATIN,
    count_scripts,
    document_scripts,
    dominates,
    is_char_counted_language,
    language_mismatch,
    resolve_language,
)

RUSSIAN = "Это длинный русский текст о путешествии героя через зимний лес"
ARABIC = "هذا نص عربي طويل عن رحلة البطل عبر الغابة"
CHINESE = "这是一段很长的中文文本，讲述英雄穿越冬天森林的旅程"
GREEK = "Αυτό είναι ένα μεγάλο ελληνικό κείμενο"


@pytest.mark.parametrize(
    ("text", "code", "char_counted"),
    [
        (RUSSIAN + " 한", "ru", False),
        (ARABIC + " ж", "ar", False),
        (CHINESE + "の", "zh", True),
        (CHINESE + "한", "zh", True),
        ("三国演义の", "zh", True),
        (GREEK + " ж", "el", False),
        ("An English sentence with one 中 character in it", "en", False),
        ("中文", "zh", True),
        ("日本語のテキストです", "ja", True),
        ("ノルウェイの森", "ja", True),
        ("カ", "ja", True),
        ("한국어 텍스트 漢字", "ko", True),
        ("한", "ko", True),
        ("ภาษาไทยยาว a", "th", True),
        ("עברית ארוכה", "he", False),
        ("हिन्दी पाठ", "hi", False),
        ("", "en", False),
        ("12345 !!", "und", False),
        ("ab中文", "zh", True),
    ],
)
def test_resolve_language_is_a_majority_against_every_script(text, code, char_counted):
    hint = resolve_language(text)
    assert hint.code == code
    assert hint.char_counted is char_counted
    assert hint.unit == ("chars" if char_counted else "words")
    assert is_char_counted_language(text) is char_counted


def test_resolve_language_directives():
    assert resolve_language("").directive == "English"
    assert resolve_language("中文").directive == "中文"
    assert resolve_language("日本語のテキスト").directive == "日本語 (Japanese)"
    assert resolve_language("한국어").directive == "한국어 (Korean)"
    assert resolve_language("ภาษาไทย").directive == "ไทย (Thai)"
    assert "(it looks like Russian" in resolve_language(RUSSIAN).directive
    assert "(it looks like Arabic)" in resolve_language(ARABIC).directive
    assert "(it looks like Hebrew)" in resolve_language("עברית").directive
    assert "(it looks like Hindi" in resolve_language("हिन्दी").directive
    latin = resolve_language("  Hola   mundo\n amigo ").directive
    assert latin == 'EXACTLY the same language as this sample — "Hola mundo amigo" — do NOT translate or switch ' \
                    "to another language"
    assert len(resolve_language("x" * 500).directive) < 300


def test_dominates_is_tie_inclusive_and_needs_at_least_one_letter():
    assert dominates("ab中文", HAN)
    assert not dominates("abc中文", HAN)
    assert not dominates("", HAN)
    assert not dominates("hello", HAN)
    assert dominates("Привет", CYRILLIC)
    assert not dominates("Привет 한", HANGUL)
    assert dominates("Привет 한", CYRILLIC)
    assert dominates("hello", LATIN)
    assert not dominates("hello привет", KANA)


def test_latin_excludes_multiplication_and_division_signs():
    assert count_scripts("a×÷é")["Latn"] == 2


def test_document_scripts_defaults_to_latin():
    assert document_scripts("es") == ("Latn",)
    assert document_scripts("zh-Hant") == ("Hani",)
    assert document_scripts("UK") == ("Cyrl",)
    assert document_scripts("fa_IR") == ("Arab",)
    assert document_scripts("") == ("Latn",)


@pytest.mark.parametrize(
    ("text", "char_counted", "expected"),
    [
        ("This record came back entirely in English", True, True),
        ("刘备 met John Smith at Microsoft Research", True, False),
        ("Short one", True, False),
        ("abcdefghij", True, False),
        ("abcdefghijk", True, True),
        (RUSSIAN, True, True),
        ("ภาษาไทย with some English names here", True, False),
        ("An English record with one 中", False, True),
        ("An English record with Thai ก", False, True),
        ("A plain English record", False, False),
        ("", False, False),
        ("", True, False),
    ],
)
def test_language_mismatch_family_form(text, char_counted, expected):
    assert language_mismatch(text, char_counted) is expected


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        (RUSSIAN, "en", True),
        ("Иван встретил John Smith в Лондоне", "ru", False),
        ("Ivan met John Smith in London yesterday", "ru", True),
        ("Short", "ru", False),
        (CHINESE, "th", True),
        ("ภาษาไทยยาว", "th", False),
        ("日本語のテキストです", "zh", True),
        ("東京駅", "ja", False),
        ("日本語のテキストです", "ja", False),
        ("日本語のテキストです", "ko", True),
        ("한국어 텍스트", "ja", True),
        ("한국어 텍스트 漢字", "ko", False),
        (CHINESE, "zh", False),
        ("This record came back entirely in English", "zh", True),
        ("刘备 met John Smith at Microsoft Research", "zh", False),
        ("An English record with one 中", "en", True),
        ("Un registro en español", "es", False),
        (GREEK, "el", False),
        (GREEK, "en", True),
        ("", "en", False),
    ],
)
def test_language_mismatch_any_pair_of_scripts(text, language, expected):
    assert language_mismatch(text, document_language=language) is expected


# --- from the mutation run: one behaviour per test -----------------------

HEBREW = "זהו טקסט עברי ארוך על מסע הגיבור"
HINDI = "यह नायक की यात्रा के बारे में एक लंबा हिंदी पाठ है"


def test_script_counts_report_zero_for_a_script_not_counted():
    from memory.core.language import ScriptCounts

    assert ScriptCounts({})["Hani"] == 0
    assert ScriptCounts({"Latn": 3}).total(("Latn", "Hani")) == 3


@pytest.mark.parametrize(
    ("sample", "code", "script"),
    [
        ("한국어 텍스트입니다", "ko", "Kore"),
        ("これは日本語の文章です", "ja", "Jpan"),
        (CHINESE, "zh", "Hani"),
        ("ภาษาไทยในเมือง", "th", "Thai"),
        (RUSSIAN, "ru", "Cyrl"),
        (ARABIC, "ar", "Arab"),
        (HEBREW, "he", "Hebr"),
        (HINDI, "hi", "Deva"),
        (GREEK, "el", "Grek"),
        ("An English outline", "en", "Latn"),
        ("", "en", "Latn"),
        ("12345 !!!", "und", "Zyyy"),
    ],
)
def test_every_language_hint_names_its_iso_15924_script(sample, code, script):
    hint = resolve_language(sample)
    assert (hint.code, hint.script) == (code, script)


def test_greek_directive_quotes_the_sample_without_guessing_a_name():
    assert resolve_language(GREEK).directive == resolve_language("An English outline").directive.replace(
        "An English outline", GREEK)
    assert "it looks like" not in resolve_language(GREEK).directive


def test_two_stray_hangul_letters_do_not_make_chinese_korean():
    assert resolve_language(CHINESE + "한국").code == "zh"


def test_mostly_kana_text_with_some_hangul_is_japanese():
    assert resolve_language("これはにほんごのぶんしょうです 한국").code == "ja"


def test_one_hangul_letter_in_a_short_chinese_title_is_stray():
    assert resolve_language("三国志한").code == "zh"


def test_hangul_and_kana_tied_resolve_to_korean():
    assert resolve_language("한국 かな中").code == "ko"


def test_secondary_script_at_exactly_a_fifth_of_the_han_count_decides():
    han = "中文字书写很多汉字"[:10].ljust(10, "汉")
    assert resolve_language(han + "한국").code == "ko"  # 2 * 5 == 10
    assert resolve_language(han + "かな").code == "ja"
    assert resolve_language(han + "汉" + "한국").code == "zh"  # 2 * 5 < 11


def test_a_single_letter_decides_its_script():
    assert resolve_language("я").code == "ru"
    assert resolve_language("ж 123").code == "ru"


def test_tied_word_scripts_resolve_in_reference_order():
    assert resolve_language("абв abc").code == "ru"  # Cyrillic before Latin
    assert resolve_language("abc αβγ").code == "el"  # Greek before Latin


@pytest.mark.parametrize("record", [ARABIC, HEBREW, HINDI], ids=["arabic", "hebrew", "devanagari"])
def test_family_form_rejects_any_word_script_record_in_a_char_counted_book(record):
    assert language_mismatch(record, True)
    assert not language_mismatch(record, False)


def test_short_latin_record_in_a_chinese_book_is_accepted():
    assert not language_mismatch("OK fine", document_language="zh")


def test_one_foreign_char_counted_letter_without_own_letters_is_rejected():
    assert language_mismatch("ok 中", document_language="th")


def test_whole_record_threshold_is_more_than_ten_foreign_letters():
    assert not language_mismatch("abcde fghij", document_language="zh")  # 10
    assert language_mismatch("abcde fghijk", document_language="zh")  # 11
    assert not language_mismatch("абвгд еёжзи", document_language="en")  # 10
    assert language_mismatch("абвгд еёжзий", document_language="en")  # 11


def test_thai_record_quoting_a_chinese_name_is_accepted():
    assert not language_mismatch("ภาษาไทยในเมือง 刘备", document_language="th")


def test_chinese_record_in_a_korean_book_is_rejected_however_short():
    assert language_mismatch("这是中文记录", document_language="ko")
    assert language_mismatch("金", document_language="ko")
    assert language_mismatch("한국어 텍스트", document_language="ja")
