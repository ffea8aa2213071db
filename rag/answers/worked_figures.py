"""Figures a question asks to be worked out, which a small model gets wrong or leaves out: the difference of two figures
the answer states and its citations hold ("How many days apart are those two deadlines?" answered with 270 and 165
days), the sum of figures from passages of their own ("the combined total"), the count of a numbered list the
evidence shows, and the length of a span of clock times it gives. The engine works each out itself, shows how, and
marks the line as computed (``ClaimVerdict.status == "computed"``): no passage states the result.
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
    found = _stated_figures(question, claims)
    units = {_unit(fact) for fact, _ in found.values()}
    if len(found) != 2 or len(units) != 1 or units == {""}:
        return None
    (first, first_cited), (second, second_cited) = found.values()
    larger, smaller = sorted((first, second), key=lambda f: _amount(f) or 0, reverse=True)
    result = _written_like(larger, (_amount(larger) or Decimal(0)) - (_amount(smaller) or Decimal(0)))
    line = _LINE[language].format(larger=larger.text, smaller=smaller.text, result=result)
    return ClaimVerdict(line, "computed", tuple(dict.fromkeys((*first_cited, *second_cited))))


_TOTAL_EN = re.compile(r"\b(?:combined|in total|altogether|all together|add up|added together|sum of)\b", re.IGNORECASE)
_TOTAL_JA = re.compile(r"合計|合わせ|あわせ|総計|総額")
"""A question that asks for the sum of figures: "the combined total", "how much in total", 「合計」「合わせて」 (not
"the total amount for …", which names one figure)."""

_SUM_LINE: dict[Language, str] = {
    "ja": "引用した数値からの計算: {terms} = {result}",
    "en": "Worked out from the cited figures: {terms} = {result}.",
}


def asks_total(question: str) -> bool:
    """Whether ``question`` asks for the sum of several figures."""
    return bool(_TOTAL_EN.search(question) or _TOTAL_JA.search(question))


def worked_total(question: str, claims: Sequence[ClaimVerdict], language: Language) -> ClaimVerdict | None:
    """The line that adds up the figures a question asks the total of, as a ``computed`` verdict; None when the
    question asks for none, or the answer's supported claims do not state at least two figures in one unit (bare
    numbers aside) besides the question's own, resting on as many passages (two figures of one passage may be a
    whole and its part: "$390,000,000, of which $160,000,000")."""
    if not asks_total(question):
        return None
    # a bare number ("一つ目") counts nothing
    found = {value: figure for value, figure in _stated_figures(question, claims).items() if _unit(figure[0])}
    units = {_unit(fact) for fact, _ in found.values()}
    passages = list(dict.fromkeys(n for _fact, cited in found.values() for n in cited))
    if len(found) < 2 or len(units) != 1 or len(passages) < len(found):
        return None
    figures = [fact for fact, _cited in found.values()]
    total = sum((_amount(fact) or Decimal(0) for fact in figures), Decimal(0))
    line = _SUM_LINE[language].format(
        terms=" + ".join(fact.text for fact in figures), result=_written_like(figures[0], total)
    )
    return ClaimVerdict(line, "computed", tuple(passages))


def _stated_figures(question: str, claims: Sequence[ClaimVerdict]) -> dict[str, tuple[Fact, tuple[int, ...]]]:
    """The amounts the answer's supported claims state besides the question's own, once each, with the passages
    their claims cite."""
    asked = {f.value for f in facts_of(question)}
    found: dict[str, tuple[Fact, tuple[int, ...]]] = {}
    for fact, cited in _supported_numbers(claims):
        if fact.value not in asked and _amount(fact) is not None:
            found.setdefault(fact.value, (fact, cited))
    return found


def _supported_numbers(claims: Sequence[ClaimVerdict]) -> list[tuple[Fact, tuple[int, ...]]]:
    """The numbers the answer's supported claims state, each with the passages its claim cites."""
    supported = (c for c in claims if c.supported)
    return [(f, claim.cited) for claim in supported for f in facts_of(claim.sentence) if f.kind == "number"]


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


# ---- counting a numbered list ------------------------------------------------------------------------------

