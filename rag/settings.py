"""One frozen ``Settings``, read once from the environment (``RAG_*``, ``OLLAMA_HOST``) or a TOML file.

Every default works offline on a fresh machine. ``RAG_CONFIG`` names an optional TOML file whose top-level
keys are the field names below (tables for the dict-valued fields); environment variables win over it.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from rag.errors import ConfigError
from rag.records import BACKEND_NAMES

DEFAULT_EMBEDDING_MODEL = "multilingual-e5-small-offline"
"""Marker for the offline multilingual-e5-small rebuilt from PyPI packages (see ``rag.models.e5_rebuild``)."""

BASIS_COSINE_FLOORS = {DEFAULT_EMBEDDING_MODEL: 0.80, "intfloat/multilingual-e5-small": 0.80}
"""Best cosine below which a question is off the documents' topics, per embedding model. multilingual-e5-small,
top-1 cosine of 600 questions each from SciFact and JSQuAD: with the relevant document indexed p1 0.843 / 0.830;
against the other set's corpus (off-topic) p99 0.801 / 0.826, median 0.776 / 0.773 (``bench/basis_floor.py``).
The lexical half of the rule (a shared term is a basis) keeps on-topic questions safe from the overlap."""

EMBEDDED_CONTEXT_TOKENS = 800
"""Default cap, in estimated tokens, on the passages an embedded (CPU) model reads before it answers: what the
3,000-character budget costs in English, so it bites where text costs more tokens per character (Japanese: ~1,000
characters). The 1.5B model reads ~90 tokens/s on two cores, so this is ~9 s before the first word."""
MIN_CONTEXT_TOKENS = 200
"""The least context an answer gets, however slowly the model reads (about one focused passage)."""
PROMPT_FRAME_TOKENS = 50
"""What an answer prompt costs besides its passages and its cached system prompt: the question and the framing."""

LLM_BACKENDS: tuple[str, ...] = ("auto", *BACKEND_NAMES)
"""What ``llm_backend`` may be: ``auto`` (the first that works, in ``BACKEND_NAMES`` order) or a backend's name."""
FUSIONS = ("convex", "rrf")
EMBEDDING_BACKENDS = ("torch", "onnx", "openvino")
"""What runs the embedding model: ``torch`` (sentence-transformers on PyTorch), ``onnx`` (ONNX Runtime over a model
converted offline by ``python -m rag.models.onnx_export``) or ``openvino`` (not installable beside this
transformers/torch: loading it says why)."""
EMBEDDING_PRECISIONS = ("fp32", "bf16", "int8")
"""Number format of the embedding model: ``fp32`` (as trained), ``bf16`` (torch only; fast only on CPUs with
AVX512_BF16/AMX) or ``int8`` (torch: dynamic quantization of the linear layers at load; onnx: dynamic int8 model
quantized offline with the configuration this CPU's flags call for)."""
EMBEDDING_QUANTIZATIONS = ("dynamic", "static")
"""How onnx int8 got its activation ranges: ``dynamic`` (measured per batch at run time) or ``static`` (calibrated
once when the model is built: ``python -m rag.models.onnx_export --precision int8 --quantization static``)."""


def _default_doc_type_rules() -> dict[str, str]:
    # file-name glob (case-insensitive) -> doc_type; first match wins, else "general"
    return {
        "*spec*": "specification",
        "*仕様*": "specification",
        "*manual*": "manual",
        "*マニュアル*": "manual",
        "*手順*": "manual",
        "*note*": "notes",
        "*メモ*": "notes",
        "*議事録*": "notes",
        "*minutes*": "notes",
        "*chat*": "chat",
        "*.jsonl": "records",
    }


def _default_entity_patterns() -> dict[str, str]:
    # metadata field -> regex; matches are stored comma-joined, with "<field>_count" beside them
    return {"api_functions": r"\b(?:TEEC?|TA)_[A-Za-z][A-Za-z0-9_]*"}


