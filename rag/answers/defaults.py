"""Values a text calls the default: a question asking for one, a claim calling a value one, and the passage that
must say so. Asked for the default Secure SRAM size of mTower, "既定値（デフォルト）は96 kBです" was verified on
"…select Secure SRAM Size (0 to 96 kB in 8 kB increments)", which gives a range and no default
(``default_unsaid``); asked how ``round(x, n, t)`` breaks ties by default, "towards zero" was verified on "…with
ties rounded to an even value by default, towards zero if t = 0, …", which gives it for t = 0
(``default_elsewhere``).
"""

from __future__ import annotations

import re

from rag.answers.bindings import CLAUSE_END
from rag.answers.faithfulness import content_tokens, sentence_spans

DEFAULT_CLAUSE_SHARE = 0.5
"""Share of what a claim calls the default that the evidence's clause naming a default must hold, when a clause that
names none holds this share or more, and more of it (``default_elsewhere``)."""
MIN_HELD_WORDS = 2
"""Words of what the claim calls the default that the other clause must hold: one shared word ("value") says little."""
_DEFAULT = re.compile(
    r"\bdefault(?:s|ed)?\b|\binitial(?:ly|\s+value|\s+setting)\b|\bstandard\s+(?:setting|value)s?\b"
    r"|\bunless\s+(?:otherwise\s+)?(?:specified|set|given|changed|configured)\b"
    r"|既定|デフォルト|初期値|初期設定|省略時|標準(?:で|では|の設定)",
    re.IGNORECASE,
)
"""Words that say a value is the one that holds when nobody sets another: "default", "by default", "initially",
"the standard setting", 既定, デフォルト, 初期値, 省略時, 標準で."""


def speaks_of_default(text: str) -> bool:
    """Whether ``text`` speaks of a default value (``_DEFAULT``): asks for one, or says which value is one."""
    return bool(_DEFAULT.search(text))


def default_unsaid(claim: str, topic: str, evidence: str) -> bool:
    """Whether a claim answering a question about a default calls a value the default on evidence that names none
    (the whole cited text, not only the window: a passage may say which value is the default a sentence away)."""
    return speaks_of_default(topic) and speaks_of_default(claim) and not speaks_of_default(evidence)


def default_elsewhere(claim: str, topic: str, reading: str) -> str:
    """The clause of ``reading`` that holds most of what a claim calls the default, when that clause does not speak of a
    default and the ones that do hold less than half of it ("" otherwise). What the claim calls the default is its
    words besides those of its question and the default words themselves ("rounded towards zero" of "By default, ties
    are rounded towards zero")."""
    if not speaks_of_default(claim) or not speaks_of_default(reading):
        return ""
    claimed = content_tokens(_DEFAULT.sub(" ", claim)) - content_tokens(topic)
    if not claimed:
        return ""
    clauses = [c for start, end in sentence_spans(reading) for c in CLAUSE_END.split(reading[start:end]) if c.strip()]
    held = [(len(claimed & content_tokens(c)) / len(claimed), c) for c in clauses]
    by_default = max((share for share, c in held if speaks_of_default(c)), default=0.0)
    share, clause = max(((share, c) for share, c in held if not speaks_of_default(c)), default=(0.0, ""))
    held_words = share * len(claimed)
    if held_words >= MIN_HELD_WORDS and share > by_default and by_default < DEFAULT_CLAUSE_SHARE <= share:
        return " ".join(clause.split())
    return ""