_ASKS_COUNT = re.compile(
    r"\bhow many\b(?!\s+(?:more|less|fewer)\b)|いくつ"
    r"|何(?:個|項目|つ|種類|か条|カ条|ヶ条|箇条|ステップ|段階|件|人|名|社|回|台|枚|冊|か国|カ国|ヶ国)",
    re.IGNORECASE,
)
"""A question that asks how many things there are: "how many check items", "いくつ", "何項目", "何件", "何人"."""
_INTRODUCES = re.compile(r"[:：—–]\s*$|以下|次の|下記|\bfollowing\b|\bbelow\b", re.IGNORECASE)
"""A sentence that introduces what comes after it: "…以下が含まれているかをチェックしてみてください。", "as
follows:"."""
_ITEM_LABEL = re.compile(r"^\s*(?:([(（])\s*([0-9０-９]{1,2})\s*[)）]|([0-9０-９]{1,2})([).）．])(?![0-9])|([①-⑳]))")
"""A numbered item's label at the start of a line: "(1)", "（２）", "3)", "4.", "⑤" (its groups tell the style)."""
LEAD_IN_CANDIDATES = 5
"""Evidence sentences, best first, that may introduce the list a count question asks about: as many as an answer
made of the evidence shows (``draft.FALLBACK_SENTENCES``), so the list counted follows a sentence the reader sees."""
CALLOUT_CHARS = 30
"""Longest line, unlabelled, that may stand between a list's lead-in and its first item (a text box's callout)."""
CLOSED_AFTER_CHARS = 100
"""Text after a list's last item, with no next item in it, for the list to count as ended there (not cut off where
the passages stop)."""

_COUNT_LINE: dict[Language, str] = {
    "ja": "引用した資料で数えた項目数: 「{lead_in}」に続く一覧は {first}〜{last} の {count}項目です",
    "en": "Counted in the cited passage: the list after “{lead_in}” numbers its items {first} to {last}: {count}.",
}


def asks_count(question: str) -> bool:
    """Whether ``question`` asks how many things there are."""
    return bool(_ASKS_COUNT.search(question))


def counted_list(
    question: str,
    claims: Sequence[ClaimVerdict],
    leads: Sequence[tuple[int, str, str]],
    language: Language,
) -> ClaimVerdict | None:
    """The line that counts the numbered list a "how many" question asks about, as a ``computed`` verdict; None when
    the question asks no count, a supported claim already gives a number, or no list can be counted for sure.

    A small model counts badly: asked how many checks the OSS pamphlet's checklist has, it answered "3" with items
    (1) to (8) in front of it. The list is the one right after one of the best evidence sentences that introduces
    what follows ("…以下が含まれているかをチェックしてみてください。"); its items must be numbered 1, 2, 3… in one
    style, and the text must go on past its last item without a next one (``CLOSED_AFTER_CHARS``), so a list that the
    passages cut off is not counted short.

    Args:
        question: the question.
        claims: the answer's verdicts.
        leads: ``(passage number, evidence sentence, the passage's text after that sentence with its next chunk's text
            appended)`` for the best evidence sentences, best first.
        language: the language to write the line in.
    """
    if not asks_count(question):
        return None
    asked = {f.value for f in facts_of(question)}
    if any(f.value not in asked for f, _cited in _supported_numbers(claims)):
        return None
    for n, sentence, following in leads[:LEAD_IN_CANDIDATES]:
        if not _INTRODUCES.search(sentence):
            continue
        labels = _numbered_items(following)
        if labels is not None:
            first, last = labels
            line = _COUNT_LINE[language].format(
                lead_in=sentence.strip(), first=first, last=last, count=_number_of(last)
            )
            return ClaimVerdict(line, "computed", (n,))
    return None


