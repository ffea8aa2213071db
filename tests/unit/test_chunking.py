"""Chunking: structure first, then size and overlap; tables and records; ids, dedup and metadata."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from rag.ingest.chunking import chunk_document, embedded_text, split_table, split_text
from rag.records import OCR, Block, ParsedDocument
from rag.settings import Settings

SETTINGS = Settings(chunk_size=200, chunk_overlap=40, chunk_min_chars=10)
JA_SENTENCES = [f"これは{n}番目の文であり、TEE_Malloc{n}の説明を含む。" for n in range(40)]


def _chunks(doc: ParsedDocument, settings: Settings = SETTINGS, doc_type: str = "general"):
    return chunk_document(doc, source="spec.pdf", rel_path="docs/spec.pdf", doc_type=doc_type, settings=settings)


def _overlap(left: str, right: str) -> int:
    return max((k for k in range(1, min(len(left), len(right)) + 1) if left.endswith(right[:k])), default=0)


def test_split_text_respects_size_and_overlap_at_sentence_ends() -> None:
    text = "".join(JA_SENTENCES)
    pieces = split_text(text, 200, 40)
    assert len(pieces) > 3
    assert all(len(p) <= 200 for p in pieces)
    for left, right in zip(pieces, pieces[1:]):
        assert left.endswith("。")  # split at a sentence end, not mid-word
        assert 0 < _overlap(left, right) <= 40
        assert right.startswith("これは")  # the overlap starts at a sentence start
    assert "".join(JA_SENTENCES[-1]) in pieces[-1]
    joined = pieces[0] + "".join(p[_overlap(a, p) :] for a, p in zip(pieces, pieces[1:]))
    assert joined == text  # nothing lost, nothing invented


def test_split_text_hard_cuts_text_without_boundaries() -> None:
    text = "あ" * 500
    pieces = split_text(text, 200, 40)
    assert all(len(p) <= 200 for p in pieces)
    assert sum(len(p) for p in pieces) - 40 * (len(pieces) - 1) == 500


def test_split_text_rejects_bad_sizes() -> None:
    with pytest.raises(ValueError, match="allowed"):
        split_text("abc", 10, 10)


def test_split_table_repeats_header() -> None:
    header = "| 関数 | 説明 |\n| --- | --- |"
    table = header + "".join(f"\n| TEE_F{n} | 説明その{n} |" for n in range(30))
    pieces = split_table(table, 150)
    assert len(pieces) > 2
    assert all(p.startswith(header + "\n|") and len(p) <= 150 for p in pieces)
    rows = [line for p in pieces for line in p.split("\n")[2:]]
    assert rows == table.split("\n")[2:]


def test_headings_paragraphs_and_sections() -> None:
    doc = ParsedDocument(
        blocks=(
            Block("1. 概要", kind="heading", page=1, section="1. 概要"),
            Block("TEE_Mallocはメモリを確保する。", page=1, section="1. 概要"),
            Block("2. 解放", kind="heading", page=1, section="2. 解放"),
            Block("TEE_Freeはメモリを解放する。", page=1, section="2. 解放"),
            Block("| 関数 | 説明 |\n| --- | --- |\n| TEE_Free | 解放 |", kind="table", page=2, section="2. 解放"),
        ),
        total_pages=2,
        date="2024-01-15",
    )
    chunks = _chunks(doc)
    assert [(c.chunk_type, c.section, c.page) for c in chunks] == [
        ("text", "1. 概要", 1),
        ("text", "2. 解放", 1),
        ("table", "2. 解放", 2),
    ]
    first = chunks[0]
    assert first.text == "1. 概要\n\nTEE_Mallocはメモリを確保する。"
    assert first.chunk_index == 0 and [c.chunk_index for c in chunks] == [0, 1, 2]
    assert first.total_pages == 2 and first.date == "2024-01-15" and first.language == "ja"
    assert first.rel_path == "docs/spec.pdf" and first.doc_type == "general" and first.source == "spec.pdf"
    assert re.fullmatch(r"[0-9a-f]{64}", first.content_hash)
    assert re.fullmatch(r"[0-9a-f]{32}", first.chunk_id)
    assert first.extra == {"api_functions": "TEE_Malloc", "api_functions_count": 1}
    assert chunks[2].extra == {"api_functions": "TEE_Free", "api_functions_count": 1}


def test_heading_without_body_is_not_a_chunk() -> None:
    doc = ParsedDocument(
        blocks=(
            Block("付録 A 関数一覧", kind="heading", page=1, section="付録 A 関数一覧"),
            Block(
                "| 関数 | 説明 |\n| --- | --- |\n| TEE_Free | 解放 |", kind="table", page=1, section="付録 A 関数一覧"
            ),
        )
    )
    assert [c.chunk_type for c in _chunks(doc)] == ["table"]


def test_chunk_ids_stable_and_position_dependent() -> None:
    doc = ParsedDocument(blocks=tuple(Block(s, page=1) for s in JA_SENTENCES))
    first, second = _chunks(doc), _chunks(doc)
    assert [c.chunk_id for c in first] == [c.chunk_id for c in second]
    assert len({c.chunk_id for c in first}) == len(first)
    other = chunk_document(doc, source="other.pdf", rel_path="other.pdf", doc_type="general", settings=SETTINGS)
    assert not {c.chunk_id for c in first} & {c.chunk_id for c in other}


def test_a_chunk_is_embedded_under_its_document_s_title_and_its_heading() -> None:
    """A slide of a survey deck never names the survey; its vector is made under the deck's title and the slide's
    heading, so a question that names the survey finds the slide that answers."""
    blocks = (
        Block("Company profile", kind="heading", page=5, section="Company profile"),
        Block("Is your company publicly listed? Yes 45.9%, No 54.1%.", page=5, section="Company profile"),
    )
    [chunk] = _chunks(ParsedDocument(blocks=blocks, title="OpenChain industry survey 2023"))

    assert embedded_text(chunk) == "OpenChain industry survey 2023\nCompany profile\n" + chunk.text
    assert chunk.text.startswith("Company profile")  # what is stored, quoted and searched by words is the page's own

    [untitled] = _chunks(ParsedDocument(blocks=blocks))
    assert embedded_text(untitled) == "Company profile\n" + untitled.text


def test_a_title_without_a_letter_and_an_ocr_guess_at_a_heading_are_not_embedded() -> None:
    """A PDF's title property may be an archive number; the heading of a page read by OCR is a guess from the
    picture's largest letters ("J ore LM TAAL!"): neither says what the passage is about."""
    scanned = {OCR: True}
    blocks = (
        Block("J ore LM TAAL!", kind="heading", page=2, section="J ore LM TAAL!", metadata=scanned),
        Block("Signed by me this 1st day of November, A. D. 1879.", page=2, section="J ore LM TAAL!",
              metadata=scanned),
    )  # fmt: skip
    [chunk] = _chunks(ParsedDocument(blocks=blocks, title="1499085913496939777-00223898"))

    assert embedded_text(chunk) == chunk.text


