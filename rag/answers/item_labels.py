"""Which item of a list a sentence is under: asked about one item, an answer drawn from another is wrong.

A checklist writes its items as "(6) 利用したOSSに脆弱性やバグが発生した場合、情報を把握できますか?" with their
advice in bullets below; several items carry the same kind of advice ("・ 調査するためのツールを利用することを
お勧めします。" is under (1) and (3)). Asked what item (6) recommends, an answer copying the bullet of (8) held
every word of a sentence of the passage and was verified (``under_another_item``). A legend writes its entries as
"1/2 掛:親文字からルビのはみ出しがあった場合,ルビ文字を空白に二分まで掛けてよい." above "1/4 掛:…四分まで…":
asked what 「1/4 掛」 means, the line of 1/2 掛 is no answer (``under_another_label``).
"""

from __future__ import annotations

import re

from rag.answers.faithfulness import normalize, quoted_phrases

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


_LABELLED_LINE = re.compile(r"^[ \t]*([^\n:：]{1,15}?)[ \t]*[:：]", re.MULTILINE)
"""A line opening with a short label and a colon: an entry of a legend or glossary ("1/4 掛:…", "×:…")."""
MIN_LABELLED_LINES = 3
"""Labelled lines a text must have for them to be read as a legend's entries."""


def under_another_label(question: str, window: str, evidence: str) -> tuple[str, str] | None:
    """``(asked, found)`` when the question names one entry of a legend the evidence holds (lines opening with a
    short label and a colon, at least ``MIN_LABELLED_LINES`` of them), quoting its label or writing one with a digit
    in it, and the ``window`` a claim rests on is on the line of another label; None otherwise. The longest label
    the question names is the one asked ("1/4 掛" over "1/4")."""
    labels = [(found.start(), normalize(found.group(1))) for found in _LABELLED_LINE.finditer(evidence)]
    if len(labels) < MIN_LABELLED_LINES:
        return None
    asked_text, quoted = normalize(question), {normalize(term) for term in quoted_phrases(question)}
    named = [
        label for _at, label in labels if label in asked_text and (label in quoted or any(c.isdigit() for c in label))
    ]
    if not named:
        return None
    asked = max(named, key=len)
    if sum(label == asked for _at, label in labels) != 1:
        return None
    start = evidence.find(window)
    before = [(at, label) for at, label in labels if at <= start] if start >= 0 else []
    if not before:
        return None
    at, found = before[-1]
    if found == asked or "\n" in evidence[at:start]:  # its own entry, or a line that is no entry
        return None
    return asked, found
