"""False statements made on purpose: a supported statement with one controlled change.

Small models write mostly TRUE statements, so false items are not left to them. A true statement becomes false
by changing a number or date, flipping its negation (する→しない, is→is not, can→cannot), swapping an antonym
(増加→減少, higher→lower), or swapping an entity for another from the same document. A change counts only when
the changed words (with a few characters around them) appear nowhere in the document, so the new statement is
not something the document also says.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from rag.faithfulness import content_tokens, normalize

Kind = Literal["number", "negation", "antonym", "entity"]
WINDOW = 4

_NUMBER = re.compile(r"(?<![\d.,])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d,])|(?<![\d.,])\d+(?:\.\d+)?(?![\d.,]?\d)")
_JA_ENDINGS: tuple[tuple[str, str], ...] = (
    ("できません", "できます"),
    ("ではありません", "です"),
    ("ありません", "あります"),
    ("いません", "います"),
    ("ません", "ます"),
    ("できます", "できません"),
    ("あります", "ありません"),
    ("います", "いません"),
    ("ます", "ません"),
    ("されなかった", "された"),
    ("しなかった", "した"),
    ("ではなかった", "であった"),
    ("された", "されなかった"),
    ("であった", "ではなかった"),
    ("だった", "ではなかった"),
    ("あった", "なかった"),
    ("なった", "ならなかった"),
    ("した", "しなかった"),
    ("ではない", "である"),
    ("できない", "できる"),
    ("されない", "される"),
    ("しない", "する"),
    ("いない", "いる"),
    ("がない", "がある"),
    ("ならない", "なる"),
    ("である", "ではない"),
    ("できる", "できない"),
    ("される", "されない"),
    ("する", "しない"),
    ("いる", "いない"),
    ("がある", "がない"),
    ("なる", "ならない"),
    ("ある", "ない"),
    ("れる", "れない"),
    ("です", "ではありません"),
)
_EN_FLIPS: tuple[tuple[str, str], ...] = (
    (r"\bcannot\b", "can"),
    (r"\bcan not\b", "can"),
    (r"\bis not\b", "is"),
    (r"\bare not\b", "are"),
    (r"\bwas not\b", "was"),
    (r"\bwere not\b", "were"),
    (r"\bdoes not\b", "does"),
    (r"\bdo not\b", "do"),
    (r"\bmust not\b", "must"),
    (r"\bshould not\b", "should"),
    (r"\bwill not\b", "will"),
    (r"\bhas been\b", "has not been"),
    (r"\bhave been\b", "have not been"),
    (r"\bcan\b", "cannot"),
    (r"\bmust\b", "must not"),
    (r"\bshould\b", "should not"),
    (r"\bwill\b", "will not"),
    (r"\bmay\b", "may not"),
    (r"\bis\b", "is not"),
    (r"\bare\b", "are not"),
    (r"\bwas\b", "was not"),
    (r"\bwere\b", "were not"),
)
ANTONYMS: tuple[tuple[str, str], ...] = (
    ("増加", "減少"),
    ("上昇", "低下"),
    ("高い", "低い"),
    ("多い", "少ない"),
    ("大きい", "小さい"),
    ("長い", "短い"),
    ("以上", "未満"),
    ("必須", "任意"),
    ("許可", "禁止"),
    ("有効", "無効"),
    ("最大", "最小"),
    ("最初", "最後"),
    ("increase", "decrease"),
    ("higher", "lower"),
    ("more", "less"),
    ("larger", "smaller"),
    ("positive", "negative"),
    ("before", "after"),
    ("maximum", "minimum"),
    ("required", "optional"),
    ("allowed", "prohibited"),
    ("always", "never"),
    ("enhance", "inhibit"),
    ("activate", "suppress"),
    ("first", "last"),
)
_KATAKANA_TERM = re.compile(r"[ァ-ヺー]{3,}")
_LATIN_TERM = re.compile(r"\b(?:[A-Z][a-z]+[A-Z]?[A-Za-z]*|[A-Z][A-Z0-9-]{1,})\b")
_KANJI_TERM = re.compile(r"(?<![\u4e00-\u9fff])[\u4e00-\u9fff]{2,4}(?![\u4e00-\u9fff])")


@dataclass(frozen=True, slots=True)
class Perturbation:
    """A false statement and exactly what was changed to make it."""

    statement: str
    kind: Kind
    original: str
    replacement: str


def perturb(statement: str, document: Sequence[str], rng: random.Random) -> Perturbation | None:
    """A false variant of a supported ``statement``, or None when no safe change is found.

    Args:
        statement: a statement the document supports.
        document: the texts of the document's chunks (the change must appear in none of them).
        rng: randomness for which change to try first.

    Returns:
        The perturbation, checked so that its changed words are not stated anywhere in the document.
    """
    corpus = [normalize(text) for text in document]
    makers: list[Callable[[str, Sequence[str], random.Random], list[tuple[Kind, int, str, str]]]] = [
        _numbers,
        _negations,
        _antonyms,
        _entities,
    ]
    rng.shuffle(makers)
    makers.sort(key=lambda maker: maker is _entities)  # entity swaps are the least certain: last resort
    for maker in makers:
        for kind, start, original, replacement in maker(statement, corpus, rng):
            changed = statement[:start] + replacement + statement[start + len(original) :]
            window = changed[max(0, start - WINDOW) : start + len(replacement) + WINDOW]
            if not any(normalize(window) in text or normalize(changed) in text for text in corpus):
                return Perturbation(changed, kind, original, replacement)
    return None


def is_negated(text: str) -> bool:
    """Whether the text's predicate is negative (Japanese ない/ません/ず, English not/never/no)."""
    core = text.rstrip("。.!！ ")
    if re.search(r"(ない|ません|ず|なかった|ませんでした)$", core):
        return True
    return bool(re.search(r"\b(not|never|cannot|no)\b|n't\b", text, re.IGNORECASE))


