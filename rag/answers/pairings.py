"""Values given pairwise: which of two values, or of a list's values, goes with which thing.

A claim may hold every value and every word of its evidence and still pair them wrongly: "1 zw = 9.16443 pt、1 zh =
9.62216 pt" swaps the manual's two values (``values_swapped``); "\\char\\euc"B0A5 は「喜」です" gives the second
item of a "respectively" sentence the first item's value (``mapped_respectively_elsewhere``); "100 sequences, each
with 16 tracks" counts the tracks with the number the brochure gives the MIDI channels (``counted_elsewhere``); and
"Ryo Iimura attended from NEC Solution Innovators" gives him the company of the names before him on the attendee
list (``record_value_of_another``). Which thing a single fact is given for is ``rag.answers.bindings``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.answers.asked_values import YEAR
from rag.answers.bindings import CLAUSE_END
from rag.answers.fact_matching import fact_found, same_fact, significant_digits
from rag.answers.facts import Fact, facts_of, plain_text, words_besides
from rag.answers.faithfulness import content_tokens, normalize
from rag.answers.polarity import word_stem


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


COUNTED_WORDS = 3
"""Words after a number that may name what it counts: "32 simultaneous, polyphonic tracks"."""
_COUNT_TOKEN = re.compile(
    r"(?P<number>(?<![\w.,$])\d{1,3}(?:,\d{3})+(?![\d.])|(?<![\w.,$])\d+(?![\d.,]?\d))"
    r"|(?P<word>[A-Za-z][A-Za-z-]*)|(?P<stop>[.;:()\[\]?!])"
)
"""A whole number (not part of a version, a decimal or a code), a Latin word, or a mark that ends a noun phrase."""
_NOT_COUNTED = frozenset(
    "each with of and or per in on at to for from by is are was were be has have had that which than more less "
    "times percent up over under about around nearly almost".split()
)
"""Words after a number that end what it counts ("100 sequences, each with…") or make it no count ("3 times")."""


def _counts(text: str) -> list[tuple[str, list[str]]]:
    """Each whole number of ``text`` with the words after it that may name what it counts (up to ``COUNTED_WORDS``,
    up to a word in ``_NOT_COUNTED``, a mark or another number); years aside."""
    tokens = list(_COUNT_TOKEN.finditer(text))
    found = []
    for i, token in enumerate(tokens):
        number = token["number"]
        if number is None or YEAR.fullmatch(number):
            continue
        words: list[str] = []
        for after in tokens[i + 1 : i + 1 + COUNTED_WORDS]:
            word = after["word"]
            if word is None or word.lower() in _NOT_COUNTED:
                break
            words.append(word.lower())
        if words:
            found.append((number.replace(",", ""), words))
    return found


def counted_elsewhere(claim: str, reading: str) -> tuple[str, str, str] | None:
    """``(number, counted, other)`` when the claim counts a thing with a number the evidence gives for something else,
    and the evidence counts that thing with ``other``: "It holds 100 sequences, each with 16 tracks" against "Each of
    the 100 sequences contains 32 simultaneous, polyphonic tracks. Each track may be assigned to one of 16 MIDI
    channels." What a number counts is the last of the words right after it in the claim ("16 tracks": tracks) and
    any of them in the evidence (simultaneous, polyphonic, tracks); word forms match by stem."""
    given: dict[str, set[str]] = {}
    counters: dict[str, set[str]] = {}
    for number, words in _counts(reading):
        stems = {word_stem(word) for word in words}
        given.setdefault(number, set()).update(stems)
        for stem in stems:
            counters.setdefault(stem, set()).add(number)
    for number, words in _counts(claim):
        counted = word_stem(words[-1])
        if number not in given or counted in given[number]:
            continue
        if others := sorted(counters.get(counted, set()) - {number}):
            return number, words[-1], others[0]
    return None


_RECORD_MARK = re.compile(r"\s*[–—]\s*|\s+-\s+|(?<!\d)\s*[:：]\s*(?!\d)")
"""What joins a record's name to its value on a line: a dash ("Ryo Iimura – Macnica", also several records run into
one line) or a colon ("※提供元:OpenChain Japan WG(FAQ Subgroup)"), not the colon of a time (13:30)."""
_ASIDE_OPENS = re.compile(r"\s*[(（\[]")
MIN_RECORD_PART = 2
"""Characters a record's name or value must have to be matched in a claim: "協力" is a name, "AA" (a speaker) and "1"
are left to other checks."""
_LATIN_NAME_MIN = 3


MIN_ASKED_VALUE = 4
"""Characters a record's value must have to be taken as given by a claim that names no record ("一般" and "新人" are
words any answer may use)."""


def _asked_record_value_of_another(
    said: str, topic: str, records: list[tuple[str, str]], openings: list[list[str]]
) -> tuple[str, str, str] | None:
    """``record_value_of_another`` for a claim naming no record: the records the question names most fully are the
    asked ones, and a value the claim gives that only another record holds is that record's."""
    names = [_name_in(before, topic) for before, _after in records]
    longest = max((len(name) for at, name in names if at >= 0), default=0)
    if not longest:
        return None
    asked = [i for i, (at, name) in enumerate(names) if at >= 0 and len(name) == longest]
    if len(asked) == len(records):
        return None
    for i, values in enumerate(openings):
        if i in asked:
            continue
        for value in values:
            if len(value) < MIN_ASKED_VALUE or value not in said:
                continue
            if not any(value in records[j][1] for j in asked):
                own = openings[asked[0]]
                return names[asked[0]][1], value, own[0] if own else records[asked[0]][1]
    return None


