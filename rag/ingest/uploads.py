"""Uploaded files land under ``<storage>/uploads`` with a name that is safe there, or with a clear error.

A browser sends whatever name the file had, and a hostile client sends any bytes at all: ``..``, an absolute
path, a Windows path, a NUL byte, a newline, 300 characters. The stored name is the last path component,
NFC-normalized, without control characters or leading dots, cut to what a file system holds (the extension is
kept), and the file is written beside its target as a hidden ``.part`` first, so a failed write leaves nothing.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from pathlib import Path

from rag.errors import UploadNameError

MAX_NAME_BYTES = 200
"""Room under the usual 255-byte limit of a file name for the ``.`` + ``.part`` of the temporary file."""

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def safe_upload_name(name: str) -> str:
    """The name an upload is stored under: one plain file name, never a path.

    Args:
        name: the name the browser (or any client) sent.

    Returns:
        The last component of ``name`` (``/`` and ``\\`` both separate), NFC-normalized, with control characters
        removed, leading dots and spaces and trailing dots and spaces stripped, at most ``MAX_NAME_BYTES`` bytes.

    Raises:
        UploadNameError: nothing usable is left (``..``, ``/``, only control characters or dots).
    """
    last = re.split(r"[/\\]", unicodedata.normalize("NFC", name))[-1]
    cleaned = _CONTROL.sub("", last).lstrip(". ").rstrip(". ")
    if not cleaned:
        raise UploadNameError(
            f"The upload name {name[:80]!r} has no usable file name in it; rename the file (e.g. report.pdf) and "
            "upload it again."
        )
    return _fit(cleaned)


def _fit(name: str) -> str:
    """Cut the stem (never the extension) until the UTF-8 name fits ``MAX_NAME_BYTES``."""
    if len(name.encode()) <= MAX_NAME_BYTES:
        return name
    stem, dot, suffix = name.rpartition(".")
    if not dot or len(suffix.encode()) > 16:  # no real extension: cut the whole name
        stem, suffix = name, ""
    room = MAX_NAME_BYTES - len(suffix.encode()) - (1 if suffix else 0)
    cut = stem.encode()[:room].decode(errors="ignore").rstrip(". ")
    return f"{cut}.{suffix}" if suffix else cut


def save_upload(folder: Path, name: str, data: bytes) -> Path:
    """Write one upload into ``folder`` under its safe name (atomically: no partial file survives a failure).

    Raises:
        UploadNameError: the name has nothing usable in it.
        OSError: the disk refused the write (full, read-only); nothing is left behind.
    """
    target = folder / safe_upload_name(name)
    if target.resolve().parent != folder.resolve():  # cannot happen after safe_upload_name; kept as the last word
        raise UploadNameError(f"The upload name {name[:80]!r} points outside the uploads folder; rename the file.")
    tmp = target.with_name(f".{target.name}.part")
    try:
        tmp.write_bytes(data)
        tmp.replace(target)
    finally:
        tmp.unlink(missing_ok=True)
    return target


def save_uploads(folder: Path, files: Sequence[tuple[str, bytes]]) -> tuple[list[Path], list[tuple[str, str]]]:
    """Save every upload that can be saved.

    Returns:
        The saved paths, and ``(name, message)`` for each upload that could not be saved (the name printable:
        control characters removed).
    """
    folder.mkdir(parents=True, exist_ok=True)
    saved: list[Path] = []
    refused: list[tuple[str, str]] = []
    for name, data in files:
        try:
            saved.append(save_upload(folder, name, data))
        except UploadNameError as err:
            refused.append((printable_name(name), str(err)))
        except OSError as err:
            message = f"Could not save the upload: {err.strerror or err}. Free disk space and retry."
            refused.append((printable_name(name), message))
    return saved, refused


def printable_name(name: str) -> str:
    """How a refused upload is named in the report: control characters removed, at most 120 characters."""
    return _CONTROL.sub("", name)[:120] or "(unnamed upload)"