@dataclass(frozen=True, slots=True)
class Settings:
    """Engine configuration. All paths live under ``storage_dir`` unless absolute."""

    # Relative to the current folder (the ``storage`` property resolves it): the dashboard and the
    # command line run from the checkout use ./storage there; ``rag`` run from another folder uses ./storage of
    # that folder, so set RAG_STORAGE_DIR to an absolute path to reach one index from anywhere.
    storage_dir: Path = Path("storage")
    collection: str = "chunks"
    chroma_host: str = ""  # empty: embedded PersistentClient; else a `chroma run` server
    chroma_port: int = 8000
    chroma_url: str = ""  # http(s)://host:port of a `chroma run` server; wins over chroma_host/chroma_port
    # Longest wait for one Chroma server request (connecting: at most 5 s), so a server that went away or hangs
    # gives an error within seconds instead of a page that waits for ever (chromadb's own client has no timeout).
    chroma_timeout_s: float = 30.0

    model_dir: Path = Path("")  # empty: <storage_dir>/models (built offline models and the LLM file live here)
    embedding_model: str = DEFAULT_EMBEDDING_MODEL
    embedding_batch_size: int = 32
    # torch + fp32 stays the default: no back end reached the 2.5x fp32 chunks/s a switch needs on this AVX2 CPU
    # (onnx int8 0.95x per CPU-second, a whole ingest 1.42x; torch int8 1.30x at cosine 0.95); onnx int8 moved
    # SciFact's hybrid nDCG@10 by -0.0028 on the whole corpus (README "Embedding back ends"). Another back end or
    # precision is another index identity: `python -m rag check --reembed` after switching.
    embedding_backend: str = "torch"  # EMBEDDING_BACKENDS
    embedding_precision: str = "fp32"  # EMBEDDING_PRECISIONS
    embedding_quantization: str = "dynamic"  # EMBEDDING_QUANTIZATIONS (onnx int8 only)

    chunk_size: int = 800
    chunk_overlap: int = 120
    chunk_min_chars: int = 10
    chunk_size_by_doc_type: dict[str, int] = field(default_factory=dict)
    # Chunks this similar are one passage (stored once, or collapsed in results with both sources kept). 0.95 merged
    # different slides of the OCR'd survey deck (p.4's head-count chart into p.3's company-size chart: 12 of 50 slides
    # lost with their numbers); 0.99 keeps all 50 and still joins the same text in two files.
    near_duplicate_cosine: float = 0.99
    max_file_mb: int = 200
    # A file with more chunks than this is embedded and committed in slices of this many (rag.index): memory stays
    # flat, progress shows after each, and a crash keeps the slices already committed.
    index_slice_chunks: int = 1024
    # OCR (Tesseract via PyMuPDF) of scanned and image-only PDF pages; languages are "+"-joined Tesseract names
    ocr_enabled: bool = True
    ocr_language: str = "jpn+eng"
    ocr_dpi: int = 300
    mask_pii: bool = False  # mask e-mail, phone, postal code, card number, My Number before embedding (rag.ingest.pii)
    doc_type_rules: dict[str, str] = field(default_factory=_default_doc_type_rules)
    entity_patterns: dict[str, str] = field(default_factory=_default_entity_patterns)
    # JSON / JSONL records: which fields become text, which become metadata, and compaction rules
    json_text_fields: tuple[str, ...] = ("text", "content", "body", "commentary", "message")
    json_metadata_fields: tuple[str, ...] = ("title", "id", "date", "author", "category")
    json_cut_marker: str = ""
    json_max_chars: int = 0
    # Example libraries: record fields kept whole beside each record's chunk (``python -m rag similar`` returns
    # them, e.g. the commentary to put in a prompt), and a regex a line of the embedded text must match to be kept.
    json_shown_fields: tuple[str, ...] = ()
    json_keep_lines: str = ""
    # Conversation-log archives (``python -m rag sync``): a folder of immutable logs embedded once each (by name and
    # hash; a changed one is reported, not re-embedded), and a live set re-read every sync (knowledge folders and
    # the current log). Empty: not used.
    archive_dir: Path = Path("")
    live_dirs: tuple[str, ...] = ()
    live_log: Path = Path("")

    bm25_tokenizer: str = "auto"  # auto | sudachi | fugashi | bigram
    # BM25 term-frequency saturation and length normalization: the best mean nDCG@10 over SciFact and JSQuAD of a
    # k1 x b grid (bench/bm25_params.py); SciFact barely moves (0.685-0.690), JSQuAD gains 0.005 over 1.5/0.75.
    bm25_k1: float = 0.9
    bm25_b: float = 0.6

    top_k: int = 5
    candidate_k_min: int = 20
    candidate_k_max: int = 60
    rerank_n_min: int = 8
    rerank_n_max: int = 12
    # convex: weighted normalized scores, each candidate scored by both retrievers | rrf: weighted reciprocal
    # ranks (k = rrf_k). Convex beats every RRF setting on both golden sets (bench/fusion.py).
    fusion: str = "convex"
    rrf_k: int = 20
    semantic_weight: float = 0.5
    reranker_model: str = ""
    rerank_abs_threshold: float = -1.5
    rerank_gap_threshold: float = 6.0
    # With no reranker, a question has no basis when no hit shares a term with it and the best cosine is below
    # this floor. -1: the embedding model's measured floor (BASIS_COSINE_FLOORS), or no floor for other models.
    basis_min_cosine: float = -1.0

    llm_backend: str = "auto"
    ollama_host: str = "http://127.0.0.1:11434"
    ollama_model: str = "qwen2.5:7b-instruct"
    ollama_keep_alive: str = "10m"
    llm_timeout_s: float = 120.0
    openai_base_url: str = ""
    openai_model: str = ""
    embedded_llm: str = "qwen2.5-coder-1.5b"  # or qwen2.5-coder-0.5b
    context_budget_chars: int = 3000
    # Prompt context cap in estimated tokens (rag.answers.context_window). -1: for the embedded LLM, whose CPU
    # prefill sets the wait for the first token, what it reads in first_token_target_s; no cap for other backends;
    # 0: no cap.
    context_budget_tokens: int = -1
    # A wait for the first answer word to size the embedded model's context by (0, the default: the full
    # EMBEDDED_CONTEXT_TOKENS, sized for correct answers on the realdocs golden set, bench/answers_realdocs.py).
    first_token_target_s: float = 0.0
    ui_language: str = "ja"
    # Record every search and answer (stage latencies, hits, basis, backend; never the question) in
    # <storage>/monitoring.sqlite3 for the stats page and `stats --json` (rag.monitoring).
    monitoring: bool = True
    # Monitoring rows older than this many days are deleted as new ones are written (0 keeps them all).
    monitoring_keep_days: int = 90

    @property
    def storage(self) -> Path:
        return self.storage_dir.resolve()

    @property
    def chroma_server(self) -> ChromaServer | None:
        """The ``chroma run`` server to use, from ``chroma_url`` or ``chroma_host``/``chroma_port``; None: embedded."""
        if self.chroma_url:
            return parse_chroma_url(self.chroma_url)
        if self.chroma_host:
            return ChromaServer(self.chroma_host, self.chroma_port, ssl=False)
        return None

    @property
    def basis_cosine_floor(self) -> float:
        """The cosine floor ``has_basis`` applies: ``basis_min_cosine``, or the model's measured one when -1."""
        if self.basis_min_cosine != -1.0:
            return self.basis_min_cosine
        return BASIS_COSINE_FLOORS.get(self.embedding_model, -1.0)

    def context_token_budget(self, backend_name: str, prefill_tokens_per_s: float | None = None) -> int | None:
        """The token cap on an answer's context for ``backend_name`` (``None``: characters only).

        With the default ``context_budget_tokens`` (-1) the embedded model reads what it can in
        ``first_token_target_s`` at its measured ``prefill_tokens_per_s`` (less the question and the prompt's
        framing), between ``MIN_CONTEXT_TOKENS`` and ``EMBEDDED_CONTEXT_TOKENS``; other backends get no token cap.
        """
        if self.context_budget_tokens != -1:
            return self.context_budget_tokens or None
        if backend_name != "embedded":
            return None
        if not prefill_tokens_per_s or self.first_token_target_s <= 0:
            return EMBEDDED_CONTEXT_TOKENS
        readable = int(prefill_tokens_per_s * self.first_token_target_s) - PROMPT_FRAME_TOKENS
        return max(MIN_CONTEXT_TOKENS, min(EMBEDDED_CONTEXT_TOKENS, readable))

    def sizes_context_by_reading_rate(self, backend_name: str) -> bool:
        """Whether ``context_token_budget`` needs ``backend_name``'s measured reading rate (which loads the model)."""
        return self.context_budget_tokens == -1 and backend_name == "embedded" and self.first_token_target_s > 0

    @property
    def models(self) -> Path:
        return self.model_dir.resolve() if str(self.model_dir) not in ("", ".") else self.storage / "models"

    def chunk_size_for(self, doc_type: str) -> int:
        return self.chunk_size_by_doc_type.get(doc_type, self.chunk_size)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        """Build settings from a TOML file (``RAG_CONFIG``), then ``RAG_*`` variables, then ``overrides``.

        Raises:
            ConfigError: a value does not parse or is out of range.
        """
        env = os.environ if env is None else env
        values: dict[str, Any] = {}
        if config_file := env.get("RAG_CONFIG"):
            try:
                values.update(tomllib.loads(Path(config_file).read_text(encoding="utf-8")))
            except (OSError, tomllib.TOMLDecodeError) as err:
                raise ConfigError(f"Cannot read RAG_CONFIG file {config_file}: {err}") from err
        known = {f.name: f for f in fields(cls)}
        for name in known:
            raw = env.get(f"RAG_{name.upper()}")
            if raw is not None:
                values[name] = raw
        if "OLLAMA_HOST" in env and "RAG_OLLAMA_HOST" not in env:
            values["ollama_host"] = env["OLLAMA_HOST"]
        unknown = set(values) - set(known)
        if unknown:
            raise ConfigError(f"Unknown setting(s) {sorted(unknown)}; allowed: {sorted(known)}")
        values.update(overrides)
        settings = cls()
        coerced = {name: _coerce(name, value, getattr(settings, name)) for name, value in values.items()}
        return replace(settings, **coerced).validated()

    def with_overrides(self, overrides: Mapping[str, Any]) -> Settings:
        """These settings with ``overrides`` (field name -> value, strings parsed as ``RAG_*`` values) applied.

        Raises:
            ConfigError: an unknown field, a value that does not parse, or a result out of range.
        """
        known = {f.name for f in fields(self)}
        if unknown := set(overrides) - known:
            raise ConfigError(f"Unknown setting(s) {sorted(unknown)}; allowed: {sorted(known)}")
        coerced = {name: _coerce(name, value, getattr(self, name)) for name, value in overrides.items()}
        return replace(self, **coerced).validated()

    def validated(self) -> Settings:
        if self.llm_backend not in LLM_BACKENDS:
            raise ConfigError(f"llm_backend={self.llm_backend!r}; allowed: {', '.join(LLM_BACKENDS)}")
        if self.fusion not in FUSIONS:
            raise ConfigError(f"fusion={self.fusion!r}; allowed: {', '.join(FUSIONS)}")
        if self.embedding_backend not in EMBEDDING_BACKENDS:
            raise ConfigError(f"embedding_backend={self.embedding_backend!r}; allowed: {', '.join(EMBEDDING_BACKENDS)}")
        if self.embedding_precision not in EMBEDDING_PRECISIONS:
            raise ConfigError(
                f"embedding_precision={self.embedding_precision!r}; allowed: {', '.join(EMBEDDING_PRECISIONS)}"
            )
        if self.embedding_backend == "onnx" and self.embedding_precision == "bf16":
            raise ConfigError("embedding_precision=bf16 runs on the torch backend only; with onnx use fp32 or int8")
        if self.embedding_quantization not in EMBEDDING_QUANTIZATIONS:
            raise ConfigError(
                f"embedding_quantization={self.embedding_quantization!r}; allowed: {', '.join(EMBEDDING_QUANTIZATIONS)}"
            )
        if self.embedding_quantization == "static" and (self.embedding_backend, self.embedding_precision) != (
            "onnx",
            "int8",
        ):
            raise ConfigError(
                "embedding_quantization=static applies to onnx int8 only: set RAG_EMBEDDING_BACKEND=onnx and "
                "RAG_EMBEDDING_PRECISION=int8, or leave RAG_EMBEDDING_QUANTIZATION at dynamic"
            )
        if self.bm25_k1 < 0 or not 0.0 <= self.bm25_b <= 1.0:
            raise ConfigError(f"bm25_k1={self.bm25_k1}, bm25_b={self.bm25_b}; allowed: k1 >= 0, 0 <= b <= 1")
        if not 0.0 <= self.semantic_weight <= 1.0:
            raise ConfigError(f"semantic_weight={self.semantic_weight} must be between 0 and 1")
        if self.monitoring_keep_days < 0:
            raise ConfigError(f"monitoring_keep_days={self.monitoring_keep_days}; allowed: 0 (keep all) or more days")
        if self.index_slice_chunks < 1:
            raise ConfigError(f"index_slice_chunks={self.index_slice_chunks}; allowed: an integer >= 1")
        if self.chunk_overlap >= self.chunk_size:
            raise ConfigError("chunk_overlap must be smaller than chunk_size")
        if self.json_keep_lines:
            try:
                re.compile(self.json_keep_lines)
            except re.error as err:
                raise ConfigError(f"json_keep_lines={self.json_keep_lines!r} is not a valid regex: {err}") from err
        if self.ui_language not in ("ja", "en"):
            raise ConfigError(f"ui_language={self.ui_language!r}; allowed: ja, en")
        try:
            self.chroma_server  # noqa: B018 - parses chroma_url
        except ValueError as err:
            raise ConfigError(f"RAG_CHROMA_URL: {err}") from err
        if self.chroma_timeout_s <= 0:
            raise ConfigError(f"chroma_timeout_s={self.chroma_timeout_s}; allowed: a number of seconds > 0")
        return self


