"""Text cleanup: normalization, wrap joining, running margins, garbage detection."""

from __future__ import annotations

import pytest

from rag.ingest.text_cleanup import (
    garbage_ratio,
    is_page_number,
    join_wrapped_lines,
    normalize_text,
    strip_repeated_margins,
)


def test_normalize_text_nfkc_ligatures_width_and_controls() -> None:
    raw = "ＴＥＥ＿Ｍａｌｌｏｃ　ｶﾀｶﾅ ﬁle\x00\u200b  end \r\n\r\n\r\n\r\nnext"
    assert normalize_text(raw) == "TEE_Malloc カタカナ file end\n\nnext"


def test_join_wrapped_lines_japanese_joins_without_space() -> None:
    text = "これは日本語の本文です。長い文章が途中で改行され\nることを確認するためのテストです。"
    assert (
        join_wrapped_lines(text) == "これは日本語の本文です。長い文章が途中で改行されることを確認するためのテストです。"
    )


def test_join_wrapped_lines_english_space_and_dehyphenation() -> None:
    text = "The client library validates every\nparameter before the imple-\nmentation runs"
    assert join_wrapped_lines(text) == "The client library validates every parameter before the implementation runs"


def test_join_wrapped_lines_keeps_paragraphs_lists_and_tables() -> None:
    text = "概要:\n・項目一\n・項目二\n\n| a | b |\n| --- | --- |"
    assert join_wrapped_lines(text) == "概要:\n・項目一\n・項目二\n\n| a | b |\n| --- | --- |"


def test_join_wrapped_lines_mixed_script_boundary_has_no_space() -> None:
    assert join_wrapped_lines("関数\nTEE_Mallocを呼ぶ") == "関数TEE_Mallocを呼ぶ"


@pytest.mark.parametrize("line", ["3", "- 3 -", "3 / 10", "Page 3", "page 3 of 10", "3ページ", "第3頁", "p. 12"])
def test_page_number_patterns(line: str) -> None:
    assert is_page_number(line)


@pytest.mark.parametrize("line", ["3. メモリ管理", "TEE_Malloc", "2024年の計画", "Version 3 notes"])
def test_not_page_numbers(line: str) -> None:
    assert not is_page_number(line)


def test_strip_repeated_margins_keeps_header_and_footer_on_the_first_page_only() -> None:
    # what a running header says (the document's version) may be said nowhere else: it stays once, pagination goes
    pages = [
        f"TEE 内部仕様書 v1.2 社外秘\n第{2 * n + 1}節の本文はここにある。\n内容 {n * 7} 行目\n"
        f"Copyright 2024 Example Corp. | {n + 2} / 6\n- {n} -"
        for n in range(1, 5)
    ]
    cleaned = strip_repeated_margins(pages)
    # the header is kept where it first stands; the footer numbered with the page is pagination
    assert cleaned[0] == "TEE 内部仕様書 v1.2 社外秘\n第3節の本文はここにある。\n内容 7 行目"
    for n, page in enumerate(cleaned[1:], start=2):
        assert page == f"第{2 * n + 1}節の本文はここにある。\n内容 {n * 7} 行目"


def test_strip_repeated_margins_keeps_numbered_headings_that_do_not_follow_pages() -> None:
    topics = ["メモリ管理", "暗号", "メモリ管理", "暗号"]
    pages = [f"{(n * 3) % 7}. 概要\n{topics[n]}の説明文。" for n in range(4)]
    assert strip_repeated_margins(pages) == pages


def test_strip_repeated_margins_keeps_lines_not_on_most_pages() -> None:
    pages = ["はじめに\n本文一", "本文二\n結び", "本文三\n結び", "本文四\n別の結び", "本文五\nまとめ"]
    assert strip_repeated_margins(pages) == pages


def test_strip_repeated_margins_single_page_only_drops_page_number() -> None:
    assert strip_repeated_margins(["見出し\n本文です。\n- 1 -"]) == ["見出し\n本文です。"]


def test_garbage_ratio_clean_text_is_zero() -> None:
    assert garbage_ratio("TEE_Mallocはメモリを確保する。The client validates.") == 0.0
    assert garbage_ratio("") == 0.0


@pytest.mark.parametrize(
    "text",
    [
        "日本語のテキストです".encode().decode("cp1252", errors="replace"),  # mojibake
        "\ue048\ue065\ue06c\ue06c\ue06f \ue077\ue06f\ue072\ue06c\ue064",  # private-use glyphs
        "\ufffd\ufffd\ufffd ab \ufffd\ufffd\ufffd",  # replacement characters
        "\x01\x02\x03\x04\x05 x",  # control characters
    ],
)
def test_garbage_ratio_flags_unreadable_text(text: str) -> None:
    assert garbage_ratio(text) > 0.6


def test_garbage_ratio_accented_latin_is_readable() -> None:
    assert garbage_ratio("Ça coûte très cher à São Paulo, naïve café.") < 0.1


def test_strip_unreadable_drops_symbol_glyphs_only() -> None:
    from rag.ingest.text_cleanup import strip_unreadable

    assert strip_unreadable("\uf0b7 項目\ufffd one") == " 項目 one"
