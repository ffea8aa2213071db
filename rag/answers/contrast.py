"""Contrasting terms: a claim about one side of a pair ("和文文字") is not supported by a sentence about the other
("欧文文字の文字コード0–255 をとる(例:\\catcode)"), and a claim about both sides together ("和文文字と欧文文字の間")
by a sentence naming one of them alone (``one_side_only``).

Word overlap cannot see this: the two sentences share everything but the one word that matters. The pairs are terms
whose opposite a technical or legal text commonly states beside them (script, direction, position in a line, bound,
order in time, direction of data, what comes standard and what is optional), and the comparisons a quiz turns round
to make a false statement (``OPPOSITE_TERMS``: 以上/未満, earlier/later, first/last), so that the check refuses
what the quiz would call false. A term counts as named in a claim only
when the evidence does not name it too: a sentence that speaks of both sides ("行頭と行末") says nothing against
either. A claim that one thing alone is so ("limited to BEATS-PER-MINUTE") is contrasted with a sentence giving it
beside others ("BEATS-PER-MINUTE or FRAMES-PER-BEAT"): ``alone_among_others``; and one that any of a kind will do
("any federal district court") with a sentence giving one alone ("shall have exclusive jurisdiction"):
``any_against_exclusive``; and one that a thing makes a difference with a sentence saying the outcome holds
irrespective of it: ``difference_denied``.
"""

from __future__ import annotations

import re

from rag.answers.facts import plain_text

OPPOSITE_TERMS: tuple[tuple[str, str], ...] = (
    ("以上", "未満"),
    ("以前", "以降"),
    ("より前", "より後"),
    ("増加", "減少"),
    ("上昇", "低下"),
    ("高い", "低い"),
    ("多い", "少ない"),
    ("大きい", "小さい"),
    ("長い", "短い"),
    ("最大", "最小"),
    ("最初", "最後"),
    ("必須", "任意"),
    ("有効", "無効"),
    ("before", "after"),
    ("increase", "decrease"),
    ("higher", "lower"),
    ("larger", "smaller"),
    ("maximum", "minimum"),
    ("earlier", "later"),
    ("required", "optional"),
    ("first", "last"),
)
"""Terms that a statement turned round says the opposite with: what the claim check contrasts, and what a quiz
turns round to make a false statement (``rag.quiz.perturbation.COMPARISONS``)."""
_CHECKED_ONLY = (
    ("和文", "欧文"),
    ("全角", "半角"),
    ("縦組", "横組"),
    ("縦書", "横書"),
    ("行頭", "行末"),
    ("上限", "下限"),
    ("入力", "出力"),
    ("送信", "受信"),
    ("開始", "終了"),
    ("暗号化", "復号"),
    ("大文字", "小文字"),
    ("昇順", "降順"),
    ("肯定", "否定"),
    ("許可", "禁止"),
    ("賛成", "反対"),
    ("合法", "違法"),
    ("成功", "失敗"),
    ("有料", "無料"),
    ("追加", "削除"),
    ("内部", "外部"),
    ("同意", "拒否"),
    ("男性", "女性"),
    ("事前", "事後"),
    ("前方", "後方"),
    ("直前", "直後"),
    ("正の", "負の"),
    ("好き", "苦手"),
    ("得意", "苦手"),
    ("甘党", "辛党"),
    ("上級", "下級"),
    ("input", "output"),
    ("upper", "lower"),
    ("uppercase", "lowercase"),
    ("horizontal", "vertical"),
    ("enable", "disable"),
    ("encrypt", "decrypt"),
    ("import", "export"),
    ("inbound", "outbound"),
    ("ascending", "descending"),
    ("earliest", "latest"),
    ("standard", "optional"),
    ("mandatory", "optional"),
    ("allow", "prohibit"),
    ("accept", "reject"),
    ("include", "exclude"),
    ("internal", "external"),
    ("success", "failure"),
    ("male", "female"),
    ("preceding", "following"),
    ("man", "woman"),
    ("men", "women"),
    ("positive", "negative"),
    ("full", "partial"),
    ("fully", "partially"),
    ("完全", "部分"),
    ("left to right", "right to left"),
    ("左から右", "右から左"),
    ("top to bottom", "bottom to top"),
    ("上から下", "下から上"),
)
"""More terms the claim check contrasts (script, direction, position in a line, bound, order, data flow, a verdict
either way: 肯定/否定, allow/prohibit, and how much: "fully covered in the test suite" against "Partially covered")."""
_EN_ENDINGS = r"(?:s|d|ed|es|ing|ion|ions|ly)?"
_PREFIXED = re.compile(r"\b(?:un|non-?)([a-z]{4,})\b")
"""A word denied by its prefix: "unsafe" of "safe(ly)", "undefined" of "defined", "non-free" of "free"."""
_NOT_PREFIXED = re.compile(r"\b(?:unless|under\w*|uni\w*)\b")
"""Words that begin so without denying anything."""
_EN_WORD = re.compile(r"\b[a-z]{4,}\b")


