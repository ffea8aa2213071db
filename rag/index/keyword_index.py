"""The persisted BM25 index over chunk tokens (bm25s), queried with an optional per-document mask.

bm25s precomputes every (term, document) score into a sparse CSC matrix at build time, so a query only adds up
the columns of its terms: at 100k chunks that is 1-2 ms on average (``bench/tokenizer_choice.py --skip-table``).
The default scoring is bm25s' ``"lucene"`` variant, idf = ln(1 + (N - df + 0.5) / (df + 0.5)), which stays
positive for terms found in most documents (Robertson's idf goes to zero or below there, so on a small corpus a
word present in most chunks would stop counting).

On disk an index is one directory: bm25s' arrays (memory-mapped on load), its vocabulary and parameters, plus
``ids.json`` (chunk id of each row) and ``meta.json`` (format, caller's version string, document count).
``save`` writes a fresh directory beside the target and renames it into place, so a reader sees either the old
index or the new one, never a half-written one; ``load`` checks that every file it read is of one generation
(a save may swap directories between two of its reads) and reads again if not.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import bm25s
import numpy as np

from rag.errors import EmptyIndexError, IndexError_

FORMAT = 1
METHODS = ("lucene", "robertson", "atire")  # bm25s' BM25L and BM25+ add a non-occurrence term this query skips
_IDS_FILE = "ids.json"
_META_FILE = "meta.json"
_LOAD_ATTEMPTS = 5
_LOAD_RETRY_S = 0.05


class KeywordIndex:
    """An immutable BM25 index: build or load it, query it from any number of threads."""

    def __init__(self, ids: Sequence[str], retriever: bm25s.BM25 | None, *, version: str = "") -> None:
        """Wrap a built ``retriever`` (None for an index without any term); use ``build`` or ``load``."""
        self._ids = tuple(ids)
        self._retriever = retriever
        self.version = version
        self._row_of: dict[str, int] | None = None
        if retriever is not None:
            self._vocab: dict[str, int] = retriever.vocab_dict
            self._data = retriever.scores["data"]
            self._indices = retriever.scores["indices"]
            self._indptr = retriever.scores["indptr"]

    @classmethod
    def build(
        cls,
        ids: Sequence[str],
        tokens: Sequence[list[str]],
        *,
        k1: float = 1.5,
        b: float = 0.75,
        method: str = "lucene",
    ) -> KeywordIndex:
        """Index one token list per document.

        Args:
            ids: one unique id per document (the chunk id), in the order of ``tokens``.
            tokens: the tokens of each document, from the same tokenizer the queries will use.
            k1: term-frequency saturation (BM25's k1), >= 0.
            b: document-length normalization, between 0 and 1.
            method: bm25s scoring variant, one of ``METHODS``.

        Returns:
            The index; an empty corpus gives an empty index whose queries return nothing.

        Raises:
            ValueError: lengths differ, ids repeat, or a parameter is out of range.
        """
        if len(ids) != len(tokens):
            raise ValueError(f"Got {len(ids)} ids for {len(tokens)} token lists; pass one id per document")
        if len(set(ids)) != len(ids):
            raise ValueError("Document ids repeat; each document needs a unique id")
        if method not in METHODS:
            raise ValueError(f"BM25 method {method!r}; allowed: {', '.join(METHODS)}")
        if k1 < 0 or not 0.0 <= b <= 1.0:
            raise ValueError(f"k1={k1}, b={b}; allowed: k1 >= 0 and 0 <= b <= 1")
        if not any(tokens):
            return cls(ids, None)
        retriever = bm25s.BM25(k1=k1, b=b, method=method)
        retriever.index([list(doc) for doc in tokens], show_progress=False)
        # str subclasses (numpy.str_) would index fine but make save fail: orjson takes plain str keys only
        retriever.vocab_dict = {str(token): column for token, column in retriever.vocab_dict.items()}
        return cls(ids, retriever)

    @property
    def ids(self) -> tuple[str, ...]:
        """The document ids, in row order (the order of masks passed to ``query``)."""
        return self._ids

    def __len__(self) -> int:
        return len(self._ids)

    def query(self, tokens: list[str], k: int, *, allowed: np.ndarray | None = None) -> list[tuple[str, float]]:
        """Return up to ``k`` (id, BM25 score) pairs, best first, with only positive scores.

        Args:
            tokens: query tokens (a repeated token counts again, as in the BM25 sum over query terms).
            k: how many results at most; larger than the corpus is fine.
            allowed: optional mask over ``ids``: booleans (False excludes a document) or non-negative weights
                that multiply each document's score (0 excludes it).

        Raises:
            ValueError: ``k`` is negative or ``allowed`` does not have one entry per document.
        """
        return self.score(tokens, allowed=allowed).top(k)

    def score(self, tokens: list[str], *, allowed: np.ndarray | None = None) -> KeywordScores:
        """Every document's BM25 score for the query, to take the top of and to look single documents up in.

        Raises:
            ValueError: ``allowed`` does not have one entry per document (see ``query``).
        """
        if allowed is not None and np.shape(allowed) != (len(self._ids),):
            raise ValueError(f"allowed has shape {np.shape(allowed)}; it needs one entry per document ({len(self)})")
        term_ids = [self._vocab[t] for t in tokens if t in self._vocab] if self._retriever is not None else []
        if not term_ids:
            return KeywordScores(self._ids, None, self.rows)
        scores = self._scores(term_ids)
        if allowed is not None:
            if allowed.dtype == np.bool_:
                scores[~allowed] = 0.0
            else:
                scores *= allowed
        return KeywordScores(self._ids, scores, self.rows)

    def rows(self) -> dict[str, int]:
        """The row of each document id: its position in ``ids`` and in a mask."""
        if self._row_of is None:  # built on first need; two threads building it at once build the same dict
            self._row_of = {cid: row for row, cid in enumerate(self._ids)}
        return self._row_of

    def _scores(self, term_ids: list[int]) -> np.ndarray:
        # Sum the precomputed columns; bincount is several times faster than bm25s' np.add.at.
        cols = np.asarray(term_ids)
        starts, ends = self._indptr[cols], self._indptr[cols + 1]
        rows = np.concatenate([self._indices[s:e] for s, e in zip(starts, ends)])
        weights = np.concatenate([self._data[s:e] for s, e in zip(starts, ends)])
        return np.bincount(rows, weights=weights, minlength=len(self._ids))

    def save(self, directory: Path, *, version: str = "") -> None:
        """Write the index to ``directory``, replacing what is there in one rename.

        Args:
            directory: the index directory (created with its parents).
            version: the caller's description of what was indexed (tokenizer, corpus state), read back by ``load``.

        Raises:
            IndexError_: the directory cannot be written (permissions, full disk).
        """
        directory = Path(directory)
        try:
            directory.parent.mkdir(parents=True, exist_ok=True)
            staging = Path(tempfile.mkdtemp(prefix=f".{directory.name}.", suffix=".tmp", dir=directory.parent))
        except OSError as err:
            raise IndexError_(f"Cannot create the keyword index at {directory}: {err}. Check permissions.") from err
        try:
            if self._retriever is not None:
                self._retriever.save(staging, show_progress=False)
            (staging / _IDS_FILE).write_text(json.dumps(self._ids, ensure_ascii=False), encoding="utf-8")
            meta = {
                "format": FORMAT,
                "version": str(version),
                "count": len(self._ids),
                "empty": self._retriever is None,
                "generation": uuid.uuid4().hex,  # lets load() notice a save that swapped directories mid-read
            }
            (staging / _META_FILE).write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")
            _swap_into_place(staging, directory)
        except OSError as err:
            raise IndexError_(
                f"Cannot save the keyword index to {directory}: {err}. Check free disk space and permissions."
            ) from err
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        self.version = str(version)

    @classmethod
    def load(cls, directory: Path, *, mmap: bool = True) -> KeywordIndex:
        """Read an index written by ``save``, even while another thread or process saves over it.

        Args:
            directory: the index directory.
            mmap: memory-map the score arrays instead of reading them into memory.

        Raises:
            EmptyIndexError: there is no index at ``directory`` yet.
            IndexError_: the directory holds something unreadable or inconsistent; rebuild the index.
        """
        directory = Path(directory)
        for _ in range(_LOAD_ATTEMPTS):
            try:
                first = _read_meta(directory)
            except FileNotFoundError:
                if not _swap_in_progress(directory):
                    raise EmptyIndexError(f"No keyword index at {directory}; index some documents first.") from None
                time.sleep(_LOAD_RETRY_S)
                continue
            try:
                index, failure = cls._load_files(directory, first, mmap=mmap), None
            except (FileNotFoundError, IndexError_) as err:
                index, failure = None, err
            if _generation(directory) == str(first.get("generation")):
                # nothing was swapped in while reading: every file read is of one generation
                if index is not None:
                    return index
                if isinstance(failure, IndexError_):
                    raise failure
                raise IndexError_(
                    f"The keyword index at {directory} cannot be read ({failure}); delete it and re-index."
                ) from failure
            time.sleep(_LOAD_RETRY_S)  # a save swapped directories while we read: read the new one
        if not (directory / _META_FILE).is_file():  # a leftover "*.old" of a crashed save, no index
            raise EmptyIndexError(f"No keyword index at {directory}; index some documents first.")
        raise IndexError_(f"The keyword index at {directory} kept changing while being read; try again.")

    @classmethod
    def _load_files(cls, directory: Path, meta: dict[str, Any], *, mmap: bool) -> KeywordIndex:
        try:
            ids = json.loads((directory / _IDS_FILE).read_text(encoding="utf-8"))
            if meta.get("format") != FORMAT or len(ids) != meta.get("count"):
                raise ValueError(f"format {meta.get('format')} with {len(ids)} ids for count {meta.get('count')}")
            retriever = None
            if not meta.get("empty"):
                retriever = bm25s.BM25.load(directory, mmap=mmap, show_progress=False)
                if retriever.scores["num_docs"] != len(ids):
                    raise ValueError(f"{retriever.scores['num_docs']} indexed rows for {len(ids)} ids")
        except FileNotFoundError:
            raise
        except (OSError, ValueError, KeyError, TypeError) as err:
            raise IndexError_(
                f"The keyword index at {directory} cannot be read ({err}); delete it and re-index to rebuild it."
            ) from err
        return cls(ids, retriever, version=str(meta.get("version", "")))


class KeywordScores:
    """One query's BM25 score of every document (``None``: no query term is in the vocabulary, all zero)."""

    def __init__(self, ids: tuple[str, ...], scores: np.ndarray | None, rows: Callable[[], dict[str, int]]) -> None:
        self._ids = ids
        self._scores = scores
        self._rows = rows

    def top(self, k: int) -> list[tuple[str, float]]:
        """Up to ``k`` (id, score) pairs with a positive score, best first (ties: lower row first).

        Raises:
            ValueError: ``k`` is negative.
        """
        if k < 0:
            raise ValueError(f"k={k}; allowed: k >= 0")
        scores = self._scores
        if k == 0 or scores is None:
            return []
        found = np.flatnonzero(scores > 0)
        if found.size > k:
            found = found[np.argpartition(-scores[found], k - 1)[:k]]
        order = np.lexsort((found, -scores[found]))  # reproducible order for equal scores
        return [(self._ids[row], float(scores[row])) for row in found[order]]

    def of(self, ids: Sequence[str]) -> dict[str, float]:
        """The score of each of ``ids`` (0.0 for a document the query does not match; unknown ids left out).

        Fusion uses it to give the dense retriever's candidates that keyword search did not return their score.
        """
        if not ids:
            return {}
        rows = self._rows()
        if self._scores is None:
            return {cid: 0.0 for cid in ids if cid in rows}
        return {cid: float(self._scores[rows[cid]]) for cid in ids if cid in rows}


def _read_meta(directory: Path) -> dict[str, Any]:
    try:
        meta = json.loads((directory / _META_FILE).read_text(encoding="utf-8"))
    except ValueError as err:
        raise IndexError_(
            f"The keyword index at {directory} cannot be read ({err}); delete it and re-index to rebuild it."
        ) from err
    if not isinstance(meta, dict):
        raise IndexError_(f"The keyword index at {directory} has a malformed {_META_FILE}; re-index to rebuild it.")
    return meta


def _generation(directory: Path) -> str | None:
    try:
        return str(_read_meta(directory).get("generation"))
    except (OSError, IndexError_):
        return None


def _swap_in_progress(directory: Path) -> bool:
    return any(directory.parent.glob(f".{directory.name}.*.old"))


def _swap_into_place(staging: Path, directory: Path) -> None:
    """Rename ``staging`` to ``directory``; an existing ``directory`` is moved aside first, then deleted."""
    if not directory.exists():
        os.replace(staging, directory)
        return
    retired = directory.with_name(f".{directory.name}.{uuid.uuid4().hex}.old")
    os.replace(directory, retired)
    try:
        os.replace(staging, directory)
    except OSError:
        os.replace(retired, directory)  # put the previous index back before reporting the failure
        raise
    shutil.rmtree(retired, ignore_errors=True)
