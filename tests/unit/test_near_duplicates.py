"""Near-duplicate passages are stored once, in reading order; the inverted-file look-up used for big documents
keeps exactly what comparing every pair keeps. Real embeddings from the packaged MiniLM model."""

from __future__ import annotations

import numpy as np
import pytest

import rag.index.near_duplicates as near_duplicates
from rag.index.near_duplicates import drop_near_duplicates
from rag.records import Chunk

THRESHOLD = 0.95
DEVICES = ["pump", "valve", "sensor", "relay", "heater", "fan", "motor", "filter", "boiler", "compressor"]
ACTIONS = ["is inspected", "must be replaced", "reports an alarm", "is calibrated", "is switched off"]


def chunks_of(texts: list[str], types: list[str] | None = None) -> list[Chunk]:
    kinds = types or ["text"] * len(texts)
    return [Chunk(chunk_id=f"c{i}", text=t, source="manual.md", page=1, chunk_index=i, chunk_type=k)  # type: ignore[arg-type]
            for i, (t, k) in enumerate(zip(texts, kinds))]  # fmt: skip


def all_pairs_oracle(chunks: list[Chunk], vectors: dict[str, np.ndarray]) -> list[str]:
    """The rule stated plainly: a text chunk goes when any earlier kept text chunk is that similar."""
    kept: list[Chunk] = []
    for chunk in chunks:
        if chunk.chunk_type == "text" and any(
            k.chunk_type == "text" and float(vectors[k.chunk_id] @ vectors[chunk.chunk_id]) >= THRESHOLD for k in kept
        ):
            continue
        kept.append(chunk)
    return [c.chunk_id for c in kept]


def test_repeats_and_near_repeats_go_tables_stay(minilm_embedder) -> None:
    texts = [
        "The pump must be inspected every month by the maintenance team.",
        "Quarterly reports are due on the fifth working day of each quarter.",
        "The pump must be inspected every month by the maintenance team.",  # repeated
        "The pump must be inspected every month by the maintenance team!",  # near-identical
        "| part | price |\n| pump | 120 |",
        "| part | price |\n| pump | 120 |",  # a table row repeated: tables are never dropped
    ]
    chunks = chunks_of(texts, ["text", "text", "text", "text", "table", "table"])
    vectors = dict(zip([c.chunk_id for c in chunks], minilm_embedder.embed_passages(texts)))

    kept, tokens, dropped = drop_near_duplicates(chunks, [[t] for t in texts], vectors, THRESHOLD)

    assert [c.chunk_id for c in kept] == ["c0", "c1", "c4", "c5"] and dropped == 2
    assert tokens == tuple((c.text,) for c in kept)


@pytest.mark.parametrize("exact_limit", [10_000, 40], ids=["all pairs", "inverted file"])
def test_big_documents_keep_what_comparing_every_pair_keeps(minilm_embedder, monkeypatch, exact_limit: int) -> None:
    rng = np.random.default_rng(3)
    texts = [f"The {d} {a} after {n} hours of operation." for d in DEVICES for a in ACTIONS for n in (2, 40)]
    texts += [texts[i].replace("operation.", "operation") for i in rng.choice(len(texts), 40, replace=False)]
    texts += [texts[i] for i in rng.choice(len(texts), 20, replace=False)]
    order = rng.permutation(len(texts))
    chunks = chunks_of([texts[i] for i in order])
    vectors = dict(zip([c.chunk_id for c in chunks], minilm_embedder.embed_passages([c.text for c in chunks])))
    monkeypatch.setattr(near_duplicates, "EXACT_LIMIT", exact_limit)  # 160 chunks: the look-up used above the limit

    kept, _, dropped = drop_near_duplicates(chunks, [[] for _ in chunks], vectors, THRESHOLD)

    expected = all_pairs_oracle(chunks, vectors)
    assert [c.chunk_id for c in kept] == expected
    assert dropped == len(chunks) - len(expected) >= 20
