"""Facts of a text that a claim check compares: numbers with their units, dates, times, versions, API and command
identifiers, Latin-script names.

``facts_of`` finds them in canonical form, so that the same fact written differently compares equal: full-width or
half-width digits, ``1.2 billion`` = ``1,200,000,000`` = ``12億``, ``三つ`` = 3, ``令和6年`` = 2024, ``03:00`` =
``3時``, ``2.0`` (a version) = 2. Whether one fact is among another text's is ``rag.answers.fact_matching``'s to say.
Identifiers and names are read, and found, by ``rag.answers.names``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Literal

from rag.answers.faithfulness import content_tokens
from rag.answers.names import (
    CODE,
    JA_LETTER_DESIGNATION,
    LETTER_DESIGNATION,
    identifiers_and_names,
    overlaps,
)
from rag.answers.number_words import numbers_in_words

FactKind = Literal["number", "date", "time", "version", "identifier", "name"]


@dataclass(frozen=True, slots=True)
class Fact:
    """One checkable fact of a text.

    Attributes:
        kind: what it is (``number`` also covers amounts, counts, durations and percentages).
        value: canonical form: a number's value without grouping (``390000000``) with its unit after a space when it
            has one (``45 day``, ``30 %``, ``390000000 usd``); ``3:00`` for times; the dotted string for versions;
            the text itself for identifiers and names.
        text: the fact as written.
    """

    kind: FactKind
    value: str
    text: str

    @property
    def unit(self) -> str:
        return self.value.partition(" ")[2] if self.kind in ("number", "date") else ""

    @property
    def magnitude(self) -> str:
        return self.value.partition(" ")[0] if self.kind in ("number", "date") else self.value


# ---- normalization ---------------------------------------------------------------------------------------

_INVISIBLE = re.compile("[\u200b-\u200d\u2060\ufeff\u00ad]")
_MARKER = re.compile(r"\[\d+\]")


def plain_text(text: str) -> str:
    """NFKC (full-width digits and letters become ASCII), invisible joiners removed, citation markers dropped."""
    return _MARKER.sub(" ", _INVISIBLE.sub("", unicodedata.normalize("NFKC", text)))


# ---- numbers -----------------------------------------------------------------------------------------------

_SCALE_WORDS = {
    "thousand": 10**3,
    "million": 10**6,
    "billion": 10**9,
    "trillion": 10**12,
    "k": 10**3,
    "m": 10**6,
    "bn": 10**9,
}
_JA_SCALES = {"千": 10**3, "万": 10**4, "億": 10**8, "兆": 10**12}
MONTH_OF_YEAR = "month-of-year"
"""The unit of a month named in a date: "10月", "October", the 10 of "2024-10-01". A length of time in months is
written "10か月" or "10 months" (``month``)."""
_UNITS: tuple[tuple[str, str], ...] = (
    # (pattern written after a number, canonical unit); longer words first
    # a place in an order: "2行目" is the second row, not a measure, and "1行目" is no "1シート"
    (r"番目|回目|日目|年目|人目|件目|個目|つ目", "ordinal"),
    (r"行目", "row"),
    (r"列目", "column"),
    (r"percent|per cent|パーセント|%", "%"),
    (r"dollars?|usd|ドル", "usd"),
    (r"yen|jpy|円", "jpy"),
    (r"euros?|eur|ユーロ", "eur"),
    (r"milliseconds?|msec|ms|ミリ秒", "ms"),
    (r"seconds?|secs?|秒間|秒", "s"),
    (r"minutes?|mins?|分間", "min"),
    (r"hours?|hrs?|時間", "h"),
    (r"days?|日間", "day"),
    (r"weeks?|週間", "week"),
    (r"months?|か月|ヶ月|ケ月|カ月|ヵ月|箇月", "month"),
    (r"years?|年間|年度|年", "year"),
    (r"kilobytes?|kb|キロバイト", "kb"),
    (r"megabytes?|mb|メガバイト", "mb"),
    (r"gigabytes?|gb|ギガバイト", "gb"),
    (r"terabytes?|tb|テラバイト", "tb"),
    (r"bytes?|バイト", "byte"),
    (r"kilometers?|kilometres?|km|キロメートル", "km"),
    (r"centimeters?|centimetres?|cm|センチメートル|センチ", "cm"),
    (r"millimeters?|millimetres?|mm|ミリメートル", "mm"),
    (r"meters?|metres?|メートル", "meter"),
    (r"feet|foot|ft", "foot"),
    (r"inch(?:es)?|インチ", "inch"),
    (r"miles?|マイル", "mile"),
    (r"yards?|ヤード", "yard"),
    (r"kilograms?|kg|キログラム", "kg"),
    (r"pounds?|lbs?", "pound"),
    # counters that say what is counted (a count of cases is no count of sessions); item counters such as
    # つ/個/項目 stay unitless, since "8つ" and "8項目" count the same things
    (r"people|persons?|人|名", "person"),
    (r"compan(?:y|ies)|社", "company"),
    (r"cases?|件", "case"),
    (r"times|回", "times"),
    (r"歳", "age"),
    (r"倍", "fold"),
    (r"月", MONTH_OF_YEAR),
    (r"日", "day"),
)
_UNIT_NAMES: dict[str, re.Pattern[str]] = {
    unit: re.compile(
        rf"(?<![a-z])(?:{'|'.join(pattern for pattern, named in _UNITS if named == unit)})(?![a-z])", re.IGNORECASE
    )
    for unit in dict.fromkeys(named for _pattern, named in _UNITS)
}


IMPLIED_UNITS = frozenset({"ordinal", "row", "column", "year", "month", MONTH_OF_YEAR, "day"})
"""Units a text leaves implied with a bare number as often as it writes them: "released in 1994" is "1994年", the 12th
item of a list is "12番目"."""


def unit_named(unit: str, text: str) -> bool:
    """Whether ``text`` names ``unit`` (a canonical unit of ``Fact.value``) in any of its spellings, anywhere; an
    ``IMPLIED_UNITS`` one always counts as named."""
    names = _UNIT_NAMES.get(unit)
    return unit in IMPLIED_UNITS or names is None or names.search(text) is not None


COUNTERS = frozenset({"person", "company", "case", "times", "age", "fold"})
"""Units that say what is counted: a claim's count must meet the same counter in the evidence."""
SHARE_COUNT = "counted"
"""The unit of a number given with its share after it, as a chart gives the answers to a question ("37 (100.0%)",
"8 (21.6%)"): a count of the people, firms or answers the chart counts, whatever counter a claim gives it."""
_SHARE_AFTER = re.compile(r"\s?[(（]\d[\d.,]*\s?[%％]\s?[)）]")
_CURRENCY_PREFIX = {"$": "usd", "¥": "jpy", "€": "eur", "£": "gbp"}
_UNIT_RE = "|".join(f"(?:{pattern})" for pattern, _ in _UNITS)
_NUMBER = re.compile(
    r"(?P<ordinal>第\s?)?(?P<currency>[$¥€£])?\s?"
    r"(?<![A-Za-z0-9_.])(?<!\d,)(?P<digits>\d{1,3}(?:,\d{3})+|\d+)(?P<fraction>\.\d+)?(?![\d.]*\.\d)"
    r"(?:\s?(?P<scale>thousand|million|billion|trillion|bn|k|m)\b)?"
    r"(?P<ja>(?:\s?[千万億兆](?:\d+(?:\.\d+)?)?)*)"
    rf"(?:\s?(?P<unit>{_UNIT_RE})(?![A-Za-z]))?",
    re.IGNORECASE,
)
_JA_PIECE = re.compile(r"(\d+(?:\.\d+)?)?\s?([千万億兆])")
_KANJI_DIGITS = {"〇": 0, "零": 0, "一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_KANJI_SMALL = {"十": 10, "百": 100, "千": 1000}
_KANJI_NUMBER = re.compile(
    r"(?<![\u4e00-\u9fff])([〇零一二三四五六七八九十百千]+)(?=(つ|個|件|種類|種|回|人|名|台|本|枚|項目|章|節|条|点|歳|か月|ヶ月|年|日|週|分|秒|時間))"
)
_MONTHS = {
    m: i
    for i, m in enumerate(
        "january february march april may june july august september october november december".split(), 1
    )
}
_MONTH_NAME = re.compile(r"\b(" + "|".join(m.capitalize() for m in _MONTHS if m != "may") + r"|May(?= \d))\b")
_MONTH_ABBREVIATION = re.compile(r"\b(Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\.(?=\s?\d)")
"""A month abbreviated before a day or year ("Patented Jan. 27, 1880"): the month it names."""
ERAS: dict[str, tuple[int, int]] = {
    "令和": (2018, 99),  # runs on: a generous bound rather than a yearly edit
    "平成": (1988, 31),
    "昭和": (1925, 64),
    "大正": (1911, 15),
    "明治": (1867, 45),
}
"""Each Japanese era: the Gregorian year before its first year (令和1年 = 2019), and its last year number."""
_ERA_YEAR = re.compile(r"(令和|平成|昭和|大正|明治)\s?(元|\d{1,2})\s?年")
_ISO_DATE = re.compile(r"(?<![\d.])(\d{4})[-/.](\d{1,2})(?:[-/.](\d{1,2}))?(?!\d|\.\d)")
_TIME = re.compile(
    r"(?<![\d:.])(?P<clock_hours>\d{1,2}):(?P<clock_minutes>\d{2})(?::\d{2})?(?![\d:])"
    r"(?:\s?(?P<clock_half>[AaPp])\.?[Mm]\.?(?![A-Za-z]))?"
    r"|(?<![\d:.])(?P<bare_hours>\d{1,2})\s?(?P<bare_half>[AaPp])\.?[Mm]\.?(?![A-Za-z])"
    r"|(?P<ja_half>午前|午後)?\s?(?<!\d)(?P<ja_hours>\d{1,2})\s?時(?!間)(?:\s?(?P<ja_minutes>\d{1,2})\s?分)?"
)
"""A time of day: 17:00, 5:00 PM, 5 p.m., 午後5時30分 (a half of the day turns the hours into 24-hour ones)."""
_VERSION = re.compile(
    r"(?:\b(?:version|ver\.?|v)\s?|バージョン\s?)(\d+(?:\.\d+)+)|(?<![\d.])(\d+\.\d+\.\d+(?:\.\d+)*)(?![\d.])",
    re.IGNORECASE,
)


def _canonical(value: Decimal) -> str:
    text = f"{value.normalize():f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _unit_of(written: str | None) -> str:
    if not written:
        return ""
    for pattern, unit in _UNITS:
        if re.fullmatch(pattern, written, re.IGNORECASE):
            return unit
    return ""


def _ja_value(head: Decimal, tail: str) -> Decimal:
    """``3億9000万`` read as 390,000,000: the head number, then each [digits]scale piece."""
    total = Decimal(0)
    current = head
    pieces = _JA_PIECE.findall(tail)
    for digits, scale in pieces:
        if digits:  # "9000万" after "3億": close the previous group first
            total += current
            current = Decimal(digits)
        total += current * _JA_SCALES[scale]
        current = Decimal(0)
    return total + current


def _kanji_value(text: str) -> int | None:
    """A kanji numeral below 10,000 (``十二`` = 12, ``三百五`` = 305), or None when it is not one."""
    total, digit = 0, None
    for char in text:
        if char in _KANJI_DIGITS:
            if digit is not None:
                return None  # "一二" is not a numeral
            digit = _KANJI_DIGITS[char]
        else:
            total += (digit if digit is not None else 1) * _KANJI_SMALL[char]
            digit = None
    return total + (digit or 0)


def _numbers(text: str, taken: list[tuple[int, int]]) -> list[Fact]:
    facts: list[Fact] = []
    for match in _NUMBER.finditer(text):
        if overlaps(match.span("digits"), taken):
            continue
        try:
            value = Decimal(match["digits"].replace(",", "") + (match["fraction"] or ""))
        except InvalidOperation:
            continue
        if match["scale"]:
            scale = match["scale"].lower()
            if scale in ("k", "m") and not match["currency"]:
                continue  # "5 m" is metres, "2k" is ambiguous without a currency
            value *= _SCALE_WORDS[scale]
        if match["ja"].strip():
            value = _ja_value(value, match["ja"])
        unit = _CURRENCY_PREFIX.get(match["currency"] or "", "") or _unit_of(match["unit"])
        numeral_end = match.end("fraction") if match["fraction"] else match.end("digits")
        shared = not unit and _SHARE_AFTER.match(text, match.end()) is not None  # "37 (100.0%)" opening a line
        if not unit and not shared and _is_list_label(text, match.start("digits"), numeral_end):
            continue  # "1 「…」", "(2) …" or "3.0 Open Source …" at the start of a line numbers an item or a section
        if match["ordinal"]:
            unit = "ordinal"  # 第1回 is the first meeting, not one meeting
        elif shared:
            unit = SHARE_COUNT
        facts.append(Fact("number", f"{_canonical(value)} {unit}".strip(), match.group().strip()))
        taken.append(match.span())
    for match in _KANJI_NUMBER.finditer(text):
        if (number := _kanji_value(match[1])) is not None and not overlaps(match.span(), taken):
            facts.append(Fact("number", f"{number} {_unit_of(match[2])}".strip(), match[1]))
    facts.extend(Fact("number", str(value), written) for value, written in numbers_in_words(text))
    return facts


_LIST_LABEL_TAIL = re.compile(r"[.)）](?!\d)|[ \t]+(?=[「『“\"(（\[A-Z])")


LIST_LABEL_DIGITS = 3
"""Digits a list item's number has at most: "12 Options" numbers an item, "18720 Oxnard Street" is an address."""


def _is_list_label(text: str, start: int, end: int) -> bool:
    """Whether the number at ``text[start:end]`` numbers a list item: a number of at most ``LIST_LABEL_DIGITS``
    digits opens its line (after "(" at most) and a ".", ")" or a space follows it ("1 「…」", "(2) …", "3. …")."""
    if end - start > LIST_LABEL_DIGITS:
        return False
    if start > 0 and text[start - 1] in "(（":
        start -= 1
    before = text[:start].rstrip(" \t")
    return (not before or before.endswith("\n")) and bool(_LIST_LABEL_TAIL.match(text, end))


# ---- facts -------------------------------------------------------------------------------------------------


def facts_of(text: str) -> tuple[Fact, ...]:
    """The checkable facts of ``text``, in order of kind (dates, times, versions, numbers, identifiers, names).

    Args:
        text: any text; citation markers like ``[2]`` are ignored.

    Returns:
        The facts; a date contributes its year (``2024 year``) and month/day as numbers, an era year its western year.
    """
    text = plain_text(text)
    taken: list[tuple[int, int]] = []
    facts: list[Fact] = []
    for match in _ERA_YEAR.finditer(text):
        year = ERAS[match[1]][0] + (1 if match[2] == "元" else int(match[2]))
        facts.append(Fact("date", f"{year} year", match.group()))
        taken.append(match.span())
    for match in _ISO_DATE.finditer(text):
        if 1 <= int(match[2]) <= 12:
            facts.append(Fact("date", f"{int(match[1])} year", match.group()))
            facts.append(Fact("date", f"{int(match[2])} {MONTH_OF_YEAR}", match.group()))
            if match[3]:
                facts.append(Fact("date", f"{int(match[3])} day", match.group()))
            taken.append(match.span())
    for match in _MONTH_NAME.finditer(text):
        facts.append(Fact("date", f"{_MONTHS[match[1].lower()]} {MONTH_OF_YEAR}", match[1]))
        taken.append(match.span())
    for match in _MONTH_ABBREVIATION.finditer(text):
        month = next(i for name, i in _MONTHS.items() if name.startswith(match[1].lower()[:3]))
        facts.append(Fact("date", f"{month} {MONTH_OF_YEAR}", match.group()))
        taken.append(match.span())
    for match in _TIME.finditer(text):
        if (clock := _clock_time(match)) is not None:
            facts.append(Fact("time", clock, match.group().strip()))
            taken.append(match.span())
    for match in _VERSION.finditer(text):
        dotted = match[1] or match[2]
        facts.append(Fact("version", dotted, match.group()))
        taken.append(match.span())
    for match in LETTER_DESIGNATION.finditer(text):
        facts.append(Fact("identifier", f"{match[1].capitalize()} {match[2]}", match.group()))
        taken.append(match.span())
    for match in JA_LETTER_DESIGNATION.finditer(text):
        facts.append(Fact("identifier", match.group(), match.group()))
        taken.append(match.span())
    for match in CODE.finditer(text):
        if not overlaps(match.span(), taken):
            facts.append(Fact("identifier", " ".join(match.group().split()), match.group()))
            taken.append(match.span())
    facts += _numbers(text, taken)
    facts += [Fact(kind, value, written) for kind, value, written in identifiers_and_names(text, taken)]
    return tuple(facts)


def _clock_time(match: re.Match[str]) -> str | None:
    """``17:00`` for a ``_TIME`` match on the 24-hour clock; None for an hour or minute no clock shows."""
    hours = match["clock_hours"] or match["bare_hours"] or match["ja_hours"]
    minutes = int(match["clock_minutes"] or match["ja_minutes"] or 0)
    half = (match["clock_half"] or match["bare_half"] or "").lower() or {"午前": "a", "午後": "p"}.get(
        match["ja_half"] or "", ""
    )
    hour = int(hours)
    if minutes >= 60 or hour > 24 or (half and not 1 <= hour <= 12):
        return None
    if half:
        hour = hour % 12 + (12 if half == "p" else 0)
    return f"{hour}:{minutes:02d}"


def words_besides(text: str, facts: Sequence[Fact]) -> set[str]:
    """The content words of ``text`` that are not part of the way ``facts`` are written: what a claim or a clause
    says besides its numbers and names ("整数値パラメータ" of "\\kansujichar は整数値パラメータ")."""
    return content_tokens(text) - content_tokens(" ".join(f.text for f in facts))