@dataclass(frozen=True, slots=True)
class ChromaServer:
    """Where a ``chroma run`` server listens."""

    host: str
    port: int
    ssl: bool

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'https' if self.ssl else 'http'}://{host}:{self.port}"


def parse_chroma_url(url: str) -> ChromaServer:
    """``http://host:port`` or ``https://host:port`` (no path) as a ``ChromaServer``.

    Raises:
        ValueError: ``url`` is not of that form; the message names the expected form.
    """
    expected = f"expected http://host:port or https://host:port (e.g. http://10.0.0.5:8000), got {url!r}"
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as err:  # a port that is not a number, or out of range
        raise ValueError(expected) from err
    if parts.scheme not in ("http", "https") or not parts.hostname or not port:
        raise ValueError(expected)
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username or parts.password:
        raise ValueError(expected)
    return ChromaServer(parts.hostname, port, ssl=parts.scheme == "https")


def _coerce(name: str, value: Any, default: Any) -> Any:
    """Turn an environment string (or TOML value) into the type of the field's default."""
    if not isinstance(value, str):
        if isinstance(default, tuple) and isinstance(value, list):
            return tuple(value)
        if isinstance(default, Path):
            return Path(value)
        return value
    try:
        if isinstance(default, bool):
            return value.strip().lower() in ("1", "true", "yes", "on")
        if isinstance(default, int):
            return int(value)
        if isinstance(default, float):
            return float(value)
        if isinstance(default, Path):
            return Path(value)
        if isinstance(default, tuple):
            return tuple(part.strip() for part in value.split(",") if part.strip())
        if isinstance(default, dict):
            return dict(tomllib.loads(f"v = {value}")["v"]) if value.strip().startswith("{") else default
    except (ValueError, tomllib.TOMLDecodeError) as err:
        raise ConfigError(f"Setting RAG_{name.upper()}={value!r} does not parse: {err}") from err
    return value