def numbers_in(text: str) -> set[str]:
    """The numbers in ``text`` (commas removed), for checking that a statement's numbers are in its source."""
    return {m.group().replace(",", "") for m in _NUMBER.finditer(normalize(text))}


def _numbers(statement: str, corpus: Sequence[str], rng: random.Random) -> list[tuple[Kind, int, str, str]]:
    options: list[tuple[Kind, int, str, str]] = []
    for match in _NUMBER.finditer(statement):
        raw = match.group()
        value = float(raw.replace(",", ""))
        decimals = len(raw.split(".")[1]) if "." in raw else 0
        if decimals:
            new = value * rng.choice((0.5, 1.5, 2.0))
        elif 1000 <= value <= 2100:  # a year: a nearby year, not 2721 for 1814
            new = value + (rng.choice((-10, 10)) if value % 10 == 0 else rng.choice((-3, -2, -1, 1, 2, 3)))
        elif value <= 12:
            new = value + rng.choice((1, 2)) if value < 3 or rng.random() < 0.5 else value - 1
        else:
            new = round(value * rng.choice((0.5, 1.5, 2.0)))
        text = f"{new:,.{decimals}f}" if "," in raw else f"{new:.{decimals}f}"
        if text != raw:
            options.append(("number", match.start(), raw, text))
    rng.shuffle(options)
    return options


def _negations(statement: str, corpus: Sequence[str], rng: random.Random) -> list[tuple[Kind, int, str, str]]:
    core = statement.rstrip("。．.!！ ")
    for ending, flipped in _JA_ENDINGS:
        if core.endswith(ending):
            return [("negation", len(core) - len(ending), ending, flipped)]
    for pattern, flipped in _EN_FLIPS:
        match = re.search(pattern, statement)
        if match:
            return [("negation", match.start(), match.group(), flipped)]
    return []


def _antonyms(statement: str, corpus: Sequence[str], rng: random.Random) -> list[tuple[Kind, int, str, str]]:
    options: list[tuple[Kind, int, str, str]] = []
    for a, b in ANTONYMS:
        for word, other in ((a, b), (b, a)):
            pattern = re.escape(word) if not word.isascii() else rf"\b{re.escape(word)}"
            match = re.search(pattern, statement)
            if match:
                options.append(("antonym", match.start(), word, other))
    rng.shuffle(options)
    return options


def _entities(statement: str, corpus: Sequence[str], rng: random.Random) -> list[tuple[Kind, int, str, str]]:
    options: list[tuple[Kind, int, str, str]] = []
    for pattern in (_KATAKANA_TERM, _LATIN_TERM, _KANJI_TERM):
        counts = Counter(term for text in corpus for term in pattern.findall(text))
        for match in pattern.finditer(statement):
            term = match.group()
            if match.start() == 0 and pattern is _LATIN_TERM and not term.isupper():
                continue  # a capitalized first word is usually not a name
            others = [
                t
                for t, _n in counts.most_common(40)
                if t != term and t not in statement and content_tokens(t)  # never "This" or "The" for a name
            ]
            if others:
                options.append(("entity", match.start(), term, rng.choice(others[:10])))
        if options:
            break
    rng.shuffle(options)
    return options
