"""Time scope: a sentence about how things were (an earlier version, a former rule) does not vouch for a claim
that states the same thing as how they are.

"以前のpTeXでは、和文文字の内部コードを指定することもでき…" supports "以前のpTeXでは指定できた", never "pTeXでは
指定できます": the words, the facts and the polarity all agree, only the time differs. A claim restating such a
sentence must carry a past marker of its own (以前, かつて, 旧, previously, used to, older versions ...).
"""

from __future__ import annotations

import re

from rag.answers.faithfulness import content_tokens

# the evidence describes a former state: the marker itself, not a date ("2020年以前の" bounds a period, it is not
# about an earlier state of the thing); "従来のTEX では" speaks of the TeX before pTeX
_FORMER_STATE = re.compile(
    r"(?<![0-9０-９年月日号版前後])以前(?:の|は|には)|かつて(?:は)?|従来(?:の[^、。,.]{1,20}?(?:では|には)|は)|旧(?:版|バージョン|仕様|制度)|当初は|もともとは"
    r"|\b(?:previously|formerly|originally|in the past|in (?:earlier|older|previous|prior) versions?"
    r"|(?:earlier|older|previous|prior) versions? of)\b"
    # "used to" of a former habit, not of a use ("+ is used to make an argument long")
    r"|(?<!\bis )(?<!\bare )(?<!\bbe )(?<!\bbeen )(?<!\bwas )(?<!\bwere )(?<!\bbeing )\bused to\b",
    re.IGNORECASE,
)
# what in a claim says it speaks of the past too
_PAST_IN_CLAIM = re.compile(
    r"以前|かつて|昔|旧|従来|当初|もともと|元々|でした|だった|ていた|ました|できた"
    r"|\b(?:previous(?:ly)?|former(?:ly)?|earlier|older|originally|used to|in the past|was|were|had|could)\b",
    re.IGNORECASE,
)


_PRESENT_STATE = re.compile(
    r"本(?:バージョン|版)|現(?:バージョン|行|在)|最新(?:版|の)|新(?:版|バージョン|仕様)|今回|今は"
    r"|\b(?:now|currently|today|(?:this|the current|the new|the latest) (?:version|release|edition))\b",
    re.IGNORECASE,
)
"""Words by which a sentence goes on from a former state to the present one ("…存在していましたが、…本バージョン
(Version 2.0)では削除されています")."""


def former_state(claim: str, evidence: str, topic: str = "") -> str:
    """The past marker of ``evidence`` that ``claim`` drops (states as present), else "".

    A sentence that goes on to the present state (``_PRESENT_STATE`` after the marker) vouches for a claim in the
    present when what the claim adds to its question (``topic``) is said there: "仕様2.0ではこの種の修了条件は削除
    されています" on "以前のバージョン(Version 1.2)では…修了条件…が存在していましたが、…本バージョン(Version 2.0)
    では削除されています", not "…修了条件が規定されています", whose 規定 is said of the former state."""
    marker = _FORMER_STATE.search(evidence)
    if marker is None or _PAST_IN_CLAIM.search(claim):
        return ""
    present = _PRESENT_STATE.search(evidence, marker.end())
    if present is not None and topic:
        added = content_tokens(claim) - content_tokens(topic)
        if added and len(added & content_tokens(evidence[present.start() :])) * 2 >= len(added):
            return ""
    return marker.group(0)
