"""Word's automatic list numbers reach the text as the page prints them, on DOCX files written in the test and on
the real OSS compliance pamphlet."""

from __future__ import annotations

from pathlib import Path

import docx
from docx.oxml import parse_xml
from test_claims import REALDOCS, needs_realdocs

from rag.ingest.parsing import parse_file
from rag.ingest.parsing.word_lists import format_number
from rag.settings import Settings

W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def _add_list(document, num_id: int, levels: str, overrides: str = "", abstract_id: int | None = None) -> None:
    """Add a list ``num_id`` using a new abstract definition (its ``w:lvl`` elements) or ``abstract_id``'s.

    python-docx's template already holds lists 1-9: the tests use higher ids."""
    numbering = document.part.numbering_part.element
    abstract = abstract_id if abstract_id is not None else 100 + num_id
    if abstract_id is None:
        numbering.insert(0, parse_xml(f'<w:abstractNum {W} w:abstractNumId="{abstract}">{levels}</w:abstractNum>'))
    numbering.append(
        parse_xml(f'<w:num {W} w:numId="{num_id}"><w:abstractNumId w:val="{abstract}"/>{overrides}</w:num>')
    )


def _level(ilvl: int, fmt: str, text: str, start: int = 1) -> str:
    return (
        f'<w:lvl w:ilvl="{ilvl}"><w:start w:val="{start}"/><w:numFmt w:val="{fmt}"/><w:lvlText w:val="{text}"/></w:lvl>'
    )


def _numbered(document, text: str, num_id: int, ilvl: int = 0) -> None:
    paragraph = document.add_paragraph(text)
    paragraph._p.get_or_add_pPr().append(
        parse_xml(f'<w:numPr {W}><w:ilvl w:val="{ilvl}"/><w:numId w:val="{num_id}"/></w:numPr>')
    )


def _texts(path: Path) -> list[str]:
    return [block.text for block in parse_file(path, Settings()).blocks]


def test_a_numbered_checklist_reads_with_the_numbers_word_prints(tmp_path: Path) -> None:
    document = docx.Document()
    _add_list(document, 70, _level(0, "decimalFullWidth", "（%1）") + _level(1, "decimal", "%1.%2"))
    document.add_paragraph("次の項目を確認してください。")
    _numbered(document, "ライセンスを調査していますか?", 70)
    _numbered(document, "調査ツールを使っていますか?", 70, ilvl=1)
    _numbered(document, "結果を記録していますか?", 70, ilvl=1)
    _numbered(document, "相談窓口は明確ですか?", 70)
    _numbered(document, "窓口を周知していますか?", 70, ilvl=1)
    path = tmp_path / "checklist.docx"
    document.save(str(path))

    assert _texts(path) == [
        "次の項目を確認してください。",
        "(1) ライセンスを調査していますか?",
        "1.1 調査ツールを使っていますか?",
        "1.2 結果を記録していますか?",
        "(2) 相談窓口は明確ですか?",
        "2.1 窓口を周知していますか?",  # the deeper level starts again under the next item
    ]


def test_lists_sharing_a_definition_continue_unless_one_restarts(tmp_path: Path) -> None:
    document = docx.Document()
    _add_list(document, 70, _level(0, "lowerLetter", "%1)"))
    _add_list(document, 80, "", abstract_id=170)  # the same definition: Word continues the count
    restart = '<w:lvlOverride w:ilvl="0"><w:startOverride w:val="1"/></w:lvlOverride>'
    _add_list(document, 90, "", overrides=restart, abstract_id=170)
    _numbered(document, "first", 70)
    _numbered(document, "second", 70)
    _numbered(document, "continued", 80)
    _numbered(document, "restarted", 90)
    document.add_paragraph("• a bullet typed by hand stays as typed")
    path = tmp_path / "lists.docx"
    document.save(str(path))

    assert _texts(path) == [
        "a) first",
        "b) second",
        "c) continued",
        "a) restarted",
        "• a bullet typed by hand stays as typed",
    ]


def test_word_s_own_list_styles_and_symbol_bullets(tmp_path: Path) -> None:
    document = docx.Document()
    for text in ("Open the box", "Plug it in", "Press start"):
        document.add_paragraph(text, style="List Number")
    document.add_paragraph("alpha", style="List Bullet")  # a Symbol-font bullet: no meaning as text
    path = tmp_path / "styles.docx"
    document.save(str(path))

    assert _texts(path) == ["1. Open the box", "2. Plug it in", "3. Press start", "・ alpha"]


def test_number_formats() -> None:
    assert [format_number(n, "upperRoman") for n in (4, 9, 14)] == ["IV", "IX", "XIV"]
    assert [format_number(n, "lowerLetter") for n in (1, 26, 27)] == ["a", "z", "aa"]
    assert [format_number(n, "aiueoFullWidth") for n in (1, 2, 6)] == ["ア", "イ", "カ"]
    assert [format_number(n, "iroha") for n in (1, 2, 3)] == ["イ", "ロ", "ハ"]
    assert [format_number(n, "japaneseCounting") for n in (3, 10, 12, 20, 35)] == ["三", "十", "十二", "二十", "三十五"]
    assert [format_number(n, "decimalEnclosedCircle") for n in (1, 8)] == ["①", "⑧"]


@needs_realdocs
def test_the_pamphlet_s_checklist_has_its_eight_numbered_items() -> None:
    texts = _texts(REALDOCS / "ja_oss_compliance_pamphlet.docx")
    items = [t for t in texts if t.startswith("(") and t[1].isdigit()]
    assert [t.split(")")[0] + ")" for t in items] == [f"({n})" for n in range(1, 9)]
    assert items[0] == "(1) 利用するOSSのライセンスを漏れなく調査できていますか?"
    assert items[-1].startswith("(8) トラブル発生時")
    assert "・ 調査するためのツールを利用することをお勧めします。" in texts  # the advice under an item
