"""Whether a fact of a claim is among the facts of another text: the same number in the same unit (a measure
written without its unit in a table, a count with what it counts), the same date, time or version, an identifier or
name found where the text writes it (``rag.answers.names``).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from rag.answers.facts import COUNTERS, MONTH_OF_YEAR, SHARE_COUNT, Fact, unit_named
from rag.answers.names import abbreviation_found, phrase_found


def significant_digits(fact: Fact) -> int:
    """How many digits a number's magnitude has, leading zeros and the decimal point aside (1 for "1MB", 2 for 32)."""
    return len(fact.magnitude.replace(".", "").lstrip("0"))


def same_fact(fact: Fact, other: Fact) -> bool:
    return fact.kind == other.kind and fact.value.casefold() == other.value.casefold()


def _counts_a_noun(number: Fact, text: str) -> bool:
    """Whether ``text`` writes the bare ``number`` as a count of the noun after it: "50の裁判例", "12の文字クラス"."""
    written = re.escape(number.text)
    return re.search(rf"(?<![\d.,]){written}\s?の[\u3400-\u9fff\u30a1-\u30fa]", text) is not None


def _same_magnitude(a: str, b: str) -> bool:
    """Equal as written or as numbers: "2.0" (a version the text names) is the 2 of "仕様2.0"."""
    if a == b:
        return True
    try:
        return Decimal(a) == Decimal(b)
    except InvalidOperation:
        return False


def fact_found(fact: Fact, evidence_facts: tuple[Fact, ...], evidence_text: str) -> bool:
    """Whether ``fact`` occurs among the evidence's facts (or, for names and identifiers, in its text)."""
    if fact.kind in ("identifier", "name"):
        folded = evidence_text.casefold()
        if phrase_found(fact.value, folded) or abbreviation_found(fact.value, evidence_text):
            return True
        # "Foreign Military Financing for Israel": a program and whom it is for, which a text may write apart
        # ("Foreign Military Financing Program" … "for Israel"); each is then a name the text must give
        parts = fact.text.split(" for ") if fact.kind == "name" else []
        return len(parts) > 1 and all(phrase_found(part, folded) for part in parts)
    for other in evidence_facts:
        if fact.kind == "time" and other.kind == "time":
            if fact.value == other.value:
                return True
        elif fact.kind in ("number", "date", "version") and other.kind in ("number", "date", "version"):
            if other.unit == MONTH_OF_YEAR and fact.unit != MONTH_OF_YEAR:
                # "10月" is October, no count of anything: "令和6年10月時点" is no evidence of "10 judgement factors"
                continue
            # a measure may be written without its unit in a table; a count of people or cases says what it counts;
            # a bare single digit is everywhere ("1シート" is no evidence of "1MB")
            loose = fact.unit not in COUNTERS and (not fact.unit or not other.unit)
            loose = loose and (fact.unit == other.unit or significant_digits(fact) >= 2)
            # the unit a claim gives a bare number must be named where the number is read (a table's header, the
            # sentence): "1678時間" is no reading of the patent scan's OCR line "Agadiontion Sled がover 1678."
            loose = loose and (not fact.unit or bool(other.unit) or unit_named(fact.unit, evidence_text))
            # a chart's "8 (21.6%)" counts what the claim's "8社" or "8" does; "50の裁判例" counts the cases of
            # "50件の裁判例" (two digits at least: a bare single digit before の is everywhere)
            counted = other.unit == SHARE_COUNT and (not fact.unit or fact.unit in COUNTERS)
            counted = counted or (
                fact.unit in COUNTERS
                and not other.unit
                and significant_digits(fact) >= 2
                and _counts_a_noun(other, evidence_text)
            )
            if _same_magnitude(fact.magnitude, other.magnitude) and (loose or counted or fact.unit == other.unit):
                return True
            if fact.kind == "version" and fact.value in other.text:
                return True
    return False