def _opposites() -> dict[str, tuple[str, ...]]:
    """Each term with its opposites ("lower" has two: "upper" and "higher")."""
    found: dict[str, list[str]] = {}
    for a, b in OPPOSITE_TERMS + _CHECKED_ONLY:
        found.setdefault(a, []).append(b)
        found.setdefault(b, []).append(a)
    return {term: tuple(opposites) for term, opposites in found.items()}


_OPPOSITE = _opposites()


def _names(text: str, term: str) -> bool:
    if term.isascii():
        return re.search(rf"\b{term}{_EN_ENDINGS}\b", text) is not None
    return term in text


def claimed_terms(claim: str) -> list[tuple[str, str]]:
    """``(term, opposite)`` for the contrasting terms ``claim`` names without naming their opposite too (read once
    per claim): the pairs above, and an English word and its prefixed denial ("unsafe" and "safe", "signed" and
    "unsigned", "free" and "nonfree") either way round."""
    said = plain_text(claim).casefold()
    pairs = [
        (term, opposite)
        for term, opposites in _OPPOSITE.items()
        if _names(said, term)
        for opposite in opposites
        if not _names(said, opposite)
    ]
    for word in dict.fromkeys(_EN_WORD.findall(_NOT_PREFIXED.sub(" ", said))):
        if prefixed := _PREFIXED.fullmatch(word):
            base = prefixed.group(1)
            if not _names(said, base):
                pairs.append((word, base))
        else:
            pairs += [
                (word, denied) for denied in (f"un{word}", f"non{word}", f"non-{word}") if not _names(said, denied)
            ]
    return pairs


def contrasted_terms(claimed: list[tuple[str, str]], evidence: str) -> list[tuple[str, str]]:
    """``(claimed, stated)`` for each of the ``claimed`` terms whose opposite the evidence names instead."""
    if not claimed:
        return []
    read = plain_text(evidence).casefold()
    # naming a term needs its letters in the text: a substring test spares the word-boundary search for the many
    # pairs a claim's words make with their un-/non- forms, per window of every passage
    return [
        (term, opposite)
        for term, opposite in claimed
        if opposite in read and not _names(read, term) and _names(read, opposite)
    ]


def one_side_only(claim: str, evidence: str) -> tuple[str, str] | None:
    """``(stated, unstated)`` for a pair the claim names both sides of ("和文文字と欧文文字の間") where the evidence
    names only one ("連続する和文文字間"): it speaks of that side, not of the two together. None otherwise."""
    said, read = plain_text(claim).casefold(), plain_text(evidence).casefold()
    for term, opposites in _OPPOSITE.items():
        if not (_names(said, term) and _names(read, term)):
            continue
        for opposite in opposites:
            if _names(said, opposite) and not _names(read, opposite):
                return term, opposite
    return None


# ---- one term alone against several ------------------------------------------------------------------------

_TERM = r"[A-Za-z0-9][\w./+-]*"
_ONLY_EN = re.compile(
    rf"\b(?:only|solely|exclusively|(?:limited|restricted|confined) to)\s+(?:the\s+|an?\s+)?({_TERM})", re.IGNORECASE
)
_ONLY_JA = re.compile(r"([A-Za-z0-9_./+\-]+|[\u30a1-\u30fa\u30fc]{2,}|[\u4e00-\u9fff々]{2,})(?:のみ|だけ|に限)")
"""A claim that one thing alone is so: "limited to BEATS-PER-MINUTE", "only AES", "AESのみ", "横組だけ"."""
_NOT_TERMS = frozenset("if when where after before once one a few to in on for with by be have".split())
_JOINS_EN = r"(?:(?:,\s*|\s+)(?:or|and|nor)\s+|,\s*(?=[A-Z0-9]))"
_JOINS_JA = r"\s*(?:または|および|もしくは|や|、|/|／)\s*"


