"""Knowledge bases: several indexes under one storage, each with its own settings, searched alone or together.

Real Chroma, real BM25, the real MiniLM model; the Ollama embedding engine through the loopback Ollama-API server.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from rag.errors import BaseNameError, BaseNotFoundError, KnowledgeBaseError, ModelMismatchError, ModelUnavailableError
from rag.records import DEFAULT_BASE
from rag.service import RagService
from rag.settings import Settings
from tests.ollama_api_server import LLMTestServer

ORION = """# Orion router manual

The Orion router restarts itself when the firmware update finishes. Hold the reset button for ten seconds
to restore the factory settings. The status lamp blinks amber while the firmware update runs.
"""
LYRA = """# Lyra espresso machine

Descale the Lyra espresso machine every two months with citric acid. The boiler heats to 93 degrees and the
pump builds nine bars of pressure. Empty the drip tray after every ten cups.
"""
LONG = " ".join(f"Sentence number {i} describes the quarterly inventory of warehouse {i % 7}." for i in range(60))


@pytest.fixture
def service(settings: Settings, minilm_embedder) -> RagService:  # type: ignore[no-untyped-def]
    return RagService(replace(settings, llm_backend="extractive"), embedder=minilm_embedder)


def _file(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_bases_are_created_listed_renamed_and_deleted_with_a_line_in_the_history(service: RagService) -> None:
    assert [b.name for b in service.knowledge_bases()] == [DEFAULT_BASE]
    created = service.create_base("製品-manuals_2", {"chunk_size": 300, "chunk_overlap": 30})
    assert created.overrides == {"chunk_size": 300, "chunk_overlap": 30}
    assert Path(created.storage) == service.settings.storage / "bases" / "製品-manuals_2"
    assert [b.name for b in service.knowledge_bases()] == [DEFAULT_BASE, "製品-manuals_2"]
    assert service.base_names() == [DEFAULT_BASE, "製品-manuals_2"]

    renamed = service.rename_base("製品-manuals_2", "manuals")
    assert renamed.overrides["chunk_size"] == 300
    assert not (service.settings.storage / "bases" / "製品-manuals_2").exists()
    service.delete_base("manuals", confirmed_by="by typing its name")
    assert [b.name for b in service.knowledge_bases()] == [DEFAULT_BASE]
    assert not (service.settings.storage / "bases" / "manuals").exists()

    lines = [(h.action, h.detail) for h in service.version_history()][::-1]
    assert lines[0] == ("create base", "製品-manuals_2 (chunk_size=300, chunk_overlap=30)")
    assert lines[1] == ("rename base", "製品-manuals_2 -> manuals")
    assert lines[2] == ("delete base", "manuals (confirmed by typing its name)")


@pytest.mark.parametrize("name", ["", "  ", "a/b", "..", "../up", "two words", "x" * 65, "dot.name", "back\\slash"])
def test_names_a_base_cannot_have_are_refused_saying_what_is_allowed(service: RagService, name: str) -> None:
    with pytest.raises(BaseNameError, match="allowed: letters") as caught:
        service.create_base(name)
    assert isinstance(caught.value, ValueError)
    assert not (service.settings.storage / "bases").exists() or not any((service.settings.storage / "bases").iterdir())


def test_default_cannot_be_renamed_or_deleted_and_names_do_not_collide(service: RagService) -> None:
    service.create_base("team")
    with pytest.raises(KnowledgeBaseError, match="cannot be renamed"):
        service.rename_base(DEFAULT_BASE, "other")
    with pytest.raises(KnowledgeBaseError, match="cannot be deleted"):
        service.delete_base(DEFAULT_BASE)
    with pytest.raises(KnowledgeBaseError, match="already exists"):
        service.create_base("team")
    with pytest.raises(KnowledgeBaseError, match="already exists"):
        service.create_base(DEFAULT_BASE)
    with pytest.raises(BaseNotFoundError, match="there are: default, team"):
        service.base("nope")
    with pytest.raises(KnowledgeBaseError, match="cannot set"):
        service.create_base("other", {"llm_backend": "ollama"})
    with pytest.raises(KnowledgeBaseError, match="chunk_overlap must be smaller"):
        service.create_base("other", {"chunk_size": 100, "chunk_overlap": 200})


def test_a_base_chunks_with_its_own_chunk_size(service: RagService, tmp_path: Path) -> None:
    report = _file(tmp_path / "docs", "inventory.md", LONG)
    service.create_base("small", {"chunk_size": 300, "chunk_overlap": 30})
    service.index_paths([report])
    service.base("small").index_paths([report])
    default_chunks = service.chunks_of("inventory.md")
    small_chunks = service.base("small").chunks_of("inventory.md")
    assert len(small_chunks) > 2 * len(default_chunks)
    assert max(len(c.text) for c in small_chunks) <= 300 < max(len(c.text) for c in default_chunks)


def test_two_bases_searched_together_name_the_base_of_every_hit_and_citation(
    service: RagService, tmp_path: Path
) -> None:
    service.create_base("coffee")
    service.index_paths([_file(tmp_path / "a", "orion.md", ORION)])
    service.base("coffee").index_paths([_file(tmp_path / "b", "lyra.md", LYRA)])

    router_only = service.search("How do I restore the factory settings of the router?", top_k=1)
    assert router_only[0].chunk.source == "orion.md" and router_only[0].base == DEFAULT_BASE
    coffee_only = service.search("factory settings", bases=["coffee"])
    assert {h.base for h in coffee_only} == {"coffee"} and {h.chunk.source for h in coffee_only} == {"lyra.md"}

    both = service.search("How often should the espresso machine be descaled?", bases=["default", "coffee"])
    assert both[0].chunk.source == "lyra.md" and both[0].base == "coffee"
    assert [h.scores.final_rank for h in both] == list(range(1, len(both) + 1))
    both = service.search("What does the amber status lamp of the router mean?", bases=["coffee", "default"])
    assert both[0].chunk.source == "orion.md" and both[0].base == DEFAULT_BASE

    answer = service.ask("How many bars of pressure does the pump build?", bases=["default", "coffee"])
    home = {"lyra.md": "coffee", "orion.md": DEFAULT_BASE}
    assert answer.citations[0].base == "coffee" and "nine bars" in answer.citations[0].quote
    assert all(c.base == home[c.source] for c in answer.citations)
    assert answer.evidence and all(e.base == home[e.source] for e in answer.evidence)


def test_storage_from_before_bases_opens_as_default_unchanged(
    settings: Settings, minilm_embedder, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    old = RagService(settings, embedder=minilm_embedder)
    old.index_paths([_file(tmp_path / "docs", "orion.md", ORION)])
    before = sorted(p.relative_to(settings.storage) for p in settings.storage.iterdir())

    reopened = RagService(settings, embedder=minilm_embedder)
    [default] = reopened.knowledge_bases()
    assert (default.name, default.sources, Path(default.storage)) == (DEFAULT_BASE, 1, settings.storage)
    assert reopened.base(DEFAULT_BASE) is reopened
    assert reopened.search("factory settings", bases=[DEFAULT_BASE])[0].chunk.source == "orion.md"
    after = sorted(p.relative_to(settings.storage) for p in settings.storage.iterdir())
    monitoring = {"monitoring.sqlite3", "monitoring.sqlite3-wal", "monitoring.sqlite3-shm"}  # the search's own log
    assert set(before) <= set(after) and {p.name for p in set(after) - set(before)} <= monitoring


def test_a_deleted_base_can_be_created_again_empty(service: RagService, tmp_path: Path) -> None:
    service.create_base("team")
    service.base("team").index_paths([_file(tmp_path / "docs", "orion.md", ORION)])
    assert service.base("team").stats().chunks > 0
    service.delete_base("team", confirmed_by="with --yes")
    service.create_base("team")
    assert service.base("team").stats().chunks == 0
    service.base("team").index_paths([_file(tmp_path / "docs", "lyra.md", LYRA)])
    assert [h.chunk.source for h in service.search("espresso", bases=["team"])] == ["lyra.md"]


def test_a_base_embeds_through_ollama_and_refuses_another_model(service: RagService, tmp_path: Path) -> None:
    with LLMTestServer(models=["bge-m3", "nomic-embed-text"]) as server:
        root = RagService(replace(service.settings, ollama_host=server.host), embedder=service.embedder)
        created = root.create_base("bot", {"embedding_model": "ollama:bge-m3"})
        assert created.embedding_model == "ollama:bge-m3"
        bot = root.base("bot")
        bot.index_paths([_file(tmp_path / "a", "orion.md", ORION), _file(tmp_path / "b", "lyra.md", LYRA)])
        assert bot.stats().embedding_model == "ollama:bge-m3"
        assert server.requests_to("/api/embed")[-1].body["model"] == "bge-m3"
        hits = root.search("descale the espresso machine", bases=["bot"], semantic_weight=1.0)
        assert hits[0].chunk.source == "lyra.md" and hits[0].base == "bot"

        # the same base later configured with another Ollama model must not mix the two models' vectors
        base_file = Path(created.storage) / "base.json"
        data = json.loads(base_file.read_text(encoding="utf-8"))
        data["settings"]["embedding_model"] = "ollama:nomic-embed-text"
        base_file.write_text(json.dumps(data), encoding="utf-8")
        again = RagService(root.settings, embedder=service.embedder).base("bot")
        with pytest.raises(ModelMismatchError, match="ollama:bge-m3"):
            again.index_paths([_file(tmp_path / "c", "more.md", LONG)])
        with pytest.raises(ModelMismatchError, match="ollama:bge-m3"):  # nor search with the other model's vectors
            again.search("espresso", semantic_weight=1.0)
        data["settings"]["embedding_model"] = "ollama:bge-m3"
        base_file.write_text(json.dumps(data), encoding="utf-8")
        host = server.host
    down = RagService(replace(root.settings, ollama_host=host), embedder=service.embedder).base("bot")
    with pytest.raises(ModelUnavailableError, match=rf"not reachable at {host}.*bge-m3.*ollama serve"):
        down.search("espresso", semantic_weight=1.0)


def test_an_ollama_model_that_is_not_pulled_says_to_pull_it(service: RagService, tmp_path: Path) -> None:
    with LLMTestServer(models=["qwen2.5:7b-instruct"]) as server:
        root = RagService(replace(service.settings, ollama_host=server.host), embedder=service.embedder)
        root.create_base("bot", {"embedding_model": "ollama:bge-m3"})
        with pytest.raises(ModelUnavailableError, match=r"no model 'bge-m3': run `ollama pull bge-m3`"):
            root.base("bot").index_paths([_file(tmp_path / "a", "orion.md", ORION)])
    assert root.base("bot").stats().chunks == 0
