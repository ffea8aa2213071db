"""Document metadata: doc types from file names, entity fields, language, dates."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

import pytest

from rag.errors import ConfigError
from rag.ingest.metadata import classify_doc_type, detect_language, extract_entities, iso_date
from rag.settings import Settings

SETTINGS = Settings()


@pytest.mark.parametrize(
    ("rel_path", "expected"),
    [
        ("docs/TEE_Internal_SPEC_v1.2.pdf", "specification"),
        ("仕様書/暗号API仕様.docx", "specification"),
        ("User-Manual.PDF", "manual"),
        ("運用手順.md", "manual"),
        ("chat/export.jsonl", "records"),
        ("team/weekly_chat.jsonl", "chat"),  # first matching rule wins
        ("misc/report.txt", "general"),
        ("notes_dir/readme.txt", "general"),  # only the file name is matched
    ],
)
def test_classify_doc_type(rel_path: str, expected: str) -> None:
    assert classify_doc_type(rel_path, SETTINGS) == expected


def test_extract_entities_unique_in_order_and_stable_keys() -> None:
    text = "TEE_Malloc を呼び、TEE_Free で解放。再び TEE_Malloc。TEEC_OpenSession も使う。"
    assert extract_entities(text, SETTINGS) == {
        "api_functions": "TEE_Malloc,TEE_Free,TEEC_OpenSession",
        "api_functions_count": 3,
    }
    assert extract_entities("関数の記述なし", SETTINGS) == {"api_functions": "", "api_functions_count": 0}


def test_extract_entities_with_groups_and_bad_pattern() -> None:
    settings = replace(SETTINGS, entity_patterns={"versions": r"v(\d+)\.(\d+)"})
    assert extract_entities("v1.2 and v1.2 then v2.0", settings) == {"versions": "v1.2,v2.0", "versions_count": 2}
    with pytest.raises(ConfigError, match="not a valid regular expression"):
        extract_entities("x", replace(SETTINGS, entity_patterns={"bad": "("}))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("TEE_Mallocはメモリを確保する関数です。", "ja"),
        ("The trusted application allocates memory with TEE_Malloc.", "en"),
        ("The API TEE_Malloc (メモリ確保) returns NULL when the heap is exhausted in the TA.", "mixed"),
        ("Доверенная среда исполнения", "other"),
        ("12345 !!!", "other"),
    ],
)
def test_detect_language(text: str, expected: str) -> None:
    assert detect_language(text) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("D:20240115093000+09'00'", "2024-01-15"),
        ("D:2023", "2023-01-01"),
        ("2022-12-24T10:00:00Z", "2022-12-24"),
        ("2021年3月5日", "2021-03-05"),
        (datetime(2020, 2, 29, 23, 59), "2020-02-29"),
        ("D:20241345", ""),
        ("", ""),
        (None, ""),
    ],
)
def test_iso_date(value: object, expected: str) -> None:
    assert iso_date(value) == expected