def alone_among_others(claim: str, evidence: str) -> str | None:
    """The term a claim says is alone ("the tempo is limited to BEATS-PER-MINUTE") where the evidence gives it with
    others ("TEMPO may be specified in BEATS-PER-MINUTE or FRAMES-PER-BEAT"); None when the claim says no such thing,
    the evidence does not name the term, or it too says the term alone ("AES only")."""
    said = plain_text(claim)
    read = plain_text(evidence)
    found = [m.group(1) for m in _ONLY_EN.finditer(said)] + [m.group(1) for m in _ONLY_JA.finditer(said)]
    for term in (found_term.rstrip("./+-") for found_term in found):
        if term.casefold() in _NOT_TERMS or len(term) < 2:
            continue
        t = re.escape(term)
        alone = rf"\b(?:only|solely|exclusively)\s+(?:the\s+)?{t}|{t}\s+only\b|{t}\s*(?:のみ|だけ)"
        if re.search(t, read, re.IGNORECASE) is None or re.search(alone, read, re.IGNORECASE):
            continue
        beside = (
            rf"{t}(?:{_JOINS_EN}(?:the\s+)?[A-Z0-9]|{_JOINS_JA}[A-Za-z0-9\u30a1-\u30fa\u4e00-\u9fff])"
            rf"|(?:[A-Za-z0-9]{_JOINS_EN}|[A-Za-z0-9\u30a1-\u30fa\u4e00-\u9fff]{_JOINS_JA}){t}"
        )
        if re.search(beside, read):
            return term
    return None


_ANY_EN = re.compile(
    r"\bany\s+((?:[A-Za-z][\w-]*\s+){0,4}?([a-z][\w-]{2,}))"
    r"(?=\s*(?:[.,;:!?)]|$|\s+(?:to|that|which|who|of|for|in|on|at|by|with|as)\b))"
)
"""A claim that something holds for any one of a kind: "filed in any federal district court", "in any United States
district court"."""
_EXCLUSIVE_EN = re.compile(
    r"\bexclusive(?:ly)?\b|\bsolely\b|\bonly\s+(?:in|by|at|to|through|before|with)\b", re.IGNORECASE
)
"""A sentence that gives one of a kind alone: "shall have exclusive jurisdiction", "may be filed only in"."""


def any_against_exclusive(claim: str, evidence: str) -> str | None:
    """The kind a claim says any one of will do ("any federal district court") where the evidence names that kind
    and gives it alone ("The United States Court of Appeals for the District of Columbia Circuit shall have exclusive
    jurisdiction"); None otherwise, or when the evidence too says any of it."""
    read = plain_text(evidence)
    if not _EXCLUSIVE_EN.search(read):
        return None
    for match in _ANY_EN.finditer(plain_text(claim)):
        phrase, head = match.group(1), match.group(2)
        named = re.search(rf"\b{re.escape(head)}s?\b", read, re.IGNORECASE)
        if named and not re.search(rf"\bany\s+(?:[\w-]+\s+){{0,3}}?{re.escape(head)}", read, re.IGNORECASE):
            return f"any {phrase}"
    return None


_REGARDLESS_EN = re.compile(
    r"\b(?:irrespective|regardless|independent(?:ly)?)\s+of\s+(?:(?:any|the|its|their|all|whether)\s+)?"
    r"((?:[\w-]+\s+){0,2}?([a-z][\w-]{2,}?))s?\b(?=\s*(?:[.,;:)]|$|\s+(?:in|on|at|between|before|after|or)\b))",
    re.IGNORECASE,
)
"""A sentence that says a thing makes no difference: "irrespective of any intervening spaces"."""
_MAKES_A_DIFFERENCE = re.compile(
    r"\b(?:chang|affect|matter|influenc|alter|depend|determin|make a difference|makes a difference)\w*", re.IGNORECASE
)
_DENIED = re.compile(r"\b(?:not|no|never|cannot)\b|n't\b", re.IGNORECASE)


