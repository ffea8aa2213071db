"""One document under two names: each copy is indexed (both names stay searchable and citable), and the report says
which other source holds the same bytes, so a user who dropped a copy by mistake can remove it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from rag.index.manifest import Manifest
from rag.records import FileOutcome


def note_same_content(outcomes: Sequence[FileOutcome], manifest: Manifest) -> tuple[FileOutcome, ...]:
    """``outcomes`` with a warning on each indexed file whose content another indexed source already has."""
    noted = []
    for outcome in outcomes:
        row = manifest.source(outcome.source) if outcome.status in ("indexed", "updated") else None
        others = [s for s in manifest.sources_with_content(row.hash) if s != outcome.source] if row and row.hash else []
        if others:
            more = f" and {len(others) - 1} more" if len(others) > 1 else ""
            note = (
                f"the same content as {others[0]!r}{more}: both names are indexed and searched; remove one "
                "(python -m rag remove, or Delete on the upload page) if it is an accidental copy"
            )
            outcome = replace(outcome, warnings=(*outcome.warnings, note))
        noted.append(outcome)
    return tuple(noted)
