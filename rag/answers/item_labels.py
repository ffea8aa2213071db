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


_LABELLED_LINE = re.compile(r"^[ \t]*(?:(\d+(?:\.\d+)+)(?=[ \t]+\S)|([^\n:：]{1,15}?)[ \t]*[:：])", re.MULTILINE)
"""A line opening with a label: a short one and a colon, an entry of a legend or glossary ("1/4 掛:…", "×:…"), or a
dotted number, an item of a numbered specification ("1.1.2 A documented procedure…")."""
MIN_LABELLED_LINES = 2
"""Labelled lines a text must have for them to be read as a list's entries."""


def under_another_label(question: str, window: str, evidence: str) -> tuple[str, str] | None:
    """``(asked, found)`` when the question names one entry of a list the evidence holds (lines opening with a
    label, ``_LABELLED_LINE``, at least ``MIN_LABELLED_LINES`` of them), quoting its label or writing one with a
    digit in it, and the ``window`` a claim rests on is on the line of another label that is not one of its
    sub-items ("1.1.2" is under "1.1"); None otherwise. The longest label the question names is the one asked
    ("1/4 掛" over "1/4", "1.1.2" over "1.1")."""
    labels = [
        (found.start(), normalize(found.group(1) or found.group(2))) for found in _LABELLED_LINE.finditer(evidence)
    ]
    if len(labels) < MIN_LABELLED_LINES:
        return None
    asked_text, quoted = normalize(question), {normalize(term) for term in quoted_phrases(question)}
    named = [label for _at, label in labels if label in quoted or (_has_digit(label) and _names(asked_text, label))]
    if not named:
        return None
    asked = max(named, key=len)
    start = evidence.find(window)
    before = [(at, label) for at, label in labels if at <= start] if start >= 0 else []
    if not before:
        return None
    at, found = before[-1]
    if found == asked or found.startswith(f"{asked}.") or "\n" in evidence[at:start]:
        return None  # its own entry, one of its sub-items, or a line that is no entry
    return asked, found


def _has_digit(label: str) -> bool:
    return any(ch.isdigit() for ch in label)


def _names(text: str, label: str) -> bool:
    """Whether ``text`` writes ``label`` whole: "1.1" is not named by "1.1.2", nor "1/4" by "11/4"."""
    return re.search(rf"(?<![\d.]){re.escape(label)}(?![\d.])", text) is not None
