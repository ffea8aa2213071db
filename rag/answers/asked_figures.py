"""Whether an answer gives the figure its question asks for: a count ("how many", 何件, いくつ) or another value
written in figures (a rate, an amount, a fraction, a version, 何分の1, いくら). A true sentence that gives none is no
answer, however well its passage supports it; ``rag.answers.verification`` refuses such an answer's point.
"""

from __future__ import annotations

import re

from rag.answers.facts import facts_of
from rag.answers.faithfulness import content_tokens
from rag.answers.worked_figures import asks_count

_NONE = re.compile(r"\b(?:no|none|nobody|zero|neither)\b|ゼロ|いない|いません|ない|ません|なし|無し", re.IGNORECASE)
"""Words by which an answer says there are none: a count too."""
_ONE = re.compile(r"\bone\b(?!\s+(?:of|or|by|another|and(?!\s+only))\b)|\ba single\b", re.IGNORECASE)
"""Words by which an answer says there is one ("Only one Toshiba employee attended"), which the facts do not read as
a number ("one" is as often a pronoun); "one of" picks, and "one or all", "one by one" say how, not how many: "One or
all tracks may be TRANSPOSED" answered how many notes a LinnSequencer disk holds."""
NO_COUNT_REASON = "the question asks how many, and the answer gives no number"
NO_AMOUNT_REASON = "the question asks for a figure ({}), and the answer gives none"
OTHER_UNIT_REASON = "the question asks for a figure in {}, and the answer gives one in {}"

_RATE = r"(?:[a-z]+[- ])?[a-z]+[- ]per[- ][a-z]+"
_ASKED_UNIT = re.compile(rf"\bin\s+({_RATE})\s*[,?]", re.IGNORECASE)
"""A question's words for the rate it wants its figure in, set off by a comma or ending it: "What is the fastest
tempo, in beats per minute, that…". A rate, not a plain unit: "2 minutes" answers a question asked in seconds, where
"30 frames per second" answers none asked in beats per minute."""
_FIGURE_UNIT = re.compile(rf"\d\s*({_RATE})\b", re.IGNORECASE)
"""A figure's rate written after it: "30 frames per second"."""

_ASKS_AMOUNT = re.compile(
    r"\bhow (?:much|old)\b"
    r"|\b(?:what|which)\s+(?:(?!(?:do|does|did|can|could|will|would|should)\b)[\w-]+\s+){0,2}?"
    r"(?:percentage|percent|proportion|fraction|ratio|rate|amount|sum|version)\b"
    r"(?!\s+(?:control|limit|limiter|limiting)\b)"
    r"|いくら|何(?:円|ドル|パーセント|[%％]|割|倍|歳|年|か月|ヶ月|カ月|日間|時間|分間|秒|ミリ|センチ"
    r"|メートル|キロ|グラム|バイト|ビット|ポイント|度|分の|桁|バージョン)",
    re.IGNORECASE,
)
"""A question that asks for a value written in figures: an amount of money, a rate, a share, a fraction, a version,
an age, a year or a duration, a size in some unit ("What baud rate…", "何分の1", "何年間", "いくら"); not the thing a
word of them names ("which version control system", "what rate limiter")."""
_ANY_AMOUNT = re.compile(
    r"\b(?:all|every|free|unlimited|half|twice|double|nothing)\b|全て|すべて|全部|無料|無制限|半分|倍", re.IGNORECASE
)
"""Words by which an answer gives an amount without a figure ("free of charge", "all of it", "半分")."""


def count_unsaid(answer: str, question: str) -> bool:
    """Whether ``answer`` leaves unsaid the count a "how many" question asks for: no figure (a number, or a code
    holding digits: "いくつ" also asks for a value such as 0x2E7F), and no word saying there are none, in any of its
    sentences. Asked how many Toshiba employees attended the 2018-06-13 meeting, the model answered "Shane Coughlan
    attended the meeting", which the attendee list supports and which answers nothing."""
    return asks_count(question) and not _gives_figure(answer)


def amount_unsaid(answer: str, question: str) -> str:
    """The words by which ``question`` asks for a figure other than a count, when ``answer`` gives none in any of its
    sentences ("" otherwise): no number, code holding digits, nor a word that gives an amount or says there is none.
    Asked what baud rate mTower's debug UART uses (the description gives none), the model answered that a submenu
    selects the UART, "UART0 to UART5 are available choices": verified, and no answer."""
    found = _ASKS_AMOUNT.search(question)
    if not found or _gives_figure(answer) or _ANY_AMOUNT.search(answer):
        return ""
    return found.group()


def unit_unsaid(answer: str, question: str) -> tuple[str, str] | None:
    """``(asked, given)`` when ``question`` asks for a figure in a rate ("…, in beats per minute, …") and every figure
    of ``answer`` written with a rate is in another one; None otherwise. Asked the fastest tempo in beats per minute
    (the brochure gives none), "The LinnSequencer can be set to TEMPO in BEATS-PER-MINUTE or FRAMES-PER-BEAT at 24,
    25, or 30 frames per second" was verified, and gave a frame rate."""
    asked = _ASKED_UNIT.search(question)
    if asked is None:
        return None
    wanted = content_tokens(asked.group(1))  # a rate's words, singular, "per" left out
    given = [found.group(1) for found in _FIGURE_UNIT.finditer(answer)]
    if not given or any(content_tokens(unit) & wanted for unit in given):
        return None
    return asked.group(1), given[-1]


def figure_unsaid(answer: str, question: str) -> str:
    """Why ``answer`` answers nothing when its question asks for a figure it does not give ("" when it gives one, or
    the question asks for none): the answer's point, however true, is then no answer (``count_unsaid``,
    ``amount_unsaid``, ``unit_unsaid``)."""
    if count_unsaid(answer, question):
        return NO_COUNT_REASON
    if amount := amount_unsaid(answer, question):
        return NO_AMOUNT_REASON.format(amount)
    if units := unit_unsaid(answer, question):
        return OTHER_UNIT_REASON.format(*units)
    return ""


def _gives_figure(answer: str) -> bool:
    """Whether ``answer`` gives a figure (a number, or a code holding digits), says there are none, or says one."""
    figures = [f for f in facts_of(answer) if f.kind != "name" and any(c.isdigit() for c in f.value)]
    return bool(figures or _NONE.search(answer) or _ONE.search(answer))
