"""What a person types for an indexed source, turned into the name the index stores it under.

The index names a source as ``rag.ingest.discovery`` made it (``docs/orion_manual.pdf`` for a file found in the folder
``docs``, ``orion_manual.pdf`` for a file given directly). A person at a prompt types one of three things, and each
is accepted:

1. the name as ``python -m rag stats`` prints it;
2. the path that was indexed, absolute or relative to the current folder (the manifest records each source's
   absolute path), whether or not the file is still there;
3. the bare file name, when exactly one indexed source has it (an ambiguous one is refused with the candidates).

The first rule that matches wins, so a path never loses to a look-alike file name elsewhere in the index.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from rag.errors import AmbiguousSourceError, SourceNotFoundError
from rag.index.manifest import SourceRow
from rag.ingest.discovery import nfc

STATS_HINT = "Run `python -m rag stats` to see the indexed names."


def resolve_source(typed: str, rows: Sequence[SourceRow], *, cwd: Path | None = None) -> str:
    """The stored source name ``typed`` means.

    Args:
        typed: what the person typed: a stored name, a path (absolute or relative to ``cwd``) or a bare file name.
        rows: the manifest's source rows.
        cwd: the folder relative paths start from; the process's current folder when omitted.

    Returns:
        The source name as the index stores it.

    Raises:
        AmbiguousSourceError: a bare file name that several sources share (the message lists them).
        SourceNotFoundError: nothing indexed matches (the message says how to list the names).
    """
    name = nfc(typed.strip())
    by_name = {row.source: row for row in rows}
    if name in by_name:
        return name
    if name and (found := _by_path(name, rows, cwd)) is not None:
        return found
    same_file = sorted(row.source for row in rows if PurePosixPath(row.source).name == name)
    if len(same_file) == 1:
        return same_file[0]
    if same_file:
        raise AmbiguousSourceError(
            f"{typed!r} names {len(same_file)} indexed sources: {', '.join(same_file)}. Give one of these names "
            "(or the file's path) instead."
        )
    close = difflib.get_close_matches(name, list(by_name), n=3, cutoff=0.6)
    maybe = f" Did you mean {', '.join(close)}?" if close else ""
    raise SourceNotFoundError(
        f"No indexed source named {typed!r}.{maybe} Give the name as stats prints it, the file's name or the path "
        f"you indexed. {STATS_HINT}"
    )


def resolve_sources(typed: Sequence[str], rows: Sequence[SourceRow], *, cwd: Path | None = None) -> list[str]:
    """``resolve_source`` for each name, in order, without duplicates; the first name that fails raises."""
    resolved: list[str] = []
    for name in typed:
        source = resolve_source(name, rows, cwd=cwd)
        if source not in resolved:
            resolved.append(source)
    return resolved


def _by_path(name: str, rows: Sequence[SourceRow], cwd: Path | None) -> str | None:
    """The source indexed from the file at ``name`` (resolved against ``cwd``), if any."""
    given = Path(name).expanduser()
    base = cwd if cwd is not None else Path(os.getcwd())
    candidates = {nfc(str(given if given.is_absolute() else base / given))}
    try:  # a link, or ``..`` through one, resolves the way discovery resolved the path it stored
        candidates.add(nfc(str((base / given).resolve())))
    except OSError:
        pass
    candidates |= {nfc(os.path.normpath(c)) for c in candidates}
    return next((row.source for row in rows if nfc(row.path) in candidates), None)
