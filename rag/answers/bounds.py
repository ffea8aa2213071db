"""Numeric bounds: the numbers a text bounds from below ("more than 16", "16チャンネル以上") or from above ("up to 16",
"not more than 180", "90日以内"), and a claim that turns the bound its evidence gives. "not more than" bounds, it
does not deny: ``rag.answers.polarity`` leaves it to these.
"""

from __future__ import annotations

import re

from rag.answers.facts import plain_text

_NUMBER = r"(\d[\d,]*(?:\.\d+)?)"
_BELOW_BOUND = re.compile(
    rf"(?<!\bnot )(?<!\bno )\b(?:more|greater|longer|larger|higher) than\s+{_NUMBER}"
    rf"|\b(?:over|above|exceeding|beyond)\s+{_NUMBER}|{_NUMBER}\s*[^\d\s、。]{{0,6}}?(?:以上|超|を超え)"
    rf"|{_NUMBER}[A-Za-z\s-]{{0,16}}?\bor (?:more|greater|higher|longer|older|above|over)\b",
    re.IGNORECASE,
)
"""A number bounded from below: "more than 16", "over 90", "16チャンネル以上", "18 years or older" (not "not more
than 180")."""
_ABOVE_BOUND = re.compile(
    rf"\b(?:up to|at most|no more than|not more than|not to exceed|a maximum of|one of|within)\s+{_NUMBER}"
    rf"|\b(?:less|fewer|lower|shorter|smaller) than\s+{_NUMBER}|{_NUMBER}\s*[^\d\s、。]{{0,6}}?(?:以下|まで|以内|未満)"
    rf"|{_NUMBER}[A-Za-z\s-]{{0,16}}?\bor (?:less|fewer|lower|shorter|younger|below|under)\b",
    re.IGNORECASE,
)
"""A number bounded from above: "up to 16", "not more than 180", "one of 16", "fewer than 150", "90日以内",
"1,850 feet or less"."""


def bounded_below(text: str) -> set[str]:
    """The numbers ``text`` bounds from below (commas dropped)."""
    return _bounded(text, _BELOW_BOUND)


def bounded_above(text: str) -> set[str]:
    """The numbers ``text`` bounds from above (commas dropped)."""
    return _bounded(text, _ABOVE_BOUND)


def _bounded(text: str, bound: re.Pattern[str]) -> set[str]:
    return {next(g for g in m.groups() if g).replace(",", "") for m in bound.finditer(plain_text(text))}


_FLOOR = re.compile(r"\b(?:minimum|at least|no less than|not less than)\b|最低|最小|下限", re.IGNORECASE)
"""Words by which a claim calls its number a least value, wherever the number stands ("the minimum … is 180 days")."""
_CEILING = re.compile(r"\b(?:maximum|at most|up to|no more than)\b|最大|最長|上限", re.IGNORECASE)
"""Words by which a claim calls its number a greatest value."""


def bound_reversed(claim: str, evidence: str) -> tuple[str, str] | None:
    """``(claimed, stated)`` for a number the claim bounds from below where the evidence bounds it from above only
    ("for more than 180 days" against "for a period of not more than 180 days": "not … than" is a bound, not a
    denial, so polarity agrees), or the other way round; None when there is none. A claim that calls its number
    the minimum ("the minimum … is 180 days") bounds it from below, one that calls it the maximum from above."""
    above, below = bounded_above(evidence), bounded_below(evidence)
    numbers = {n.replace(",", "") for n in re.findall(_NUMBER, plain_text(claim))}
    floor, ceiling = bool(_FLOOR.search(claim)), bool(_CEILING.search(claim))
    stated_below = bounded_below(claim)
    claimed_below = stated_below | (numbers if floor and not ceiling else set())
    claimed_above = bounded_above(claim) | (numbers if ceiling and not floor else set())
    if flipped := claimed_below & (above - below):
        number = min(flipped)
        return f"{'more than' if number in stated_below else 'at least'} {number}", f"at most {number}"
    if flipped := claimed_above & (below - above):
        return f"at most {min(flipped)}", f"more than {min(flipped)}"
    return None
