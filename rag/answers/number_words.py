"""English numbers written in words ("three", "twenty-five", "three hundred ninety million"), read whole.

``rag.answers.facts`` reads a claim's numbers in every notation; a number in words must be read as one value, or
"five hundred dollars" would be the claim of a 5 and "three hundred million" vouched for by a passage saying 300.
"""

from __future__ import annotations

import re

_WORD_NUMBERS = {
    w: n
    for n, w in enumerate(
        "zero _ two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
        "seventeen eighteen nineteen twenty".split()
    )
    if w != "_"
} | {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
_WORD_SCALES = {"hundred": 100, "thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}
_NUMBER_WORD = "|".join([*_WORD_NUMBERS, *_WORD_SCALES])
_WORD_NUMBER = re.compile(
    rf"\b(?:(?:{'|'.join(_WORD_NUMBERS)})|(?:one|a)(?=\s+(?:{'|'.join(_WORD_SCALES)})\b))"
    rf"(?:(?:\s+(?:and\s+)?|-)(?:{_NUMBER_WORD}))*\b",
    re.IGNORECASE,
)
"""A run of number words: "three", "twenty-five", "five hundred", "three hundred ninety million", "one hundred"
("one" and "a" only before a scale word: alone they are as often a pronoun or an article)."""


def numbers_in_words(text: str) -> list[tuple[int, str]]:
    """``(value, words)`` for each number ``text`` writes in words: a run of number words read as one number when it
    makes one, word by word otherwise ("two-three days", "two and three")."""
    found: list[tuple[int, str]] = []
    for match in _WORD_NUMBER.finditer(text):
        if (value := _value(match.group())) is not None:
            found.append((value, match.group()))
            continue
        for word in re.finditer(r"[a-z]+", match.group(), re.IGNORECASE):
            if word.group().casefold() in _WORD_NUMBERS:
                found.append((_WORD_NUMBERS[word.group().casefold()], word.group()))
    return found


def _value(words: str) -> int | None:
    """The value of a run of number words ("three hundred ninety million": 390000000); None when its words do not
    make one number ("two-three" is a range)."""
    total = current = 0
    last = ""  # the kind of the word before: "unit" (1-9), "teen" (10-19), "tens" (20, 30 … 90), "scale"
    for word in re.split(r"[\s-]+", words.casefold()):
        if word == "and":
            continue
        if word in _WORD_SCALES:
            if last in ("", "scale") and not current:
                return None
            if _WORD_SCALES[word] == 100:
                current *= 100
            else:
                total, current = total + current * _WORD_SCALES[word], 0
            last = "scale"
            continue
        value = 1 if word in ("one", "a") else _WORD_NUMBERS[word]
        kind = "unit" if value < 10 else "teen" if value < 20 else "tens"
        if last in ("unit", "teen") or (last == "tens" and kind != "unit"):
            return None  # two numbers side by side: "two three", "twenty thirty"
        current, last = current + value, kind
    return total + current
