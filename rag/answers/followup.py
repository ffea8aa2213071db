"""Follow-up questions that lean on the conversation ("それは何年？", "and the second one?") made searchable.

A follow-up that refers back (a pronoun or demonstrative, "what about…", or too few words to search by) is
rewritten as the previous question followed by the follow-up, so retrieval and the model see what "it" is. The
rewrite is lexical, instant and shown to the user; a standalone question is left as it is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.answers.faithfulness import content_tokens

MIN_STANDALONE_TOKENS = 3
"""A question with fewer content words than this cannot be searched on its own."""

_REFERS_BACK = re.compile(
    r"それ|その|そこ|そちら|これ|この|あれ|あの|前者|後者|同じ|他に|ほかに|[2-9２-９二三]つ目|[2-9２-９二三]番目|^\s*(?:では|じゃあ|で、)"
    r"|\b(?:it|its|they|them|their|that|this|those|these|he|she|his|her|same|former|latter)\b"
    r"|\b(?:the )?(?:first|second|third|last|other) one\b|^\s*(?:and|also|what about|how about)\b",
    re.IGNORECASE,
)


def needs_context(question: str) -> bool:
    """Whether ``question`` refers back to the conversation or is too short to search by itself."""
    return bool(_REFERS_BACK.search(question)) or len(content_tokens(question)) < MIN_STANDALONE_TOKENS


def rewrite_followup(question: str, history: Sequence[tuple[str, str]]) -> str:
    """The question to search and answer: ``question`` itself, or the previous question and it, joined.

    Args:
        question: what the user just asked.
        history: earlier ``(question, answer)`` turns, oldest first.

    Returns:
        ``question`` unchanged when it stands alone or there is no earlier turn; else ``"<previous> <question>"``.
    """
    if not history or not needs_context(question):
        return question
    previous = history[-1][0].strip()
    return f"{previous} {question.strip()}" if previous else question
