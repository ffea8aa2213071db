"""False statements made on purpose: a supported statement with exactly one fact changed, still well-formed.

Small models write mostly TRUE statements, so false items are not left to them. A true statement becomes false by
changing one of its facts (``rag.answers.facts.facts_of``) in its kind: a time moves by whole hours (03:00 → 05:00),
a date or era by a year or a month (令和6年 → 令和4年), a version by one step (1.2 → 1.3), a number by a factor
that keeps its unit and grouping (45 days → 90 days, 30 % → 60 %), and a name or API identifier is swapped for
another of the same kind from the same document. Without a fact to change, the statement's polarity flips
(できる → できない, must → must not) or a comparison turns round (以上 → 未満, before → after). A change counts only
when the new words (with a few characters around them) appear nowhere in the document and the result is
well-formed (``rag.quiz.wellformed``), so the new statement is neither something the document also says nor
false on its face.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Literal

from rag.answers.contrast import OPPOSITE_TERMS
from rag.answers.facts import ERAS, Fact, facts_of
from rag.answers.faithfulness import normalize
from rag.quiz.wellformed import is_well_formed

# a line that is a heading: Markdown "#", or short without sentence punctuation at its end
_HEADING = re.compile(r"^(?:#.*|[^.。!?！？:：]{1,60})$")
Kind = Literal["number", "date", "time", "version", "identifier", "name", "polarity", "comparison"]
WINDOW = 4
KIND_LABELS: dict[str, tuple[str, str]] = {  # (English, Japanese) name of what was changed
    "number": ("the number", "数値"),
    "date": ("the date", "日付"),
    "time": ("the time", "時刻"),
    "version": ("the version", "バージョン"),
    "identifier": ("the identifier", "識別子"),
    "name": ("the name", "名称"),
    "polarity": ("the negation", "肯定・否定"),
    "comparison": ("the comparison", "比較"),
}

# most specific first; "" marks an ending with no natural opposite ("とは限りません" has no "とは限ります")
_JA_ENDINGS: tuple[tuple[str, str], ...] = (
    ("とは限りません", ""),
    ("とは限らない", ""),
    ("ことはありません", "ことがあります"),
    ("ことはない", "ことがある"),
    ("くありません", "いです"),
    ("いです", "くありません"),
    ("くない", "い"),
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
COMPARISONS: tuple[tuple[str, str], ...] = (
    *OPPOSITE_TERMS,
    ("以下", "超"),
    ("許可", "禁止"),
    ("at least", "less than"),
    ("at most", "more than"),
    ("allowed", "prohibited"),
    ("always", "never"),
)
"""What a comparison is turned round with: the opposite terms the claim check also contrasts, and bounds and
permissions that a claim may state in the other's words ("at most" is "not more than", 許可されない is 禁止), so the
check leaves those to polarity and ``bound_reversed``."""
_DIGITS = re.compile(r"\d[\d,]*(?:\.\d+)?")
_CLOCK_HOUR = re.compile(r"(\d{1,2})(?=:\d{2}|時)")
_ERA_YEAR = re.compile(r"(明治|大正|昭和|平成|令和)(\d+|元)年")
_YEAR = re.compile(r"(?<!\d)(1[89]\d\d|20\d\d)(?!\d)")
_MONTH = re.compile(r"(?<!\d)(\d{1,2})(?=月)")
_PERCENT = re.compile(r"%|％|パーセント|percent", re.IGNORECASE)

Change = tuple[Kind, int, str, str]  # kind, start in the statement, original text, replacement


@dataclass(frozen=True, slots=True)
class Perturbation:
    """A false statement and exactly what was changed to make it."""

    statement: str
    kind: Kind
    original: str
    replacement: str


def perturb(statement: str, document: Sequence[str], rng: random.Random) -> Perturbation | None:
    """A false, well-formed variant of a supported ``statement``, or None when no safe change is found.

    Args:
        statement: a statement the document supports.
        document: the texts of the document's chunks (the change must appear in none of them; names and
            identifiers to swap in come from them).
        rng: randomness for which change to try first.

    Returns:
        The perturbation: one fact, the polarity or one comparison changed, never stated in the document.
    """
    corpus = [normalize(text) for text in document]
    names_from = tuple(document)  # as written: its line breaks tell headings from sentences
    makers: list[Callable[[str, Sequence[str], random.Random], list[Change]]] = [
        partial(_fact_changes, names_from=names_from),
        _comparisons,
    ]
    rng.shuffle(makers)
    makers.append(_polarity)  # a flipped ending is the plainest change: the last resort
    for maker in makers:
        for kind, start, original, replacement in maker(statement, corpus, rng):
            changed = statement[:start] + replacement + statement[start + len(original) :]
            window = normalize(changed[max(0, start - WINDOW) : start + len(replacement) + WINDOW])
            if not is_well_formed(changed, statement):
                continue
            if not any(window in text or normalize(changed) in text for text in corpus):
                return Perturbation(changed, kind, original, replacement)
    return None


def changed_value(fact: Fact, rng: random.Random) -> str | None:
    """``fact.text`` with its value changed within its kind (None for names and identifiers, which are swapped).

    Args:
        fact: a time, date, version or number as written in a statement.
        rng: randomness for the size and direction of the change.

    Returns:
        The new text, or None when the fact has nothing this function can change.
    """
    text = fact.text
    if fact.kind == "time":
        return _sub_first(_CLOCK_HOUR, text, lambda h: _shift_hour(h, rng))
    if fact.kind == "date":
        if _ERA_YEAR.search(text):
            return _ERA_YEAR.sub(lambda m: _shift_era(m, rng), text, count=1)
        if _YEAR.search(text):
            return _sub_first(_YEAR, text, lambda y: str(int(y) + rng.choice((-3, -2, -1, 1, 2, 3))))
        return _sub_first(_MONTH, text, lambda m: str((int(m) - 1 + rng.choice((1, 2, 3))) % 12 + 1))
    if fact.kind == "version":
        head, _, last = text.rpartition(".")
        digits = re.match(r"\d+", last)
        if not head or not digits:
            return None
        step = int(digits.group()) + (rng.choice((-1, 1)) if int(digits.group()) > 0 else 1)
        return f"{head}.{step}{last[digits.end() :]}"
    if fact.kind == "number":
        return _sub_first(_DIGITS, text, lambda n: _changed_number(n, bool(_PERCENT.search(text)), rng))
    return None


def _fact_changes(
    statement: str, corpus: Sequence[str], rng: random.Random, names_from: tuple[str, ...] = ()
) -> list[Change]:
    facts = facts_of(statement)
    wanted = any(f.kind in ("name", "identifier") for f in facts)
    pool = _swappable(names_from or tuple(corpus)) if wanted else {}
    changes: list[Change] = []
    for fact in facts:
        start = statement.find(fact.text)
        if start < 0:
            continue
        if fact.kind in ("name", "identifier"):
            others = list(dict.fromkeys(f.text for f in pool.get(fact.kind, []) if f.value != fact.value))
            others = [o for o in others if o not in statement and _shape(o) == _shape(fact.text)]
            replacement = rng.choice(others) if others else None
        else:
            replacement = changed_value(fact, rng)
        if replacement and replacement != fact.text:
            changes.append((fact.kind, start, fact.text, replacement))
    rng.shuffle(changes)
    return changes


@lru_cache(maxsize=4)
def _swappable(corpus: tuple[str, ...]) -> dict[str, list[Fact]]:
    """The names and identifiers the document's sentences use, by kind (cached: one quiz perturbs several
    statements of it). Headings are left out: "Some Words On Spacing" or "SPACE" there is a title, not a name."""
    pool: dict[str, list[Fact]] = {}
    for text in corpus:
        for line in text.splitlines():
            if _HEADING.match(line.strip()):
                continue
            for fact in facts_of(line):
                if fact.kind in ("name", "identifier"):
                    pool.setdefault(fact.kind, []).append(fact)
    return pool


def _shape(name: str) -> tuple[bool, int]:
    """What a swapped-in name must look like to pass for the original: an acronym for an acronym, as many words."""
    return name.isupper(), len(name.split())


def _polarity(statement: str, corpus: Sequence[str], rng: random.Random) -> list[Change]:
    core = statement.rstrip("。．.!！ ")
    for ending, flipped in _JA_ENDINGS:
        if core.endswith(ending):
            return [("polarity", len(core) - len(ending), ending, flipped)] if flipped else []
    for pattern, flipped in _EN_FLIPS:
        match = re.search(pattern, statement)
        if match:
            return [("polarity", match.start(), match.group(), flipped)]
    return []


def _comparisons(statement: str, corpus: Sequence[str], rng: random.Random) -> list[Change]:
    changes: list[Change] = []
    for a, b in COMPARISONS:
        for word, other in ((a, b), (b, a)):
            pattern = rf"\b{re.escape(word)}\b" if word.isascii() else re.escape(word)
            match = re.search(pattern, statement, re.IGNORECASE if word.isascii() else 0)
            if match:
                replacement = other.capitalize() if match.group()[0].isupper() else other
                changes.append(("comparison", match.start(), match.group(), replacement))
    rng.shuffle(changes)
    return changes


def _sub_first(pattern: re.Pattern[str], text: str, change: Callable[[str], str | None]) -> str | None:
    match = pattern.search(text)
    if match is None:
        return None
    new = change(match.group(1) if pattern.groups else match.group())
    if new is None:
        return None
    start, end = match.span(1) if pattern.groups else match.span()
    return text[:start] + new + text[end:]


def _shift_hour(hours: str, rng: random.Random) -> str:
    shifted = (int(hours) + rng.choice((-3, -2, -1, 1, 2, 3, 6))) % 24
    return str(shifted).zfill(len(hours))


def _shift_era(match: re.Match[str], rng: random.Random) -> str:
    era, year = match.group(1), match.group(2)
    current = 1 if year == "元" else int(year)
    options = [y for y in (current - 2, current - 1, current + 1, current + 2) if 1 <= y <= ERAS[era][1]]
    new = rng.choice(options)
    return f"{era}{'元' if new == 1 else new}年"


def _changed_number(raw: str, percent: bool, rng: random.Random) -> str:
    """A different number written like ``raw``: same grouping and decimals, a nearby year, a share within 100 %."""
    grouped = "," in raw
    plain = raw.replace(",", "")
    decimals = len(plain.split(".")[1]) if "." in plain else 0
    value = float(plain)
    if decimals:
        new = value * rng.choice((0.5, 1.5, 2.0))
    elif 1000 <= value <= 2100 and not grouped:  # a year: a nearby year, not 2721 for 1814
        new = value + (rng.choice((-10, 10)) if value % 10 == 0 else rng.choice((-3, -2, -1, 1, 2, 3)))
    elif value <= 12:
        new = value + rng.choice((1, 2)) if value < 3 or rng.random() < 0.5 else value - 1
    else:
        new = value * rng.choice((0.5, 1.5, 2.0))
        zeros = len(plain) - len(plain.rstrip("0"))
        new = round(new / 10**zeros) * 10**zeros if zeros else round(new)
        if percent and value <= 100 and new > 100:
            new = value / 2 if value > 50 else value + 25
    return f"{new:,.{decimals}f}" if grouped else f"{new:.{decimals}f}"
