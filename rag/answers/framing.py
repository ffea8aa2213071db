"""The setting a question opens with, copied by the answer: "厚労省の裁判例資料の表記で、●の記号は…" answers
"厚労省の裁判例資料の表記で、●の記号はどんな事情を…?" by repeating the question's "…の表記で、" before what it says.

The opening phrase names where to look (a document, a rule set, a section), not what is found there. The sentence
that answers ("・●:労働者性を否定する方向の事情") seldom repeats it, so a claim read with it held too few of its words
to be verified, and a right answer was replaced by the evidence. ``without_framing`` gives the claim without such a
phrase, when every word of the phrase is the question's: the question's own checks (what it asks, the names it
frames itself with) still apply to the claim, through the question.
"""

from __future__ import annotations

import re

from rag.answers.faithfulness import content_tokens

_JA_FRAME = re.compile(
    r"^(?P<frame>[^、。，,!?！？\n]{2,60}?(?:によると|によれば|において|に関して|については|の中で|では|には|で))は?[、，,]\s*"
)
"""A Japanese opening phrase: a place or a source, then で / では / によると / において … and a comma."""
_EN_FRAME = re.compile(
    r"^(?P<frame>(?:in|under|according to|per|as per|within|based on|for|from)\s[^,;:.!?\n]{2,100}),\s*",
    re.IGNORECASE,
)
"""An English opening phrase: "In the OSS pamphlet,", "According to the bill,", "Under section 2,"."""


def without_framing(claim: str, question: str) -> str:
    """``claim`` without the opening phrase it copies from ``question`` (every word of the phrase is the question's);
    ``claim`` itself when it opens with none, or when nothing would be left."""
    found = _JA_FRAME.match(claim) or _EN_FRAME.match(claim)
    if found is None:
        return claim
    words = content_tokens(found["frame"])
    rest = claim[found.end() :]
    if not words or not words <= content_tokens(question) or not content_tokens(rest):
        return claim
    return rest
