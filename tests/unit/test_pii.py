"""Optional PII masking: with ``mask_pii`` on, what search, answers and quotes show is masked, and no store holds the
raw values; off (the default), the text is kept as written."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import chromadb
import pytest

from rag.ingest.pii import mask_pii
from rag.service import RagService
from tests.scripted_llm import ScriptedLLM

RAW = [
    "taro.yamada@example.co.jp",
    "090-1234-5678",
    "03-1234-5678",
    "〒100-0001",
    "4111 1111 1111 1111",
    "123456789018",
]
DOC = (
    "# 連絡先\n"
    "担当の山田太郎への連絡はメール taro.yamada@example.co.jp または携帯 090-1234-5678 へ。\n"
    "代表電話は 03-1234-5678、所在地は 〒100-0001 東京都千代田区です。\n"
    "The refund goes to card 4111 1111 1111 1111. My Number on file: 123456789018.\n"
)


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("mail taro.yamada@example.co.jp now", "mail [EMAIL] now"),
        ("携帯 090-1234-5678 まで", "携帯 [PHONE] まで"),
        ("携帯 09012345678 まで", "携帯 [PHONE] まで"),
        ("代表 03-1234-5678", "代表 [PHONE]"),
        ("call +81 90 1234 5678", "call [PHONE]"),
        ("〒100-0001 東京都", "[POSTAL] 東京都"),
        ("card 4111-1111-1111-1111.", "card [CARD]."),
        ("マイナンバー 1234 5678 9018", "マイナンバー [MY_NUMBER]"),
    ],
)
def test_personal_data_is_masked(text: str, masked: str) -> None:
    assert mask_pii(text) == masked


@pytest.mark.parametrize(
    "kept",
    [
        "serial 1234 5678 9012 3456",  # 16 digits that fail the card check
        "order 123456789012",  # 12 digits that fail the My Number check
        "released on 2024-01-15, version 0.12.6",
        "TEEC_OpenSession returns 0xFFFF0006",
    ],
)
def test_numbers_that_are_not_personal_data_stay(kept: str) -> None:
    assert mask_pii(kept) == kept


@pytest.mark.parametrize("masking", [True, False], ids=["mask_pii on", "off (default)"])
def test_what_is_stored_searched_and_quoted(settings, minilm_embedder, tmp_path: Path, masking: bool) -> None:
    doc = tmp_path / "contacts.md"
    doc.write_text(DOC, encoding="utf-8")
    service = RagService(
        replace(settings, mask_pii=masking), embedder=minilm_embedder, llm=ScriptedLLM(name="extractive")
    )
    service.index_paths([doc])

    stored = " ".join(c.text for c in service.chunks_of("contacts.md"))
    chroma = chromadb.PersistentClient(str(settings.storage / "chroma")).get_collection(settings.collection)
    in_chroma = " ".join(chroma.get(include=["documents"])["documents"])
    hits = service.search("taro.yamada@example.co.jp 090-1234-5678 連絡")
    answer = service.ask("山田太郎への連絡先は?")
    shown = " ".join([h.chunk.text for h in hits] + [c.quote for c in answer.citations] + [answer.answer])

    for raw in RAW:
        assert (raw in stored, raw in in_chroma) == (not masking, not masking), raw
        assert raw not in shown or not masking, raw
    assert ("[EMAIL]" in stored and "[PHONE]" in shown) == masking
    assert hits and hits[0].chunk.source == "contacts.md"