def test_a_chunk_s_id_changes_with_the_title_it_is_embedded_under() -> None:
    """A vector is reused for a chunk of the same id: a new title must give new ids, or the old title's vectors
    stay."""
    blocks = tuple(Block(s, page=1) for s in JA_SENTENCES[:3])
    before = _chunks(ParsedDocument(blocks=blocks, title="社内OSS利用ガイドライン"))
    again = _chunks(ParsedDocument(blocks=blocks, title="社内OSS利用ガイドライン"))
    renamed = _chunks(ParsedDocument(blocks=blocks, title="外部委託開発の手引き"))

    assert [c.chunk_id for c in again] == [c.chunk_id for c in before]
    assert [c.text for c in renamed] == [c.text for c in before]
    assert not {c.chunk_id for c in renamed} & {c.chunk_id for c in before}


def test_duplicates_stored_once_and_short_chunks_dropped() -> None:
    table = "| a | b |\n| --- | --- |\n| 1 | 2 |"
    doc = ParsedDocument(
        blocks=(
            Block(table, kind="table", page=1),
            Block("短い", page=2),
            Block(table, kind="table", page=3),
            Block("| a  | b |\n| --- | --- |\n| 1 |  2 |", kind="table", page=4),
        )
    )
    chunks = _chunks(doc)
    assert [(c.page, c.chunk_type) for c in chunks] == [(1, "table")]


def test_doc_type_chunk_size() -> None:
    settings = replace(SETTINGS, chunk_size_by_doc_type={"chat": 80})
    doc = ParsedDocument(blocks=(Block("".join(JA_SENTENCES[:10])),))
    assert max(len(c.text) for c in _chunks(doc, settings, "chat")) <= 80
    assert max(len(c.text) for c in _chunks(doc, settings, "general")) > 80


def test_records_one_chunk_each_with_metadata() -> None:
    blocks = tuple(
        Block(
            f"レコード{n}の本文です。TEE_Open{n}を使う。",
            section=f"title {n}",
            metadata={"title": f"title {n}", "record_no": n},
        )
        for n in range(1, 4)
    )
    chunks = _chunks(ParsedDocument(blocks=blocks))
    assert [c.chunk_type for c in chunks] == ["record"] * 3
    expected = {"title": "title 2", "record_no": 2, "api_functions": "TEE_Open2", "api_functions_count": 1}
    assert chunks[1].extra == expected
    assert chunks[1].metadata()["title"] == "title 2" and chunks[1].page is None


def test_long_record_is_split() -> None:
    block = Block("".join(JA_SENTENCES), metadata={"record_no": 1})
    chunks = _chunks(ParsedDocument(blocks=(block,)))
    assert len(chunks) > 1 and all(c.chunk_type == "record" and len(c.text) <= 200 for c in chunks)


def test_a_chunk_starting_inside_a_list_keeps_the_sentence_that_introduces_it() -> None:
    """'(2) to authorize … against an individual user' means the opposite without 'Nothing in this division may be
    construed—', which the chunk before it took."""
    items = [
        f"({n}) to authorize the Attorney General to pursue enforcement number {n} of this section;" for n in (1, 2, 3)
    ]
    text = "\n".join(["(f) RULE OF CONSTRUCTION.—Nothing in this division may be construed—", *items])
    after = "(g) DEFINITIONS.—The term covered company means an entity that operates a website or an application."
    later = "(4) an item of a list whose introduction is not known, after a paragraph ended the list above."
    doc = ParsedDocument(blocks=(Block(text, page=1), Block(after, page=2), Block(later, page=3)))
    chunks = _chunks(doc, replace(SETTINGS, chunk_size=120, chunk_overlap=0))
    starting_inside = [c for c in chunks if c.text.startswith(("(2)", "(3)"))]
    assert starting_inside, [c.text for c in chunks]
    assert all(c.extra["list_lead_in"].endswith("may be construed—") for c in starting_inside)
    assert "list_lead_in" not in chunks[0].extra  # it holds the sentence itself
    assert [c.text[:3] for c in chunks if c.page == 3] == ["(4)"]
    assert all("list_lead_in" not in c.extra for c in chunks if c.page in (2, 3))  # a paragraph ended the list
