"""Whether a statement's times, dates, eras and numbers can exist at all.

A false quiz statement must be false because of what it says, not because of how it is written: "03:2", the 13th
month, 令和0年 or "1,00" give the answer away. ``malformed_parts`` finds such expressions; an expression the
cited sentence itself contains is the document's own notation (a ratio "3:2", a section "1.2.10") and passes.
"""

from __future__ import annotations

import calendar
import re

from rag.answers.facts import ERAS
from rag.answers.faithfulness import normalize

_CLOCK = re.compile(r"(?<![\d:.,/])(\d{1,3}):(\d+)(?::(\d+))?(?![\d:])")
_JA_CLOCK = re.compile(r"(?<!\d)(\d+)時(?:(\d+)分)?")
_YMD = re.compile(r"(?<![\d.])(\d{4})([-/.年])(\d{1,2})(?:\2|月)(\d{1,2})日?(?!\d|\.\d)")
_YM = re.compile(r"(?<!\d)(\d{4})年(\d{1,2})月(?!\d)")
_MD = re.compile(r"(?<!\d)(\d{1,2})月(\d{1,2})日")
_ERA = re.compile(r"(明治|大正|昭和|平成|令和)(\d+|元)年")
_GROUPED = re.compile(r"(?<![\d.,])\d[\d,]*\d(?![\d,])")
_GOOD_GROUPING = re.compile(r"\d{1,3}(?:,\d{3})+")
_ALWAYS_PERCENT = re.compile(r"(?:全体|総数)の(\d+(?:\.\d+)?)\s*(?:%|％)")


def malformed_parts(statement: str, quote: str = "") -> list[str]:
    """The expressions in ``statement`` that cannot exist, unless ``quote`` (the cited sentence) has them too.

    Args:
        statement: a quiz statement.
        quote: the sentence(s) it cites; their own notation is never called malformed.

    Returns:
        The malformed expressions as written, in order (empty when the statement is well-formed).
    """
    text = normalize(statement)
    cited = normalize(quote)
    found = [part for part in _malformed(text) if part not in cited]
    return list(dict.fromkeys(found))


def is_well_formed(statement: str, quote: str = "") -> bool:
    """Whether :func:`malformed_parts` finds nothing."""
    return not malformed_parts(statement, quote)


def _malformed(text: str) -> list[str]:
    bad: list[str] = []
    for match in _CLOCK.finditer(text):
        hours, minutes, seconds = match.group(1), match.group(2), match.group(3)
        if not _clock_ok(hours, minutes) or (seconds is not None and (len(seconds) != 2 or int(seconds) > 59)):
            bad.append(match.group())
    for match in _JA_CLOCK.finditer(text):
        hours, minutes = int(match.group(1)), match.group(2)
        if hours > 24 or (minutes is not None and int(minutes) > 59):
            bad.append(match.group())
    for match in _YMD.finditer(text):
        if not _date_ok(int(match.group(1)), int(match.group(3)), int(match.group(4))):
            bad.append(match.group())
    for match in _YM.finditer(text):
        if not 1 <= int(match.group(2)) <= 12:
            bad.append(match.group())
    for match in _MD.finditer(text):
        if not _date_ok(2024, int(match.group(1)), int(match.group(2))):  # a leap year: 2月29日 can exist
            bad.append(match.group())
    for match in _ERA.finditer(text):
        year = match.group(2)
        if year != "元" and not 1 <= int(year) <= ERAS[match.group(1)][1]:
            bad.append(match.group())
    for match in _GROUPED.finditer(text):
        number = match.group()
        if "," in number and not _GOOD_GROUPING.fullmatch(number) and not _is_list(number):
            bad.append(number)
    for match in _ALWAYS_PERCENT.finditer(text):
        if float(match.group(1)) > 100:
            bad.append(match.group())
    return bad


def _clock_ok(hours: str, minutes: str) -> bool:
    if len(minutes) != 2 or len(hours) > 2:
        return False
    h, m = int(hours), int(minutes)
    return m <= 59 and (h < 24 or (h == 24 and m == 0))


def _date_ok(year: int, month: int, day: int) -> bool:
    return 1 <= month <= 12 and 1 <= day <= calendar.monthrange(year, month)[1]


def _is_list(number: str) -> bool:
    """``1,2,3`` enumerates small numbers (sections, items); it is not a badly grouped thousand."""
    parts = number.split(",")
    return all(part and len(part) <= 2 and (part == "0" or not part.startswith("0")) for part in parts)