def _numbered_items(text: str) -> tuple[str, str] | None:
    """The first and last labels of the numbered list that ``text`` opens with (its first line labelled 1, after a
    short callout at most), when it is numbered without a gap and ends before ``text`` does (another list numbered
    from 1 may follow); None otherwise. A label repeated at once is the overlap of two chunks, read twice."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) > 1 and len(lines[0].strip()) <= CALLOUT_CHARS and _ITEM_LABEL.match(lines[0]) is None:
        lines = lines[1:]  # a callout drawn beside the lead-in ("これでバッチリ!", a text box) before item 1
    if not lines or (opening := _ITEM_LABEL.match(lines[0])) is None or _value(opening) != 1:
        return None
    style, last, last_label, end, stop = _style(opening), 1, opening.group().strip(), 0, len(lines)
    for i, line in enumerate(lines[1:], 1):
        label = _ITEM_LABEL.match(line)
        if label is None or _style(label) != style:
            continue
        value = _value(label)
        if value == last + 1:
            last, last_label, end = value, label.group().strip(), i
        elif value < last:  # numbered from 1 again: another list after this one
            stop = i
            break
        elif value != last:
            return None  # a gap: an item missing from the passages, or not one list
    after = "\n".join(lines[end + 1 : stop])
    if last < 2 or len(after) < CLOSED_AFTER_CHARS:
        return None
    return opening.group().strip(), last_label


def _style(label: re.Match[str]) -> str:
    """How a label is written: "(n)", "n" with its closing mark (")" or "."), or a circled digit."""
    if label.group(1):
        return "(n)"
    return "n" + unicodedata.normalize("NFKC", label.group(4)) if label.group(3) else "circled"


def _value(label: re.Match[str]) -> int:
    return int(_number_of(label.group()))


def _number_of(label: str) -> str:
    circled = re.search(r"[①-⑳]", label)
    if circled:
        return str(ord(circled.group()) - ord("①") + 1)
    return re.sub(r"\D", "", unicodedata.normalize("NFKC", label))


# ---- the length of a time span ----------------------------------------------------------------------------

_ASKS_DURATION = re.compile(
    r"\bhow long\b|\bhow many (?:hours|minutes)\b|\bduration\b|何時間|何分間?|どの(?:くらい|ぐらい)の時間|所要時間",
    re.IGNORECASE,
)
"""A question that asks how long something lasts: "how long did the meeting last", "何時間"."""
_TIME_SPAN = re.compile(r"(?<![\d:])(\d{1,2})[:：](\d{2})\s*[-–—~〜～]\s*(\d{1,2})[:：](\d{2})(?![\d:])")
"""A span between two clock times: "13:30-17:00", "9:00〜12:15"."""
_SPAN_LINE: dict[Language, str] = {
    "ja": "引用した時刻からの計算: {span} は {hours}時間{minutes}分",
    "en": "Worked out from the cited times: {span} is {hours} hours {minutes} minutes ({decimal} hours).",
}


def asks_duration(question: str) -> bool:
    """Whether ``question`` asks how long something lasts."""
    return bool(_ASKS_DURATION.search(question))


def timed_span(
    question: str, claims: Sequence[ClaimVerdict], shown: Sequence[tuple[int, str]], language: Language
) -> ClaimVerdict | None:
    """The length of the one span of clock times the shown evidence sentences give ("日時: 2018 年6 月13
    日13:30-17:00"), when the question asks how long something lasts and no supported claim gives a length; None when
    the sentences give no span or several (which one is meant is then unclear).

    Args:
        question: the question.
        claims: the answer's verdicts.
        shown: ``(passage number, sentence)`` for the evidence sentences shown, best first.
        language: the language to write the line in.
    """
    if not asks_duration(question):
        return None
    if any(_unit(f) in ("h", "min") for f, _cited in _supported_numbers(claims)):
        return None
    spans = {(n, m.group()): m for n, sentence in shown for m in _TIME_SPAN.finditer(sentence)}
    if len({span for _n, span in spans}) != 1:
        return None
    (n, span), match = next(iter(spans.items()))
    start_h, start_m, end_h, end_m = (int(g) for g in match.groups())
    minutes = (end_h * 60 + end_m - start_h * 60 - start_m) % (24 * 60)
    hours, rest = divmod(minutes, 60)
    decimal = f"{minutes / 60:.2f}".rstrip("0").rstrip(".")
    line = _SPAN_LINE[language].format(span=span, hours=hours, minutes=rest, decimal=decimal)
    return ClaimVerdict(line, "computed", (n,))