def _records(reading: str) -> list[tuple[str, str]]:
    """``(before, after)`` for every record mark of the reading's lines: the line's text since the mark before (which
    ends with this record's name) and its text up to the next mark (which opens with its value)."""
    found = []
    for line in reading.splitlines():
        marks = list(_RECORD_MARK.finditer(line))
        for i, mark in enumerate(marks):
            start = marks[i - 1].end() if i else 0
            end = marks[i + 1].start() if i + 1 < len(marks) else len(line)
            before, after = line[start : mark.start()].strip(), line[mark.end() : end].strip()
            if before and after:
                found.append((before, after))
    return found


def _name_in(before: str, claim: str) -> tuple[int, str]:
    """Where the claim's writing of the record's name ends, and that name: the longest ending of ``before`` (whole
    words in Latin script) that it holds; ``(-1, "")`` when it holds none."""
    words = before.split()
    endings = [" ".join(words[i:]) for i in range(len(words))] if before.isascii() else []
    endings += [before[i:] for i in range(len(before)) if not before[i:].isascii()]
    for ending in sorted(set(endings), key=len, reverse=True):
        shortest = _LATIN_NAME_MIN if ending.isascii() else MIN_RECORD_PART
        if len(ending) < shortest or not any(ch.isalpha() for ch in ending):
            continue
        if ending.isascii():
            found = re.search(rf"(?<![\w]){re.escape(ending)}(?![\w])", claim)
            if found:
                return found.end(), ending
        elif (at := claim.find(ending)) >= 0:
            return at + len(ending), ending
    return -1, ""


def _value_openings(after: str) -> list[str]:
    """The ways a claim may write the value a record's text opens with, longest first: the text before any aside
    ("OpenChain Japan WG" of "OpenChain Japan WG(FAQ Subgroup)"), and its leading words in Latin script ("NEC
    Solution Innovators" of "NEC Solution Innovators Naomichi Shima", where the next record's name follows)."""
    value = _ASIDE_OPENS.split(after, maxsplit=1)[0].strip()
    words = value.split()
    openings = [" ".join(words[:k]) for k in range(len(words), 0, -1)] if value.isascii() else [value]
    return [o for o in openings if len(o) >= max(MIN_RECORD_PART, _LATIN_NAME_MIN if o.isascii() else 0)]


def record_value_of_another(claim: str, reading: str, topic: str = "") -> tuple[str, str, str] | None:
    """``(name, value, its own)`` when the claim gives a record's name the value the evidence gives another record:
    "Ryo Iimura attended from NEC Solution Innovators" against the minutes' line "… Takuya Takeichi– NEC Solution
    Innovators Ryo Iimura – Macnica", or "提供元はオープンソースライセンス研究所で" against "※提供元:OpenChain Japan
    WG(FAQ Subgroup)" and "※協力 :オープンソースライセンス研究所". The value the claim gives a name is the first
    record value written after it in the same clause; one written before it ("…研究所が協力しています") is left be.
    A claim that names no record answers for the one its question (``topic``) names most fully: asked who IT
    Company's 「OSSの基礎」 is for, "OSSのコンプライアンス…に関連する管理者・担当者が対象です" gives it the value of
    "IT Company / OSSコンプライアンス教育"."""
    said = normalize(claim)
    records = [(normalize(before), normalize(after)) for before, after in _records(reading)]
    if len(records) < 2:
        return None
    openings = [_value_openings(after) for _before, after in records]
    if topic and all(_name_in(before, said)[0] < 0 for before, _after in records):
        return _asked_record_value_of_another(said, normalize(topic), records, openings)
    for clause in CLAUSE_END.split(said):
        names = [_name_in(before, clause) for before, _after in records]
        longest = max((len(name) for _at, name in names), default=0)
        for (at, name), (_before, after), own in zip(names, records, openings, strict=True):
            if at < 0 or len(name) < longest:
                continue  # the entry the claim names most fully: "研修" ends many courses' names, "OSSの基礎" one
            rest = clause[at:]
            given = [(rest.find(o), o) for values in openings for o in values if o in rest]
            if not given:
                continue
            _at, value = min(given, key=lambda g: (g[0], -len(g[1])))
            namesakes = [  # records under the same name (three courses called "OSS基礎"): any of them may hold it
                (their_after, their_own)
                for (_at, their_name), (_before, their_after), their_own in zip(names, records, openings, strict=True)
                if their_name == name
            ]
            if not any(value in a or any(value in o or o in value for o in o_) for a, o_ in namesakes):
                return name, value, own[0] if own else after
    return None