def difference_denied(claim: str, evidence: str) -> str | None:
    """The thing a claim says makes a difference ("spaces … do change how TeX reads the argument") where the evidence
    says the outcome holds irrespective of it ("TeX will find the first argument … irrespective of any intervening
    spaces"); None otherwise, or when the claim denies it too."""
    said = plain_text(claim)
    if _DENIED.search(said) or not _MAKES_A_DIFFERENCE.search(said):
        return None
    for match in _REGARDLESS_EN.finditer(plain_text(evidence)):
        head = match.group(2)
        if re.search(rf"\b{re.escape(head)}", said, re.IGNORECASE):
            return match.group(1)
    return None


_NOT_THIS_BUT = re.compile(
    r"(?P<ja>[\u3400-\u9fff々\u30a1-\u30fa\u30fcA-Za-z0-9]{2,})(?:では|じゃ)なく"
    r"|\b(?:rather than|instead of)\s+(?:the\s+|a\s+|an\s+)?(?P<rather>[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*)?)"
    r"|\bnot\s+(?:the\s+|a\s+|an\s+)?(?P<en>[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*)?),?\s+but\b",
    re.IGNORECASE,
)
"""The alternative a text sets aside for another: "著作者名ではなく、…「著作権者の名前」", "the holder rather than the
author", "not the author but the holder"."""


def set_aside(claim: str, evidence: str) -> str | None:
    """The alternative the evidence sets aside ("著作者名ではなく") that the claim gives as its own ("「©のマーク」
    「最初の発行年」「著作者名」の3点を記載します"); None when it gives none, or sets it aside too."""
    said = plain_text(claim)
    for found in _NOT_THIS_BUT.finditer(plain_text(evidence)):
        term = found["ja"] or found["rather"] or found["en"]
        if found["ja"]:
            named = term in said and not re.search(rf"{re.escape(term)}(?:では|じゃ)な", said)
        else:
            named = re.search(rf"\b{re.escape(term)}\b", said, re.IGNORECASE) is not None and not _DENIED.search(said)
        if named:
            return term
    return None


_KANJI_COMPOUND = re.compile(r"[\u4e00-\u9fff々]{4,}")
_KANJI_RUN = re.compile(r"[\u4e00-\u9fff々]+")
HEAD_MIN_CHARS = 2
"""Kanji a compound's head (its last word: 担当者, 部門) and the word before it (組版, 校正) have at least."""


def other_kind_named(claim: str, evidence: str) -> tuple[str, str] | None:
    """A kanji compound of the claim that the evidence lacks while it names the same head with another word before
    it: ``(claimed, stated)`` ("校正担当者" against "組版担当者"); None when there is none.

    "活字組版では、ルールの適用は校正担当者の能力に頼っていた" held every other word of the line composition
    rules' "ルールの適用は組版担当者の能力に頼っていたともいえよう": the two compounds share their head, and the
    word before it says whose ability it was. A compound the evidence holds within a longer one ("管理担当者" of
    "ライセンス管理担当者"), whose head it names without a word before it ("開発部門の担当者"), or with the claim's
    word just before it ("機械による自動処理" for "機械処理"), is no other kind."""
    said = plain_text(evidence)
    runs = set(_KANJI_RUN.findall(said))
    if not runs:
        return None
    for compound in dict.fromkeys(_KANJI_COMPOUND.findall(plain_text(claim))):
        if compound in said:
            continue
        for cut in range(HEAD_MIN_CHARS, len(compound) - HEAD_MIN_CHARS + 1):
            word, head = compound[:cut], compound[cut:]
            other = min(
                (
                    run
                    for run in runs
                    if run.endswith(head)
                    and len(run) - len(head) >= HEAD_MIN_CHARS
                    and _another_word(word, run[: -len(head)])
                    and not _said_before(word, run, said)
                ),
                default=None,
            )
            if other is not None:
                return compound, other
    return None


WORD_BEFORE_CHARS = 12
"""How far before the evidence's compound the claim's word may stand and still be said of it ("機械による自動処理" is
"機械処理")."""


def _another_word(word: str, other: str) -> bool:
    """Whether two words before a shared head differ: no kanji in common, neither the end of the other ("厚生労働" and
    the "労働" a line break cut it to; "30代" and "30台")."""
    return not set(word) & set(other) and not word.endswith(other) and not other.endswith(word)


def _said_before(word: str, run: str, said: str) -> bool:
    """Whether ``word`` stands within ``WORD_BEFORE_CHARS`` before an occurrence of ``run`` in ``said``."""
    for found in re.finditer(re.escape(run), said):
        if word in said[max(0, found.start() - WORD_BEFORE_CHARS) : found.start()]:
            return True
    return False
