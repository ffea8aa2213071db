"""Which numbered item of a list a sentence is under: asked about one item, an answer drawn from another is wrong.

A checklist writes its items as "(6) 利用したOSSに脆弱性やバグが発生した場合、情報を把握できますか?" with their
advice in bullets below; several items carry the same kind of advice ("・ 調査するためのツールを利用することを
お勧めします。" is under (1) and (3)). Asked what item (6) recommends, an answer copying the bullet of (8) held
every word of a sentence of the passage and was verified (``under_another_item``).
"""

from __future__ import annotations

import re

from rag.answers.faithfulness import normalize

_ITEM_OPENING = re.compile(r"^[ \t]*[(（]\s*(\d{1,3})\s*[)）]", re.MULTILINE)
"""An item's label opening a line: "(6) 利用したOSSに…", "（3）…"."""
_ITEM_NAMED = re.compile(r"[(（]\s*(\d{1,3})\s*[)）]")
"""An item's label as a question names it: "チェック項目(6)では…", "item (6)"."""


def under_another_item(question: str, window: str, evidence: str) -> tuple[str, str] | None:
    """``(asked, found)`` when the question names one item of a numbered list that the evidence holds, and the
    ``window`` a claim rests on is under another item wherever the evidence writes it (labels "(1)" … opening
    lines); None otherwise. Text before the evidence's first label is under the item before it (a chunk that opens
    inside item (1) and labels (2) next), or, before "(1)", leads into all of them."""
    named = set(_ITEM_NAMED.findall(normalize(question)))
    if len(named) != 1:
        return None
    (asked,) = named
    labels = [(found.start(), found.group(1)) for found in _ITEM_OPENING.finditer(evidence)]
    if asked not in {label for _start, label in labels}:
        return None
    under = []
    start = evidence.find(window)
    while start >= 0:
        before = [label for at, label in labels if at <= start]
        if not before and int(labels[0][1]) <= 1:
            return None
        under.append(before[-1] if before else str(int(labels[0][1]) - 1))
        start = evidence.find(window, start + 1)
    if not under or asked in under:
        return None
    return f"({asked})", f"({under[0]})"
