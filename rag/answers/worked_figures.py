"""A figure the question asks to be worked out: the difference of two figures the answer states and its citations
hold ("How many days apart are those two deadlines?" answered with 270 and 165 days). A small model copies figures
faithfully and gets sums wrong or leaves them out, so the engine does the subtraction itself, shows how, and marks
the line as computed (``ClaimVerdict.status == "computed"``): no passage states the result.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation

from rag.answers.facts import Fact, facts_of
from rag.answers.prompts import Language
from rag.records import ClaimVerdict

_COMPARATIVES = (
    "more|less|fewer|longer|shorter|later|earlier|higher|lower|larger|smaller|bigger|greater|older|newer|cheaper"
)
_APART_EN = re.compile(r"\bapart\b|\bdifference (?:between|in)\b|\bdiffer by\b|\bgap between\b", re.IGNORECASE)
_HOW_MUCH_MORE_EN = re.compile(rf"\bhow (?:many|much|far)\b(?:\s+[\w-]+)?\s+(?:{_COMPARATIVES})\b", re.IGNORECASE)
_AGAINST_EN = re.compile(r"\bthan\b|\bcompared (?:with|to)\b", re.IGNORECASE)
"""A question that asks for a difference: "how many days apart", "the difference between", or "how much more …
than …". Without a second thing to compare with, "how many more days can the President extend it?" asks for one
figure, not for the gap between two."""
_APART_JA = re.compile(r"差(?:は|が|を|額|分)|何\S{0,4}?差")
_HOW_MUCH_MORE_JA = re.compile(
    r"(?:何|どれ(?:だけ|くらい|ぐらい|ほど))\S{0,4}?(?:多い|少ない|長い|短い|早い|遅い|高い|安い|低い|離れ|違)"
)
_AGAINST_JA = re.compile(r"より|と比べ|に比べ|と比較")
"""The same in Japanese: "差は", "何日の差", "AはBより何日長い" (not 差別 or 差し替え, nor "あと何日多く…")."""

_LINE: dict[Language, str] = {
    "ja": "引用した数値からの計算: {larger} − {smaller} = {result}",
    "en": "Worked out from the cited figures: {larger} − {smaller} = {result}.",
}


def asks_difference(question: str) -> bool:
    """Whether ``question`` asks how far apart two figures are."""
    if _APART_EN.search(question) or _APART_JA.search(question):
        return True
    english = _HOW_MUCH_MORE_EN.search(question) and _AGAINST_EN.search(question)
    return bool(english or (_HOW_MUCH_MORE_JA.search(question) and _AGAINST_JA.search(question)))


def worked_difference(question: str, claims: Sequence[ClaimVerdict], language: Language) -> ClaimVerdict | None:
    """The line that works out the difference a question asks for, as a ``computed`` verdict citing the passages
    its figures came from; None when the question asks for none, or the answer's supported claims do not state
    exactly two figures in one unit besides those of the question (three deadlines leave which two ambiguous; a
    figure without a unit may be a section number)."""
    if not asks_difference(question):
        return None
    asked = {f.value for f in facts_of(question)}
    found: dict[str, tuple[Fact, tuple[int, ...]]] = {}
    for claim in claims:
        if claim.status not in ("verified", "reattributed"):
            continue
        for fact in facts_of(claim.sentence):
            if fact.kind == "number" and fact.value not in asked and _amount(fact) is not None:
                found.setdefault(fact.value, (fact, claim.cited))
    units = {_unit(fact) for fact, _ in found.values()}
    if len(found) != 2 or len(units) != 1 or units == {""}:
        return None
    (first, first_cited), (second, second_cited) = found.values()
    larger, smaller = sorted((first, second), key=lambda f: _amount(f) or 0, reverse=True)
    result = _written_like(larger, (_amount(larger) or Decimal(0)) - (_amount(smaller) or Decimal(0)))
    line = _LINE[language].format(larger=larger.text, smaller=smaller.text, result=result)
    return ClaimVerdict(line, "computed", tuple(dict.fromkeys((*first_cited, *second_cited))))


def _unit(fact: Fact) -> str:
    """The unit of a number fact ("day" of "270 day"; "" for a bare number)."""
    return fact.value.partition(" ")[2]


def _amount(fact: Fact) -> Decimal | None:
    try:
        return Decimal(fact.value.partition(" ")[0])
    except InvalidOperation:
        return None


_NUMBER_IN_TEXT = re.compile(r"\d[\d,]*(?:\.\d+)?")


def _amount_written(number: str) -> Decimal | None:
    try:
        return Decimal(unicodedata.normalize("NFKC", number).replace(",", ""))
    except InvalidOperation:
        return None


def _written_like(model: Fact, amount: Decimal) -> str:
    """``amount`` written as ``model``'s text writes its number: "270 days" gives "105 days", "$390,000,000" gives
    "$380,000,000"."""
    written = _NUMBER_IN_TEXT.search(model.text)
    if written is None or _amount_written(written.group()) != _amount(model):  # "1.2 billion", "3万"
        return f"{amount:,}" + (f" {_unit(model)}" if _unit(model) else "")
    grouped = "," in written.group()
    places = len(written.group().partition(".")[2])
    number = f"{amount:,.{places}f}" if grouped else f"{amount:.{places}f}"
    return model.text[: written.start()] + number + model.text[written.end() :]
