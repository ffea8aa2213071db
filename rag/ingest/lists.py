"""Lists in running text: an item ("• …", "1.", "(2)") and the sentence that introduces its list ("Nothing in this
division may be construed—", "次のとおりとする:"), which may deny every item.

A chunk that starts in the middle of a list has lost that sentence to the chunk before it; the chunker keeps it with
the chunk (``LEAD_IN_KEY``) so the claim checks read the items as the document says them.
"""

from __future__ import annotations

import re

from rag.records import Chunk

LIST_ITEM = re.compile(r"\s*(?:[•・●○■□◆◇▪‣⁃*\-–]|\d{1,2}[.)．]|[(（]\d{1,2}[)）])\s*\S")
"""A line or sentence that opens a list item: a bullet, "1.", "(2)"."""
OPENS_LIST = re.compile(r"[—–:：]\s*$")
"""The end of a sentence that introduces a list: "Nothing in this division may be construed—", "In this section:"."""
LEAD_IN_KEY = "list_lead_in"
"""Chunk metadata: the sentence introducing the list the chunk starts in, when that sentence is in an earlier chunk."""


ENTRY = re.compile(r"\s*[^\s–—:：][^–—:：\n]{0,60}?\s[–—]\s+\S[^\n]*?(?<![.。!?！？])\s*$")
"""A line that pairs a name with what belongs to it, without a bullet: "Hiroshi Nozue – Toshiba" in a list of
attendees, "term — definition" in a glossary. Such lines are parallel entries, as bulleted items are."""


def is_list_item(line: str) -> bool:
    """Whether ``line`` opens a list item: a bullet or a number, or an entry pairing a name with its value."""
    return bool(LIST_ITEM.match(line) or ENTRY.fullmatch(line))


def next_lead_in(line: str, lead_in: str) -> str:
    """The lead-in in force after ``line``: an item keeps it, a sentence ending in a dash or a colon becomes it, any
    other sentence (a paragraph) ends the list."""
    if is_list_item(line):
        return lead_in
    return line.strip() if OPENS_LIST.search(line) else ""


def open_lead_in(text: str, lead_in: str = "") -> str:
    """The lead-in still in force at the end of ``text`` (its lines read in order, starting from ``lead_in``)."""
    for line in text.splitlines():
        if line.strip():
            lead_in = next_lead_in(line, lead_in)
    return lead_in


def opening_lead_in(chunk: Chunk) -> str:
    """The sentence introducing a list ``chunk`` starts in, kept by the chunker from the chunk before ("" if none)."""
    return str(chunk.extra.get(LEAD_IN_KEY, ""))
