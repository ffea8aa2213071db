"""Claim checks: does the cited text say what an answer (or a quiz statement) claims, fact by fact?

A verbatim quote proves only that the quote is in the document, not that the claim beside it is true. A claim is
supported by evidence only when

- every **fact** it states occurs in the evidence: numbers with their units (full-width or half-width digits,
  ``1.2 billion`` = ``1,200,000,000`` = ``12億``, ``三つ`` = 3, ``令和6年`` = 2024), times (``03:00`` = ``3時``),
  versions (``1.3.1``), API and command identifiers (``TEEC_OpenSession``, ``\\kanjiskip``) and Latin-script names
  (``NASA``, ``Kestrel Systems``);
- its **polarity** agrees with the evidence sentence it restates (Japanese ない/ません/ず/不可/できない…, English
  not/no/never/cannot…; ``しなければなりません`` is an obligation, not a negation);
- enough of its content words occur there (``rag.answers.faithfulness.support``).

A fact the question itself states and the passages hold is the asker's premise (``premises``), not something the
answer must prove again; across languages (a Japanese answer about an English page) no words are shared, so the
claim's quantities and polarity decide, and a claim without a quantity is not verified.

Everything here is lexical and explainable: a failed check names the missing fact or the flipped polarity. The
evidence is compared sentence by sentence (a window of up to ``WINDOW_SENTENCES`` consecutive sentences, a table
row together with its header), so a number elsewhere in a long passage does not vouch for the claim.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Literal

from rag.answers.faithfulness import SUPPORT_THRESHOLD, sentence_spans, support
from rag.answers.prompts import detect_language

FactKind = Literal["number", "date", "time", "version", "identifier", "name"]

WINDOW_SENTENCES = 3
"""Consecutive evidence sentences one claim may draw its facts from (a claim often joins two or three)."""
WINDOW_PENALTY = 0.2
"""Score a window loses per sentence beyond the first, so a quote grows only for facts or words it adds."""
POLARITY_MIN_SUPPORT = 0.5
"""Polarity is compared only with an evidence sentence the claim restates (this share of its content words)."""


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


@dataclass(frozen=True, slots=True)
class ClaimCheck:
    """The verdict on one claim against one evidence text.

    Attributes:
        supported: every fact found, polarity agrees, enough content words shared.
        evidence: the evidence sentence(s) the claim was compared with, verbatim from the evidence text.
        missing: the claim's facts not found in ``evidence``.
        polarity_conflict: the claim affirms what the evidence negates, or the other way round.
        support: share of the claim's content words found in ``evidence``.
        reason: one line for a person ("" when supported).
    """

    supported: bool
    evidence: str
    missing: tuple[Fact, ...] = ()
    polarity_conflict: bool = False
    support: float = 0.0
    reason: str = ""


# ---- normalization ---------------------------------------------------------------------------------------

_INVISIBLE = re.compile("[\u200b-\u200d\u2060\ufeff\u00ad]")
_MARKER = re.compile(r"\[\d+\]")


def _normalize(text: str) -> str:
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
_UNITS: tuple[tuple[str, str], ...] = (
    # (pattern written after a number, canonical unit); longer words first
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
    # counters that say what is counted (a count of cases is no count of sessions); item counters such as
    # つ/個/項目 stay unitless, since "8つ" and "8項目" count the same things
    (r"people|persons?|人|名", "person"),
    (r"compan(?:y|ies)|社", "company"),
    (r"cases?|件", "case"),
    (r"times|回", "times"),
    (r"歳", "age"),
    (r"倍", "fold"),
    (r"月", "month"),
    (r"日", "day"),
)
COUNTERS = frozenset({"person", "company", "case", "times", "age", "fold"})
"""Units that say what is counted: a claim's count must meet the same counter in the evidence."""
_CURRENCY_PREFIX = {"$": "usd", "¥": "jpy", "€": "eur", "£": "gbp"}
_UNIT_RE = "|".join(f"(?:{pattern})" for pattern, _ in _UNITS)
_NUMBER = re.compile(
    r"(?P<ordinal>第\s?)?(?P<currency>[$¥€£])?\s?"
    r"(?<![A-Za-z0-9_.,])(?P<digits>\d{1,3}(?:,\d{3})+|\d+)(?P<fraction>\.\d+)?(?![\d.]*\.\d)"
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
_WORD_NUMBERS = {
    w: n
    for n, w in enumerate(
        "zero _ two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
        "seventeen eighteen nineteen twenty".split()
    )
    if w != "_"
} | {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
_WORD_NUMBER = re.compile(r"\b(" + "|".join(_WORD_NUMBERS) + r")\b", re.IGNORECASE)
_MONTHS = {
    m: i
    for i, m in enumerate(
        "january february march april may june july august september october november december".split(), 1
    )
}
_MONTH_NAME = re.compile(r"\b(" + "|".join(m.capitalize() for m in _MONTHS if m != "may") + r"|May(?= \d))\b")
ERAS: dict[str, tuple[int, int]] = {
    "令和": (2018, 99),  # runs on: a generous bound rather than a yearly edit
    "平成": (1988, 31),
    "昭和": (1925, 64),
    "大正": (1911, 15),
    "明治": (1867, 45),
}
"""Each Japanese era: the Gregorian year before its first year (令和1年 = 2019), and its last year number."""
_ERA_YEAR = re.compile(r"(令和|平成|昭和|大正|明治)\s?(元|\d{1,2})\s?年")
_ISO_DATE = re.compile(r"(?<![\d.])(\d{4})[-/.](\d{1,2})(?:[-/.](\d{1,2}))?(?![\d.])")
_TIME = re.compile(
    r"(?<![\d:.])(\d{1,2}):(\d{2})(?::\d{2})?(?![\d:])"
    r"|(?<!\d)(\d{1,2})\s?時(?!間)(?:\s?(\d{1,2})\s?分)?"
)
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
        if _overlaps(match.span("digits"), taken):
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
        if not unit and not match["fraction"] and _is_list_label(text, match.start("digits"), match.end("digits")):
            continue  # "1 「…」" or "(2) …" at the start of a line numbers an item; it counts nothing
        if match["ordinal"]:
            unit = "ordinal"  # 第1回 is the first meeting, not one meeting
        facts.append(Fact("number", f"{_canonical(value)} {unit}".strip(), match.group().strip()))
        taken.append(match.span())
    for match in _KANJI_NUMBER.finditer(text):
        if (number := _kanji_value(match[1])) is not None and not _overlaps(match.span(), taken):
            facts.append(Fact("number", f"{number} {_unit_of(match[2])}".strip(), match[1]))
    for match in _WORD_NUMBER.finditer(text):
        facts.append(Fact("number", str(_WORD_NUMBERS[match[1].lower()]), match[1]))
    return facts


_LIST_LABEL_TAIL = re.compile(r"[.)）](?!\d)|[ \t]+(?=[「『“\"(（\[A-Z])")


def _is_list_label(text: str, start: int, end: int) -> bool:
    """Whether the number at ``text[start:end]`` numbers a list item: it opens its line (after "(" at most) and a
    ".", ")" or a space follows it ("1 「…」", "(2) …", "3. …")."""
    if start > 0 and text[start - 1] in "(（":
        start -= 1
    before = text[:start].rstrip(" \t")
    return (not before or before.endswith("\n")) and bool(_LIST_LABEL_TAIL.match(text, end))


def _overlaps(span: tuple[int, int], taken: list[tuple[int, int]]) -> bool:
    return any(start < span[1] and span[0] < end for start, end in taken)


# ---- identifiers and names ---------------------------------------------------------------------------------

_IDENTIFIER = re.compile(
    r"\\[A-Za-z@]+"  # TeX control sequences
    r"|\b[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+\b"  # snake_case, TEEC_OpenSession
    r"|\b[a-z]+[A-Z][A-Za-z0-9]*\b"  # camelCase
    r"|\b[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*\b"  # OpenChain, PowerPoint
    r"|\b[A-Za-z_][\w-]{1,}\.(?:tex|sty|cls|cfg|pdf|txt|json|yaml|yml|toml|xml|html|md|py|c|h|sh)\b"  # file names
    r"|\b[A-Za-z_]\w*\(\)"  # function()
)
_ACRONYM = re.compile(r"\b[A-Z][A-Z0-9&]{1,}\b")
_CAPITALIZED_RUN = re.compile(r"\b[A-Z][a-z][A-Za-z'-]*(?:\s+(?:of\s+|for\s+|and\s+)?[A-Z][a-z][A-Za-z'-]*)*")
_NOT_NAMES = frozenset(
    "I I'm Yes No Not The This That These Those There It Its In On At For From To With By As An A If When Where "
    "What Which Who Why How However Also And But Or So Then Therefore Thus Both Each Every All Some Any "
    "Section Article Chapter Page Table Figure Note Answer Question Passage".split()
)
_SENTENCE_START = re.compile(r"(?:^|[.!?。！？:：\n]\s*|[-*•]\s+)$")


def _identifiers_and_names(text: str, taken: list[tuple[int, int]]) -> list[Fact]:
    facts: list[Fact] = []
    for match in _IDENTIFIER.finditer(text):
        if not _overlaps(match.span(), taken):
            facts.append(Fact("identifier", match.group(), match.group()))
            taken.append(match.span())
    for match in _ACRONYM.finditer(text):
        if not _overlaps(match.span(), taken) and not match.group().isdigit():
            facts.append(Fact("name", match.group(), match.group()))
            taken.append(match.span())
    for match in _CAPITALIZED_RUN.finditer(text):
        if _overlaps(match.span(), taken):
            continue
        words = [w for w in match.group().split() if w not in ("of", "for", "and")]
        at_start = bool(_SENTENCE_START.search(text[: match.start()]))
        if at_start and len(words) == 1 or all(w in _NOT_NAMES for w in words):
            continue
        if at_start and words[0] in _NOT_NAMES:
            words = words[1:]
        name = " ".join(w for w in words if w not in _NOT_NAMES)
        if name:
            facts.append(Fact("name", name, match.group()))
    return facts


# ---- facts -------------------------------------------------------------------------------------------------


def facts_of(text: str) -> tuple[Fact, ...]:
    """The checkable facts of ``text``, in order of kind (dates, times, versions, numbers, identifiers, names).

    Args:
        text: any text; citation markers like ``[2]`` are ignored.

    Returns:
        The facts; a date contributes its year (``2024 year``) and month/day as numbers, an era year its western year.
    """
    text = _normalize(text)
    taken: list[tuple[int, int]] = []
    facts: list[Fact] = []
    for match in _ERA_YEAR.finditer(text):
        year = ERAS[match[1]][0] + (1 if match[2] == "元" else int(match[2]))
        facts.append(Fact("date", f"{year} year", match.group()))
        taken.append(match.span())
    for match in _ISO_DATE.finditer(text):
        if 1 <= int(match[2]) <= 12:
            facts.append(Fact("date", f"{int(match[1])} year", match.group()))
            facts.append(Fact("date", f"{int(match[2])} month", match.group()))
            if match[3]:
                facts.append(Fact("date", f"{int(match[3])} day", match.group()))
            taken.append(match.span())
    for match in _MONTH_NAME.finditer(text):
        facts.append(Fact("date", f"{_MONTHS[match[1].lower()]} month", match[1]))
        taken.append(match.span())
    for match in _TIME.finditer(text):
        hours, minutes = (match[1], match[2]) if match[1] else (match[3], match[4] or "00")
        if int(hours) <= 24 and int(minutes) < 60:
            facts.append(Fact("time", f"{int(hours)}:{int(minutes):02d}", match.group()))
            taken.append(match.span())
    for match in _VERSION.finditer(text):
        dotted = match[1] or match[2]
        facts.append(Fact("version", dotted, match.group()))
        taken.append(match.span())
    facts += _numbers(text, taken)
    facts += _identifiers_and_names(text, taken)
    return tuple(facts)


def _same_fact(fact: Fact, other: Fact) -> bool:
    return fact.kind == other.kind and fact.value.casefold() == other.value.casefold()


def _same_magnitude(a: str, b: str) -> bool:
    """Equal as written or as numbers: "2.0" (a version the text names) is the 2 of "仕様2.0"."""
    if a == b:
        return True
    try:
        return Decimal(a) == Decimal(b)
    except InvalidOperation:
        return False


def _found(fact: Fact, evidence_facts: tuple[Fact, ...], evidence_text: str) -> bool:
    """Whether ``fact`` occurs among the evidence's facts (or, for names and identifiers, in its text)."""
    if fact.kind in ("identifier", "name"):
        haystack = evidence_text.casefold()
        return all(word.casefold() in haystack for word in fact.value.split())
    for other in evidence_facts:
        if fact.kind == "time" and other.kind == "time":
            if fact.value == other.value:
                return True
        elif fact.kind in ("number", "date", "version") and other.kind in ("number", "date", "version"):
            # a measure may be written without its unit in a table; a count of people or cases says what it counts
            loose = fact.unit not in COUNTERS and (not fact.unit or not other.unit)
            if _same_magnitude(fact.magnitude, other.magnitude) and (loose or fact.unit == other.unit):
                return True
            if fact.kind == "version" and fact.value in other.text:
                return True
    return False


# ---- polarity ----------------------------------------------------------------------------------------------

_OBLIGATION = re.compile(
    r"な(?:けれ|く(?:て|ちゃ))(?:ば|は)?(?:なら|なり|いけ|だめ)(?:ない|ません|ず)|ないと(?:いけ|だめ)(?:ない|ません)?|ざるを得(?:ない|ません)"
)
_JA_NEGATION = re.compile(
    r"(?<![少危幼汚切拙つ])な(?:い|く(?!て(?:も|は))|かっ|し(?=に|で))|ません|(?<=[^\s])ず(?=[にもとがで、。,.\s]|$)|ぬ(?=[。、]|$)"
    r"|不可|不要|不能|できない|無し|なし(?=[。、]|$)|対象外|禁止|無効"
)
_JA_NOT_NEGATION = re.compile(r"間もなく|ないし|問題(?:ない|ありません)|少なく|危なく|とんでもない|違いない")
_EN_NEGATION = re.compile(
    r"\b(?:not|no|never|cannot|none|nothing|neither|nor|nobody|nowhere|prohibited|forbidden)\b|n't\b", re.IGNORECASE
)
_EN_NOT_NEGATION = re.compile(r"\bnot only\b|\bno\.\s?\d|\bno (?:more|less|later|earlier|fewer) than\b", re.IGNORECASE)
_KANA = re.compile(r"[\u3040-\u30ff]")
_JA_CLAUSE_END = re.compile(r"[、,，]")
_PUNCTUATED_END = re.compile(r"(?<=[。！？!?])\s*|(?<=[.;])\s+")
_ANSWER_PARTICLE = re.compile(r"^\s*(?:いいえ|はい|yes|no)\s*[、,.。!！]\s*", re.IGNORECASE)


def negation_count(sentence: str) -> int:
    """How many negations ``sentence`` holds (an obligation such as ``しなければならない`` counts as none)."""
    text = _ANSWER_PARTICLE.sub("", _normalize(sentence))
    text = _JA_NOT_NEGATION.sub("", _OBLIGATION.sub("", text))
    text = _EN_NOT_NEGATION.sub("", text)
    return len(_JA_NEGATION.findall(text)) + len(_EN_NEGATION.findall(text))


def is_negated(sentence: str) -> bool:
    """Whether ``sentence`` denies what it is about ("いいえ、", "No," are not counted).

    Japanese puts the main predicate last, so its polarity is that of the last clause (after the last 、):
    "貸与しているわけではないため、配布にはなりません" denies once, not twice. English counts every negation
    (odd: negated), "not only" and "no later than" excepted.
    """
    text = _ANSWER_PARTICLE.sub("", _normalize(sentence)).strip()
    if _KANA.search(text):
        clauses = [c for c in _JA_CLAUSE_END.split(text.rstrip("。．.！？!? ")) if c.strip()]
        text = clauses[-1] if clauses else text
    return negation_count(text) % 2 == 1


# ---- the check ---------------------------------------------------------------------------------------------


def premises(question: str, texts: Sequence[str]) -> tuple[Fact, ...]:
    """Facts the question states that the documents state too: the asker's premises, not the answer's claims.

    "OpenChain仕様2.0の認証は何か月有効？" answered "仕様2.0の認証は18か月有効です [1]" restates "2.0" from the
    question; the passage on duration never repeats it, yet the model invented nothing. A premise counts only when
    one of ``texts`` (the passages the model read) holds it as well, so a question's wrong number ("is the limit 10
    seconds?") confirmed by the answer is still caught.
    """
    read = [(facts_of(text), _normalize(text)) for text in texts]
    return tuple(fact for fact in facts_of(question) if any(_found(fact, facts, plain) for facts, plain in read))


def check_claim(
    claim: str,
    evidence: str,
    *,
    threshold: float = SUPPORT_THRESHOLD,
    context: str = "",
    given: Sequence[Fact] = (),
) -> ClaimCheck:
    """Check one claim (an answer sentence, a quiz statement) against the text it cites.

    The evidence is cut into sentences (table rows read with their header row); the window of at most
    ``WINDOW_SENTENCES`` consecutive sentences that holds most of the claim's facts and words is the claim's
    evidence. The claim is supported when all its facts occur there, its content words reach ``threshold``, and its
    polarity agrees with the window's sentence it restates most closely.

    Args:
        claim: the claim, citation markers allowed.
        evidence: the cited text (a chunk's text).
        threshold: minimum share of content words.
        context: words the claim leans on without repeating them (the question, for a bare "1954年"): they count
            towards its content words, never towards its facts or polarity.
        given: facts the claim may restate without the evidence holding them (``premises`` of the question).

    Returns:
        The verdict, with the verbatim evidence sentence(s) to quote.
    """
    stated = facts_of(claim)
    facts = tuple(f for f in stated if not any(_same_fact(f, g) for g in given))
    measured = any(f.kind in ("number", "date", "time", "version") for f in facts)
    worded = f"{context} {claim}" if context else claim
    language = detect_language(claim)
    best: ClaimCheck | None = None
    best_key: tuple[bool, float] = (False, -1.0)
    best_needed = threshold
    for window, reading, size in _windows(evidence, WINDOW_SENTENCES):
        window_facts = facts_of(reading)
        missing = tuple(f for f in facts if not _found(f, window_facts, _normalize(reading)))
        share = support(worded, reading)
        # an answer in Japanese about an English page (or the reverse) shares no words with it: there its quantities
        # (numbers, dates, times, versions) and polarity must carry the check; a claim without one is not verified
        needed = 0.0 if measured and detect_language(reading) != language else threshold
        # windows that hold every fact and enough words come first; among them a longer window must earn its
        # place, so the quote is the sentence itself rather than its neighbours too
        score = (1 - len(missing) / len(facts) if facts else 1.0) + share - WINDOW_PENALTY * (size - 1)
        key = (not missing and share >= needed, score)
        if key > best_key:
            best_key, best_needed = key, needed
            best = ClaimCheck(False, window, missing, False, share)
    if best is None:
        return ClaimCheck(False, "", facts, False, 0.0, "the cited text is empty")
    conflict = _polarity_conflict(claim, best.evidence, across=detect_language(best.evidence) != language)
    reason = _reason(best.missing, conflict, best.support, best_needed)
    return ClaimCheck(not reason, best.evidence, best.missing, conflict, best.support, reason)


def sentence_units(evidence: str) -> list[tuple[str, str]]:
    """``(verbatim sentence, text to read it with)`` for each sentence or table row of ``evidence``.

    A table row is read with its table's header row; header and separator rows are not units of their own.
    """
    return [(window, reading) for window, reading, _size in _windows(evidence, 1)]


def _windows(evidence: str, max_size: int) -> list[tuple[str, str, int]]:
    """``(verbatim window, text to read it with, sentences)`` for every run of 1..``max_size`` sentences.

    A table row is read together with the table's header row, so "240" in a row is checked with its column names;
    the quote stays the row itself. Header and separator rows are never windows of their own.
    """
    spans = [(s, e) for s, e in sentence_spans(evidence) if not _is_separator_row(evidence[s:e])]
    header = ""
    windows: list[tuple[str, str, int]] = []
    for i, (start, end) in enumerate(spans):
        line = evidence[start:end]
        if _is_table_row(line):
            if not header or _follows_separator(evidence, end):
                header = line
                continue
            windows.append((line, f"{header}\n{line}", 1))
            continue
        header = ""
        for size in range(1, max_size + 1):
            if i + size > len(spans) or any(_is_table_row(evidence[s:e]) for s, e in spans[i : i + size]):
                break
            text = evidence[start : spans[i + size - 1][1]]
            windows.append((text, text, size))
    whole = evidence.strip()
    return windows or ([(whole, whole, 1)] if whole else [])


def _is_table_row(line: str) -> bool:
    return line.lstrip().startswith("|") and line.count("|") >= 2


def _is_separator_row(line: str) -> bool:
    return bool(re.fullmatch(r"\s*\|?(?:\s*:?-{3,}:?\s*\|)+\s*:?-*:?\s*\|?\s*", line))


def _follows_separator(text: str, end: int) -> bool:
    """Whether the line ending at ``end`` is a header: the next line is a ``| --- |`` separator."""
    rest = text[end:].lstrip("\n")
    return _is_separator_row(rest.split("\n", 1)[0]) if rest else False


def _polarity_conflict(claim: str, evidence: str, *, across: bool = False) -> bool:
    """Whether the claim's polarity differs from the evidence sentence it restates (when it restates one).

    ``across``: claim and evidence are in different languages, so no words are shared; the sentence restated is
    then the one holding most of the claim's facts, and polarity is always compared with it.
    """
    # sentences end at their punctuation here, not at line breaks: a slide or a wrapped PDF line breaks mid-sentence
    sentences = [s for s in _PUNCTUATED_END.split(evidence) if s.strip()] or [evidence]
    if across:
        facts = facts_of(claim)
        closest = max(sentences, key=lambda s: sum(_found(f, facts_of(s), _normalize(s)) for f in facts))
        return is_negated(claim) != is_negated(closest)
    closest = max(sentences, key=lambda s: support(claim, s))
    if support(claim, closest) < POLARITY_MIN_SUPPORT:
        return False
    return is_negated(claim) != is_negated(closest)


def _reason(missing: tuple[Fact, ...], conflict: bool, share: float, threshold: float) -> str:
    if missing:
        return "not in the cited text: " + ", ".join(f.text for f in missing)
    if conflict:
        return "the cited text says the opposite (negation differs)"
    if share < threshold:
        return f"only {share:.0%} of its words are in the cited text"
    return ""
