"""Hybrid search: per-stage scores, weights, filters, entities, dedup, context, reranker, evaluation, CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rag.errors import EmptyIndexError
from rag.records import SearchFilters
from rag.service import RagService

REPO = Path(__file__).resolve().parents[2]

API = """# TEE Internal Core API

## TEE_Malloc
TEE_Malloc allocates a zero-filled block of memory from the trusted application heap and returns a pointer.

## Memory rules
Every block obtained from TEE_Malloc must be released with TEE_Free exactly once.

## Sessions
A client opens a session with TEEC_OpenSession and closes it with TEEC_CloseSession.

## Storage
Persistent objects are created with TEE_CreatePersistentObject and survive a device reboot.
"""

TRAVEL = """# Travel policy

## Booking
Employees book flights through the travel portal at least fourteen days before departure.

## Expenses
Hotel costs above the city limit need written approval from the department head.
"""


@pytest.fixture(scope="module")
def indexed(tmp_path_factory, models_dir, minilm_embedder):
    from rag.settings import Settings

    root = tmp_path_factory.mktemp("retrieval")
    docs = root / "docs"
    docs.mkdir()
    (docs / "tee_api_spec.md").write_text(API)
    (docs / "travel_manual.md").write_text(TRAVEL)
    (docs / "travel_copy.md").write_text(TRAVEL)  # the same text in another file: collapses into one hit
    settings = Settings(storage_dir=root / "storage", model_dir=models_dir, embedding_model="all-MiniLM-L6-v2-offline")
    service = RagService(settings, embedder=minilm_embedder)
    service.index_paths([docs])
    return service


def test_hybrid_hits_carry_every_stage(indexed: RagService) -> None:
    hits = indexed.search("how many times must an obtained block be released", top_k=3)
    assert hits and [h.scores.final_rank for h in hits] == [1, 2, 3][: len(hits)]
    top = hits[0]
    assert "TEE_Free" in top.chunk.text
    assert top.scores.dense_rank is not None and top.scores.dense_score is not None
    assert top.scores.rrf_score is not None and top.scores.rerank_score is None
    assert any(h.scores.bm25_rank is not None for h in hits)
    assert "releas" in top.matched_terms and "block" in top.matched_terms


def test_weight_zero_is_bm25_only_and_one_is_dense_only(indexed: RagService) -> None:
    keyword_only = indexed.search("hotel approval", top_k=2, semantic_weight=0.0)
    assert keyword_only and all(h.scores.dense_rank is None and h.scores.bm25_rank is not None for h in keyword_only)
    dense_only = indexed.search("hotel approval", top_k=2, semantic_weight=1.0)
    assert dense_only and all(h.scores.bm25_rank is None and h.scores.dense_rank is not None for h in dense_only)
    assert indexed.retriever.last_times.embed_ms > 0


def test_weight_zero_never_embeds_the_query(indexed: RagService, monkeypatch) -> None:
    def refuse(texts):
        raise AssertionError("the query was embedded with semantic_weight=0")

    monkeypatch.setattr(indexed.embedder, "embed_queries", refuse)
    assert indexed.search("TEE_Malloc", semantic_weight=0.0)


def test_source_filter_applies_to_both_retrievers(indexed: RagService) -> None:
    hits = indexed.search("memory", top_k=5, filters=SearchFilters(sources=("docs/travel_manual.md",)))
    assert hits and {h.chunk.source for h in hits} == {"docs/travel_manual.md"}
    assert indexed.search("memory", filters=SearchFilters(sources=("no/such.pdf",))) == []


def test_doc_type_language_date_and_entity_filters_keep_only_matching_chunks(tmp_path, models_dir, minilm_embedder):
    from rag.settings import Settings

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tee_api_spec.md").write_text(API)
    (docs / "travel_manual.md").write_text(TRAVEL)
    (docs / "メモ.md").write_text("# 会議メモ\n\nメモリの上限は64キロバイトとし、超えた場合は TEE_Free で解放する。\n")
    os.utime(docs / "travel_manual.md", (1_600_000_000, 1_600_000_000))  # 2020-09-13; the others are today
    storage = tmp_path / "storage"
    settings = Settings(storage_dir=storage, model_dir=models_dir, embedding_model="all-MiniLM-L6-v2-offline")
    service = RagService(settings, embedder=minilm_embedder)
    service.index_paths([docs])

    def sources(**filters) -> set[str]:  # type: ignore[no-untyped-def]
        return {h.chunk.source for h in service.search("memory", top_k=10, filters=SearchFilters(**filters))}

    assert sources() == {"docs/tee_api_spec.md", "docs/travel_manual.md", "docs/メモ.md"}
    assert sources(doc_types=("manual",)) == {"docs/travel_manual.md"}
    assert sources(languages=("ja",)) == {"docs/メモ.md"}
    assert sources(date_to="2021-01-01") == {"docs/travel_manual.md"}
    assert sources(date_from="2021-01-01") == {"docs/tee_api_spec.md", "docs/メモ.md"}
    assert sources(entities=(("api_functions", "TEE_Free"),)) == {"docs/tee_api_spec.md", "docs/メモ.md"}
    hits = service.search("memory", top_k=10, filters=SearchFilters(entities=(("api_functions", "TEE_Malloc"),)))
    assert hits and all("TEE_Malloc" in h.chunk.extra["api_functions"].split(",") for h in hits)


def test_a_narrow_filter_searched_by_chroma_gives_the_hits_of_the_over_fetch(indexed: RagService, monkeypatch) -> None:
    import rag.retrieval.hybrid

    tee_only = SearchFilters(sources=("docs/tee_api_spec.md",))
    over_fetched = indexed.search("release memory blocks", top_k=3, semantic_weight=1.0, filters=tee_only)
    monkeypatch.setattr(rag.retrieval.hybrid, "OVERFETCH_MAX", 0)  # every filter now counts as narrow: Chroma's where
    by_chroma = indexed.search("release memory blocks", top_k=3, semantic_weight=1.0, filters=tee_only)
    assert over_fetched and {h.chunk.source for h in over_fetched} == {"docs/tee_api_spec.md"}
    assert [h.chunk.chunk_id for h in by_chroma] == [h.chunk.chunk_id for h in over_fetched]


def test_entity_query_ranks_the_defining_chunk_first(indexed: RagService) -> None:
    hits = indexed.search("what does TEE_Malloc return?", top_k=3)
    assert hits[0].chunk.section == "TEE_Malloc"
    listed = [h for h in hits if "TEE_Malloc" in str(h.chunk.extra.get("api_functions", ""))]
    assert hits[: len(listed)] == listed  # every chunk that lists the entity precedes the ones that do not


def test_identical_passages_collapse_keeping_both_sources(indexed: RagService) -> None:
    hits = indexed.search("hotel costs approval department head", top_k=5)
    travel = [h for h in hits if "Hotel costs" in h.chunk.text]
    assert len(travel) == 1
    assert {travel[0].chunk.source, *travel[0].also_sources} == {"docs/travel_manual.md", "docs/travel_copy.md"}


def test_contextual_mode_attaches_neighbours(indexed: RagService) -> None:
    hit = indexed.search("TEE_Free exactly once", top_k=1, contextual=True)[0]
    assert "TEE_Malloc allocates" in hit.context_before
    assert "TEEC_OpenSession" in hit.context_after


def test_bad_arguments_and_empty_index(settings, minilm_embedder) -> None:
    service = RagService(settings, embedder=minilm_embedder)
    with pytest.raises(EmptyIndexError, match="Upload documents"):
        service.search("anything")
    with pytest.raises(ValueError, match="empty"):
        service.search("   ")
    with pytest.raises(ValueError, match="semantic_weight"):
        service.search("x", semantic_weight=1.5)


@pytest.fixture(scope="module")
def tiny_cross_encoder(tmp_path_factory, models_dir) -> Path:
    """A tiny BERT cross-encoder built here (random weights, MiniLM's tokenizer): no cross-encoder ships offline."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    from rag.models.embedding import MINILM_OFFLINE, _resolve

    minilm_path, _ = _resolve(MINILM_OFFLINE, models_dir)
    tokenizer = AutoTokenizer.from_pretrained(minilm_path)
    torch.manual_seed(0)
    config = BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=64, num_labels=1)  # fmt: skip
    folder = tmp_path_factory.mktemp("cross-encoder")
    BertForSequenceClassification(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def test_cross_encoder_reranks_with_thresholds(indexed: RagService, tiny_cross_encoder: Path) -> None:
    from dataclasses import replace

    from rag.retrieval.hybrid import HybridRetriever
    from rag.retrieval.reranker import CrossEncoderReranker

    reranker = CrossEncoderReranker(str(tiny_cross_encoder))
    loose = replace(indexed.settings, rerank_abs_threshold=-1e9, rerank_gap_threshold=1e9)
    retriever = HybridRetriever(indexed.index, loose, reranker=reranker)
    hits = retriever.search("memory rules", top_k=4)
    scores = [h.scores.rerank_score for h in hits]
    assert all(s is not None for s in scores) and scores == sorted(scores, reverse=True)
    assert [h.score for h in hits] == scores
    assert not retriever.search("memory rules", top_k=4, rerank=False)[0].scores.rerank_score

    strict = replace(indexed.settings, rerank_abs_threshold=max(scores) + 1.0)
    assert HybridRetriever(indexed.index, strict, reranker=reranker).search("memory rules") == []


def test_evaluate_beir_folder_and_golden_file(indexed: RagService, tmp_path: Path) -> None:
    beir = tmp_path / "mini"
    (beir / "qrels").mkdir(parents=True)
    corpus = [
        {"_id": "d1", "title": "Memory", "text": "TEE_Malloc allocates heap memory for trusted applications."},
        {"_id": "d2", "title": "Travel", "text": "Flights are booked fourteen days before departure."},
        {"_id": "d3", "title": "Hotels", "text": "Hotel costs above the limit need approval."},
    ]
    (beir / "corpus.jsonl").write_text("\n".join(json.dumps(d) for d in corpus))
    queries = [{"_id": "q1", "text": "allocate heap memory"}, {"_id": "q2", "text": "when to book a flight"}]
    (beir / "queries.jsonl").write_text("\n".join(json.dumps(q) for q in queries))
    (beir / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\n")
    result = indexed.evaluate(beir, modes=["hybrid", "bm25", "dense"])
    for mode in ("hybrid", "bm25", "dense"):
        metrics = result["modes"][mode]
        assert metrics["queries"] == 2 and metrics["ndcg@10"] == pytest.approx(1.0)
        assert set(metrics) >= {"recall@5", "recall@10", "recall@100", "precision@5", "precision@10", "mrr@10",
                                "latency_ms_p50", "latency_ms_p95"}  # fmt: skip
    again = indexed.evaluate(beir)  # cached corpus index: nothing re-embedded, same figures
    assert again["modes"]["hybrid"]["ndcg@10"] == pytest.approx(1.0)
    first = indexed.evaluate(beir, limit=1)["modes"]["hybrid"]  # averaged over the one query run, not both judged
    assert first["queries"] == 1 and first["ndcg@10"] == pytest.approx(1.0)

    golden = tmp_path / "golden.jsonl"
    rows = [
        {"question": "hotel approval", "expected_sources": ["docs/travel_manual.md"]},
        {"question": "TEEC_OpenSession", "expected_sources": ["docs/tee_api_spec.md"]},
    ]
    golden.write_text("\n".join(json.dumps(row) for row in rows))
    gold = indexed.evaluate(golden)["modes"]["hybrid"]
    assert gold["queries"] == 2 and gold["recall@5"] == pytest.approx(1.0)


def test_cli_search_json_contract(indexed: RagService) -> None:
    env = {
        **os.environ,
        "RAG_STORAGE_DIR": str(indexed.settings.storage),
        "RAG_MODEL_DIR": str(indexed.settings.models),
        "RAG_EMBEDDING_MODEL": indexed.settings.embedding_model,
    }
    command = ["search", "TEE_Free", "--top-k", "2", "--source", "docs/tee_api_spec.md", "--json"]
    result = subprocess.run([sys.executable, "-m", "rag", *command], env=env, cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    hits = json.loads(result.stdout)["hits"]
    assert 1 <= len(hits) <= 2
    assert set(hits[0]) >= {"chunk_id", "source", "page", "text", "score", "scores", "ranks"}
    assert set(hits[0]["scores"]) == {"dense", "bm25", "rrf", "rerank"} and hits[0]["scores"]["rerank"] is None
    assert set(hits[0]["ranks"]) == {"dense", "bm25", "final"} and hits[0]["ranks"]["final"] == 1
    assert all(h["source"] == "docs/tee_api_spec.md" for h in hits)


def _cli(indexed: RagService, *command: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {
        **os.environ,
        "RAG_STORAGE_DIR": str(indexed.settings.storage),
        "RAG_MODEL_DIR": str(indexed.settings.models),
        "RAG_EMBEDDING_MODEL": indexed.settings.embedding_model,
        **env,
    }
    return subprocess.run(
        [sys.executable, "-m", "rag", *command], env=environment, cwd=REPO, capture_output=True, text=True
    )


def test_cli_ask_json_shows_the_evidence_and_exits_3_when_the_llm_is_down(indexed: RagService) -> None:
    question = "How far ahead must flights be booked?"
    result = _cli(indexed, "ask", question, "--json", RAG_LLM_BACKEND="extractive")
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert {"answer", "citations", "no_basis", "evidence", "claims", "query", "model_answer", "llm_error"} <= set(
        answer
    )
    assert "fourteen days" in answer["evidence"][0]["sentence"]

    down = _cli(indexed, "ask", question, "--json", RAG_LLM_BACKEND="ollama", RAG_OLLAMA_HOST="http://127.0.0.1:9")
    assert down.returncode == 3, down.stderr
    failed = json.loads(down.stdout)
    assert failed["llm_error"] and failed["citations"] and failed["answer"] == ""


def test_cli_evaluate_answers_json_contract(indexed: RagService, tmp_path: Path) -> None:
    golden = tmp_path / "golden.jsonl"
    rows = [
        {"id": "book", "question": "How far ahead must flights be booked?", "answer_contains": ["fourteen days"]},
        {"id": "none", "question": "What is the parental leave policy?", "no_answer": True},
    ]
    golden.write_text("\n".join(json.dumps(row) for row in rows))
    result = _cli(indexed, "evaluate", str(golden), "--answers", "--json", RAG_LLM_BACKEND="extractive")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert {"accuracy", "no_answer_accuracy", "supported_sentence_share", "citation_validity"} <= set(report["summary"])
    assert {"seconds_p50", "seconds_p95"} <= set(report["summary"])
    first = report["per_query"][0]
    keys = {"id", "question", "answer", "no_basis", "citations", "unsupported_sentences", "seconds"}
    assert keys <= set(first) and first["id"] == "book" and first["correct"]
    assert set(first["citations"][0]) == {"source", "page", "quote"}
    assert report["summary"]["citation_validity"] == 1.0
