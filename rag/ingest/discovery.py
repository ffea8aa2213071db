"""Which files an indexing run covers, and the source name each one gets.

A source name is stable and readable: a file given directly is named by its file name, a file found in a
given folder by ``<folder name>/<path inside the folder>``; uploads by their path inside the uploads folder.
Names are NFC-normalized (macOS file systems hand out NFD Japanese names). A folder scan lists every file
but hidden ones and Office lock files (``~$``), so each gets an outcome: one the engine does not read is
reported as skipped, with the reason.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from pathlib import Path

from rag.ingest.parsing.kinds import is_ignored


@dataclass(frozen=True, slots=True)
class SourceFile:
    path: Path
    source: str
    rel_path: str
    explicit: bool  # named by the user (unsupported kinds then fail loudly instead of being skipped)
    # compare its content (hash) with the indexed copy even when size and mtime match: a live file (``rag.index.sync``)
    # whose edit kept both (``cp -p``, a sync tool restoring times) must still be read again
    verify_content: bool = False


@dataclass(frozen=True, slots=True)
class Discovery:
    files: tuple[SourceFile, ...]
    folders: tuple[Path, ...]  # folders walked: sources under them whose file vanished get removed
    missing: tuple[str, ...]  # paths given that do not exist


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def discover(paths: list[Path], root: Path | None = None) -> Discovery:
    """Expand files and folders into the files to index, in a stable order."""
    files: dict[str, SourceFile] = {}
    folders: list[Path] = []
    missing: list[str] = []
    for given in paths:
        path = given.expanduser().resolve()
        if not path.exists():
            missing.append(str(given))
            continue
        if path.is_dir():
            folders.append(path)
            base = root.resolve() if root else path.parent
            for found in sorted(p for p in path.rglob("*") if p.is_file()):
                inside = found.relative_to(path)
                if any(is_ignored(part) for part in inside.parts):
                    continue
                rel = nfc(found.relative_to(base).as_posix())
                files.setdefault(rel, SourceFile(found, rel, rel, explicit=False))
        else:
            rel = nfc(path.relative_to(root.resolve()).as_posix()) if root else nfc(path.name)
            files[rel] = SourceFile(path, rel, rel, explicit=True)
    return Discovery(tuple(files.values()), tuple(folders), tuple(missing))
