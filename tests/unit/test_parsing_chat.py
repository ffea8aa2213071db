"""Chat logs and nested JSON without configuration: turns kept whole as "speaker: text", with who and when."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from rag.ingest.chunking import chunk_document
from rag.ingest.parsing import parse_file
from rag.records import Chunk
from rag.settings import Settings

SETTINGS = Settings()
REALDOCS = Path(__file__).resolve().parents[3] / "shared" / "realdocs" / "docs"


def _chunks(path: Path, settings: Settings = SETTINGS) -> list[Chunk]:
    doc = parse_file(path, settings)
    return chunk_document(doc, source=path.name, rel_path=path.name, doc_type="chat", settings=settings)


def _turns(n: int) -> list[dict[str, str]]:
    speakers = ("AB", "AA")
    return [
        {"interlocutor_id": speakers[i % 2], "text": f"発言{i}です。イギリスに駐在していた頃の話をします。",
         "timestamp": f"2022-08-06T15:{17 + i // 60:02d}:{i % 60:02d}"}
        for i in range(n)
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("shape", "speaker_key", "text_key"),
    [("utterances", "interlocutor_id", "text"), ("messages", "role", "content"), ("turns", "speaker", "utterance")],
)
def test_chat_json_shapes_become_whole_turns(tmp_path: Path, shape: str, speaker_key: str, text_key: str) -> None:
    turns = [{speaker_key: t["interlocutor_id"], text_key: t["text"], "timestamp": t["timestamp"]} for t in _turns(40)]
    path = tmp_path / "dialogue.json"
    path.write_text(json.dumps({"dialogue_id": 4, shape: turns}, ensure_ascii=False), encoding="utf-8")
    chunks = _chunks(path, replace(SETTINGS, chunk_size=300))
    assert len(chunks) > 1 and {c.chunk_type for c in chunks} == {"chat"}
    lines = [line for c in chunks for line in c.text.split("\n")]
    assert lines == [f"{t[speaker_key]}: {t[text_key]}" for t in turns]  # every turn whole, in order, once
    first = chunks[0].extra
    assert first["dialogue_id"] == "4" and first["speakers"] == "AB,AA"
    assert first["first_timestamp"] == "2022-08-06T15:17:00"
    assert chunks[-1].extra["last_timestamp"] == turns[-1]["timestamp"]


def test_jsonl_of_turns_and_list_of_dialogues(tmp_path: Path) -> None:
    lines = tmp_path / "log.jsonl"
    lines.write_text("\n".join(json.dumps(t, ensure_ascii=False) for t in _turns(3)), encoding="utf-8")
    assert _chunks(lines)[0].text.split("\n")[0] == "AB: 発言0です。イギリスに駐在していた頃の話をします。"
    many = tmp_path / "dialogues.json"
    data = [{"dialogue_id": n, "utterances": [{**t, "text": f"{t['text']}({n})"} for t in _turns(2)]} for n in (1, 2)]
    many.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    assert [c.extra["dialogue_id"] for c in _chunks(many)] == ["1", "2"]  # a chunk never spans two dialogues


def test_explicit_text_fields_still_win(tmp_path: Path) -> None:
    path = tmp_path / "log.json"
    path.write_text(json.dumps(_turns(3), ensure_ascii=False), encoding="utf-8")
    chunks = _chunks(path, replace(SETTINGS, json_text_fields=("text",)))
    assert [c.chunk_type for c in chunks] == ["record"] * 3


def test_nested_persona_records_are_flattened(tmp_path: Path) -> None:
    path = tmp_path / "personas.jsonl"
    record = {"interlocutor_id": "AA", "persona": ["私は旅行が好きである。", "料理をふるまう。"],
              "personality": {"BigFive_Openness": 4.25}, "demographic_information": {"age": "20-24"}}  # fmt: skip
    path.write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
    chunks = _chunks(path)
    assert chunks[0].text == (
        "interlocutor_id: AA\npersona: 私は旅行が好きである。\npersona: 料理をふるまう。\n"
        "personality.BigFive_Openness: 4.25\ndemographic_information.age: 20-24"
    )


@pytest.mark.parametrize(
    "export",
    [
        "[LINE] 田中とのトーク履歴\n保存日時:2024/01/05 18:00\n\n2024/01/05(金)\n"
        "12:03\t田中\tイギリス駐在の件ですが\n来週決めます\n12:05\t佐藤\t了解です。\n12:07\t田中\tよろしく",
        "2024/01/05 12:03 田中: イギリス駐在の件ですが\n来週決めます\n2024/01/05 12:05 佐藤: 了解です。\n"
        "2024/01/05 12:07 田中: よろしく",
        "[05/01/2024, 12:03:10] 田中: イギリス駐在の件ですが\n来週決めます\n[05/01/2024, 12:05:00] 佐藤: 了解です。\n"
        "[05/01/2024, 12:07:00] 田中: よろしく",
    ],
)
def test_text_chat_exports_keep_turns_whole(tmp_path: Path, export: str) -> None:
    path = tmp_path / "chat.txt"
    path.write_text(export, encoding="utf-8")
    chat = [c for c in _chunks(path, replace(SETTINGS, chunk_size=30)) if c.chunk_type == "chat"]
    lines = [line for c in chat for line in c.text.split("\n")]
    assert lines == ["田中: イギリス駐在の件ですが", "来週決めます", "佐藤: 了解です。", "田中: よろしく"]
    assert chat[0].text.startswith("田中: イギリス駐在の件ですが\n来週決めます")  # a two-line turn stays together
    assert "12:03" in str(chat[0].extra["first_timestamp"]) and chat[0].extra["speakers"].startswith("田中")


def test_prose_with_a_colon_is_not_a_chat(tmp_path: Path) -> None:
    path = tmp_path / "memo.txt"
    path.write_text("会議は 10:00 から。\n\n議題: 予算\n\n結論は来週に持ち越し。\n", encoding="utf-8")
    assert {c.chunk_type for c in _chunks(path)} == {"text"}


@pytest.mark.skipif(not REALDOCS.exists(), reason="../shared/realdocs is not beside the checkout")
def test_real_chat_and_personas_are_read_without_settings() -> None:
    chat = _chunks(REALDOCS / "ja_chat_realpersonachat_00004.json")
    assert chat[0].chunk_type == "chat" and chat[0].extra["speakers"] == "AB,AA"
    assert chat[0].text.startswith("AB: どうもです!\nAA: よろしくお願いいたします。")  # NFKC: ！ -> !
    # the speakers' evaluations of the dialogue are read too, after its turns ("What satisfaction score …?")
    assert [c.chunk_type for c in chat][-1] == "text" and "evaluations satisfaction: 5" in chat[-1].text
    # and when it took place, which only the turns' timestamps say ("On what date was chat 00004 held?")
    assert chat[-1].text.endswith("会話の日時: 2022-08-06 15:17 – 15:25")
    assert chat[-1].extra["dialogue_id"] == "4" and all(c.chunk_type == "chat" for c in chat[:-1])
    personas = _chunks(REALDOCS / "ja_realpersonachat_interlocutors_sample.jsonl")
    assert len(personas) >= 20 and personas[0].text.startswith("interlocutor_id: AA\npersona: ")
