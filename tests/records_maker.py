"""A generated example library: annotated game positions as JSONL, half Japanese (shogi), half English (chess).

Each record has an ``id``, a ``lang``, a ``text`` holding the position's features (one ``name: value`` line each,
plus noise lines such as the move number) followed by ``【解説文】`` and the commentary, and the ``commentary``
alone. Shared by ``tests/unit/test_similar.py`` and ``bench/similar.py``; deterministic for a given seed.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

CUT_MARKER = "【解説文】"
KEEP_LINES = r"^(戦型|囲い|形勢|特徴|Opening|Structure|Balance|Feature):"
"""The feature lines; the move number and the clock lines are noise the library leaves out."""

_JA = {
    "戦型": ["四間飛車", "三間飛車", "中飛車", "向かい飛車", "相掛かり", "角換わり", "矢倉", "横歩取り", "雁木",
             "右四間飛車"],
    "囲い": ["美濃囲い", "高美濃", "銀冠", "穴熊", "舟囲い", "左美濃", "金無双", "elmo囲い"],
    "形勢": ["先手やや有利", "後手やや有利", "互角", "先手優勢", "後手優勢", "先手勝勢"],
    "特徴": ["角交換済み", "端攻めが急所", "桂跳ねの速攻", "玉頭戦", "飛車先の歩交換", "銀の進出", "歩の手筋",
             "と金攻め", "千日手模様", "入玉含み", "持ち駒に角", "大駒の捌き合い", "金銀の厚み", "垂れ歩"],
}  # fmt: skip
_EN = {
    "Opening": ["Sicilian Defence", "French Defence", "Caro-Kann", "Ruy Lopez", "Italian Game", "Queen's Gambit",
                "King's Indian", "Nimzo-Indian", "English Opening", "London System"],
    "Structure": ["isolated queen pawn", "hanging pawns", "Carlsbad structure", "Maroczy bind", "Stonewall",
                  "doubled c-pawns", "open e-file", "pawn chain on d4-e5"],
    "Balance": ["White slightly better", "Black slightly better", "equal", "White winning", "Black winning"],
    "Feature": ["bishop pair", "knight outpost on d5", "opposite-side castling", "minority attack", "passed pawn",
                "weak back rank", "queenside expansion", "kingside pawn storm", "exchange sacrifice",
                "rook on the seventh rank", "bad bishop", "space advantage", "fianchettoed bishop", "open h-file"],
}  # fmt: skip
_JA_COMMENT = ["{a}から{b}を狙うのが本筋。", "ここで{a}に対して{b}と応じるのが定跡。", "{a}を活かして{b}で押さえ込む。"]
_EN_COMMENT = ["The plan is {a}, then {b}.", "After {a}, the key idea is {b}.", "{a} decides; watch for {b}."]


def _features(rng: random.Random, table: dict[str, list[str]], feature_key: str) -> list[str]:
    lines = [f"{name}: {rng.choice(values)}" for name, values in table.items() if name != feature_key]
    lines += [f"{feature_key}: {value}" for value in rng.sample(table[feature_key], 3)]
    return lines


def make_record(n: int, rng: random.Random) -> dict[str, Any]:
    """Record ``n``: Japanese when ``n`` is even, English when odd."""
    japanese = n % 2 == 0
    features = _features(rng, _JA, "特徴") if japanese else _features(rng, _EN, "Feature")
    values = [line.split(": ", 1)[1] for line in features]
    template = rng.choice(_JA_COMMENT if japanese else _EN_COMMENT)
    commentary = template.format(a=values[-1], b=values[-2]) + (f" 第{n}譜。" if japanese else f" Game {n}.")
    noise = [f"手数: {rng.randint(20, 140)}", f"消費時間: {rng.randint(1, 59)}分"] if japanese else \
        [f"Move: {rng.randint(10, 70)}", f"Clock: {rng.randint(1, 59)} min"]  # fmt: skip
    text = "\n".join([noise[0], *features, noise[1], CUT_MARKER, commentary])
    return {"id": f"pos-{n:05d}", "lang": "ja" if japanese else "en", "text": text, "commentary": commentary}


def write_library(path: Path, count: int, seed: int = 7) -> list[dict[str, Any]]:
    """Write ``count`` records to ``path`` (JSONL) and return them."""
    rng = random.Random(seed)
    records = [make_record(n, rng) for n in range(count)]
    with path.open("w", encoding="utf-8") as out:
        for record in records:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    return records


def feature_lines(record: dict[str, Any]) -> list[str]:
    """The record's feature lines (what the library embeds), in order."""
    import re

    return [line for line in record["text"].split(CUT_MARKER)[0].split("\n") if re.search(KEEP_LINES, line)]


def library_env() -> dict[str, str]:
    """The settings that build a library from these records, as ``RAG_*`` variables."""
    return {"RAG_JSON_TEXT_FIELDS": "text", "RAG_JSON_METADATA_FIELDS": "id,lang",
            "RAG_JSON_SHOWN_FIELDS": "id,commentary", "RAG_JSON_CUT_MARKER": CUT_MARKER,
            "RAG_JSON_KEEP_LINES": KEEP_LINES, "RAG_JSON_MAX_CHARS": "400"}  # fmt: skip
