"""What every part of the facade (``quizzes``, ``bases``, ``answers``) may use of the ``RagService`` it is part of."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rag.index.writer import Index
    from rag.settings import Settings


class FacadePart:
    """A slice of ``RagService``'s methods, kept in a module of its own; ``RagService`` provides what is declared."""

    if TYPE_CHECKING:
        settings: Settings
        base_name: str

        @property
        def index(self) -> Index: ...
