"""Values given pairwise: which of two values, or of a list's values, goes with which thing.

A claim may hold every value and every word of its evidence and still pair them wrongly: "1 zw = 9.16443 pt、1 zh =
9.62216 pt" swaps the manual's two values (``values_swapped``), and "\\char\\euc"B0A5 は「喜」です" gives the second
item of a "respectively" sentence the first item's value (``mapped_respectively_elsewhere``). Which thing a single
fact is given for is ``rag.answers.bindings``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.answers.bindings import CLAUSE_END
from rag.answers.fact_matching import fact_found, same_fact, significant_digits
from rag.answers.facts import Fact, facts_of, plain_text, words_besides
from rag.answers.faithfulness import content_tokens


def values_swapped(facts: Sequence[Fact], claim: str, reading: str) -> tuple[Fact, Fact] | None:
    """``(value, sibling)`` when the claim gives two values of one kind and unit to two things and the evidence gives
    them the other way round: "1 zw = 9.16443 pt、1 zh = 9.62216 pt" against "1 zw = 9.62216 pt, 1 zh = 9.16443 pt".
    Both values and both words are in the evidence, so no fact is missing. A clause of the claim holding one value
    is swapped when the words that tell its evidence clause from the other value's (zw, zh; "pt" is in both) are all
    in the other value's clause and none in its own."""
    values = [
        f for f in facts if f.kind == "identifier" or (f.kind == "number" and (f.unit or significant_digits(f) >= 2))
    ]
    if len(values) < 2:
        return None
    evidence = [(facts_of(c), plain_text(c), content_tokens(c)) for c in CLAUSE_END.split(reading)]
    for clause in CLAUSE_END.split(claim):
        named = facts_of(clause)
        held = [f for f in values if fact_found(f, named, plain_text(clause))]
        if len(held) != 1:
            continue
        (value,) = held
        words = words_besides(clause, named)
        own = [tokens for found, text, tokens in evidence if fact_found(value, found, text)]
        for other in (f for f in values if not same_fact(f, value) and f.kind == value.kind and f.unit == value.unit):
            for theirs in (tokens for found, text, tokens in evidence if fact_found(other, found, text)):
                for mine in own:
                    telling = words - (mine & theirs)
                    if telling and not telling & mine and telling <= theirs:
                        return value, other
    return None


_RESPECTIVE_JA = re.compile(
    r"(?P<left>[^。.!?！？]+?)\s*は\s*[,、，]?\s*それぞれ\s*(?P<right>[^。!?！？]+?)\s*(?:である|です|とする|となる|だ)?\s*[。.]"
)
_RESPECTIVE_EN = re.compile(
    r"(?P<left>[^.!?]+?)\s+(?:are|were|is|mean|denote|correspond to|stand for)\s+(?P<right>[^.!?]+?),?\s+respectively\b"
)
_ITEMS = re.compile(r"\s*(?:[,、，]|\band\b|\bor\b)\s*")


def mapped_respectively_elsewhere(claim: str, reading: str) -> tuple[str, str] | None:
    """``(item, value)`` when the claim pairs an item of a "respectively" sentence with another item's value:
    "\\char\\jis"346E,\\char\\euc"B0A5,\\char\\sjis"8A79 は,それぞれ「喜」,「哀」,「楽」である" gives 哀 to the
    second, so "\\char\\euc"B0A5 は「喜」です" holds every word of it and is wrong. The i-th item goes with the
    i-th value; None when the claim names an item and its own value, or no such sentence is read."""
    said = " ".join(claim.split())
    text = " ".join(reading.split())
    for pattern in (_RESPECTIVE_JA, _RESPECTIVE_EN):
        for found in pattern.finditer(text):
            items = [part for part in _ITEMS.split(found["left"]) if part]
            values = [part for part in _ITEMS.split(found["right"]) if part]
            items = items[-len(values) :]  # what opens the sentence ("たとえば", "For example") is no item
            if len(values) < 2 or len(items) != len(values):
                continue
            items[0] = items[0].split()[-1]  # "In the example \\char…": the item is the last word
            for i, item in enumerate(items):
                if item not in said or values[i] in said:
                    continue
                if other := next((value for j, value in enumerate(values) if j != i and value in said), None):
                    return item, other
    return None
