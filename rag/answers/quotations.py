"""Quotations in a claim: a phrase set in quotation marks says "these are the passage's own words", and is held to
them (``misquoted``); ``rag.answers.claim_reasons`` asks it of the text a claim cites.
"""

from __future__ import annotations

import re

from rag.answers.facts import plain_text
from rag.answers.faithfulness import content_tokens, quoted_phrases
from rag.answers.prompts import script_language

MIN_QUOTE_CHARS = 4
"""Characters a quoted phrase must have to be held to the letter ("「はい」" is a word, not a quotation)."""
_QUOTE_PIECES = re.compile(r"…|\.\.\.")
"""Where a quotation leaves words out: the pieces either side are each held to the passage (spaces are set aside
before, by ``_comparable_quote``)."""
_PUNCTUATION_VARIANTS = str.maketrans({"、": ",", "。": ".", "，": ",", "．": "."})


def misquoted(claim: str, topic: str, evidence: str) -> str:
    """A phrase the claim quotes (「…」, 『…』, “…”, "…") as the evidence's own words that the evidence does not hold
    word for word and that has a word the evidence lacks ("" when none). A quotation says "these are its words":
    "ABさんは「いいですね!今まで我慢した分、貯金しましょう!」と返しました" was verified on the chat line "AB:
    いいですね!今まで我慢した分、発散しましょう!" by the share of its words; a quotation whose every word the evidence
    holds ("「返品は30日以内なら受け付ける」") is a paraphrase, its citation the verbatim sentence. Compared after NFKC,
    with spaces, an ellipsis inside the quotation and the forms of commas and full stops set aside; a phrase the
    question quotes, one in the other script than the evidence (a translation), and a short one
    (``MIN_QUOTE_CHARS``) are left to the other checks."""
    read, held = _comparable_quote(evidence), content_tokens(evidence)
    language = script_language(evidence)
    for phrase in quoted_phrases(claim):
        if len(phrase) < MIN_QUOTE_CHARS or phrase in topic or script_language(phrase) != language:
            continue
        pieces = [piece for piece in _QUOTE_PIECES.split(_comparable_quote(phrase)) if piece]
        if pieces and not all(piece in read for piece in pieces) and content_tokens(phrase) - held:
            return phrase
    return ""


def _comparable_quote(text: str) -> str:
    return "".join(plain_text(text).translate(_PUNCTUATION_VARIANTS).split()).casefold()
