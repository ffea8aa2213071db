"""Polarity: whether a sentence denies what it is about (Japanese ない/ません/ず/不可/できない…, English
not/no/never/cannot…; ``しなければなりません`` is an obligation, not a negation). Whether a claim's polarity differs
from the evidence sentence it restates is ``rag.answers.claim_polarity``'s to say.
"""

from __future__ import annotations

import re
from collections.abc import Set

from rag.answers.facts import plain_text
from rag.answers.faithfulness import asking_clause, content_tokens

POLARITY_MIN_SUPPORT = 0.5
"""Polarity is compared only with an evidence sentence the claim restates (this share of its content words)."""

OBLIGATION = re.compile(
    r"な(?:けれ|く(?:て|ちゃ))(?:ば|は)?(?:なら|なり|いけ|だめ)(?:ない|ません|ず)|ないと(?:いけ|だめ)(?:ない|ません)?|ざるを得(?:ない|ません)"
)
JA_NEGATION = re.compile(
    r"(?<![少危幼汚切拙つ])な(?:い|く(?!て(?:も|は))|かっ|し(?=に|で))|ません|(?<=[^\s])ず(?=[にもとがで、。,.\s]|$)|ぬ(?=[。、]|$)"
    r"|不可|不要|不能|できない|無し|なし(?=[。、]|$)|対象外|禁止|無効"
    r"|なくても(?:よ[いくかろ]|良[いくかろ]|いい|大丈夫)"  # no obligation: 読まなくてもよい denies 読まなくてはならない
)
_LEXICAL_NEGATION = re.compile(r"不可|不要|不能|無し|対象外|禁止|無効|\b(?:prohibited|forbidden)\b", re.IGNORECASE)
"""Words that mean a denial without a grammatical negation (counted by ``JA_NEGATION``/``EN_NEGATION`` too)."""
JA_NOT_NEGATION = re.compile(
    r"間もなく|ないし|問題(?:ない|ありません)|少なく|危なく|とんでもない|違いない"
    r"|(?<=[るた)）])\s?か[^、,，。．.か]{0,16}?(?:しない|ない)"  # an alternative: "挿入する(…) か挿入しないを設定する"
    r"|しか[^、,，。．.(（]{0,24}?(?:ない|ません)"  # only: "水平モードのときしか効力を発揮しない" affirms
    r"|だけでなく|のみならず"  # not only
    r"|はず"  # expected, not denied: "動作するはずです" (its ず is no negation; "はずがない" keeps its ない)
)
EN_NEGATION = re.compile(
    r"\b(?:not|no|never|cannot|none|nothing|neither|nor|nobody|nowhere|prohibited|forbidden"
    r"|missing|absent|unimplemented|unsupported|unavailable)\b|n't\b",  # "X is missing" agrees with "| X | No |"
    re.IGNORECASE,
)
EN_NOT_NEGATION = re.compile(
    r"\bnot only\b|\bno\.\s?\d|\bno(?:t)? (?:more|less|later|earlier|fewer) than\b|\bnot to exceed\b", re.IGNORECASE
)
"""Bounds and idioms that deny nothing: "not only", "No. 5", "no/not later than 90 days", "not to exceed 180 days"."""
KANA = re.compile(r"[\u3040-\u30ff]")
_TOPIC = re.compile(r"(?<=[\u30a0-\u30ff\u3400-\u9fff々A-Za-z0-9)）」』のとでにてど])は")
"""The topic particle は after a noun, a quote or a particle ("ソフトウェアは", "のは", "では", "には"); not the は of
"するはず", which follows a verb."""
_CONCESSION = re.compile(r"(?:でも|(?<!なく)ても)(?=.)")
"""A concession ("禁止でも", "禁止されていても"): the predicate after it is what the clause says. Not "なくても",
which with what follows says whether something is needed ("読まなくてもよい")."""
JA_CLAUSE_END = re.compile(r"[、,，]|(?=[(（])")
"""Where a Japanese clause ends: a comma, or an aside opening ("…しない(数式モードでも効かない)" says two things)."""
CONTENT_RUN = re.compile(r"[\u3400-\u9fff々]+|[\u30a1-\u30fa\u30fc]+")
YES_CELLS = frozenset({"yes", "y", "true", "はい", "○", "〇", "◯", "✓", "✔", "有", "あり", "可"})
NO_CELLS = frozenset({"no", "n", "false", "いいえ", "×", "✗", "✘", "無", "なし", "不可"})
_YES_OR_NO = "いいえ|はい|yes|no"
_BARE_ANSWER = re.compile(rf"({_YES_OR_NO})\s*[.。!！]?", re.IGNORECASE)
"""A line that is only a yes or a no ("いいえ" printed under a FAQ's question): it denies or affirms the question."""
ANSWER_PARTICLE = re.compile(rf"^\s*(?:{_YES_OR_NO})\s*[、,.。!！]\s*", re.IGNORECASE)


def negation_count(sentence: str) -> int:
    """How many negations ``sentence`` holds (an obligation such as ``しなければならない`` counts as none)."""
    text = ANSWER_PARTICLE.sub("", plain_text(sentence))
    text = JA_NOT_NEGATION.sub("", OBLIGATION.sub("", text))
    text = EN_NOT_NEGATION.sub("", text)
    return len(JA_NEGATION.findall(text)) + len(EN_NEGATION.findall(text))


def is_negated(sentence: str) -> bool:
    """Whether ``sentence`` denies what it is about ("いいえ、", "No," before a statement are not counted; a bare
    "いいえ" or "No." is a denial).

    Japanese puts the main predicate last, so its polarity is that of the last clause (after the last 、):
    "貸与しているわけではないため、配布にはなりません" denies once, not twice. English counts every negation
    (odd: negated), "not only" and "no later than" excepted.
    """
    if bare := _BARE_ANSWER.fullmatch(plain_text(sentence).strip()):
        return bare.group(1).casefold() in ("いいえ", "no")  # a FAQ's answer line under its question
    text = ANSWER_PARTICLE.sub("", plain_text(sentence)).strip()
    if (answered := yes_no_cell(text)) is not None:
        return not answered
    if KANA.search(text):
        clauses = clauses_of(text)
        text = _after_topic(clauses[-1] if clauses else text)
    return negation_count(text) % 2 == 1


def _after_topic(clause: str) -> str:
    """A Japanese clause from its last topic は or concession でも/ても on: what it says of its topic. A denial
    before it describes the topic ("商用利用を禁止しているソフトウェアは…合致していません" denies once; "開示しない
    ことはライセンス違反になります" denies nothing) or grants a condition ("商用利用禁止でも利用できます" allows).
    An obligation is read first, so "…なくてはなりません" keeps its は."""
    text = OBLIGATION.sub("義務", clause)
    starts = [m.end() for m in _TOPIC.finditer(text)] + [m.end() for m in _CONCESSION.finditer(text)]
    return text[max(starts) :] if starts else text


EN_REPORTING = frozenset(
    "say says said state states stated mention mentions mentioned specify specifies specified describe describes "
    "described indicate indicates indicated suggest suggests suggested explicitly".split()
)
"""Verbs that report what a text says: "the guide does not say X" denies what follows them, not the saying."""
EN_CLAUSE_END = re.compile(r"[,;:.!?]\s|[;:!?]|\.$")


def denied_words(claim: str) -> set[str]:
    """The content words an English claim's denial covers: those after its first negation up to the end of that
    clause, reporting verbs aside. "No, the guide does not say \\DeclareDocumentCommand should be used often" denies
    "used often": a sentence that says the command "should be used sparingly" shares its words but not "often", so
    it does not say the opposite. Empty for an affirmation and for Japanese (whose negation closes its predicate)."""
    text = EN_NOT_NEGATION.sub(" ", ANSWER_PARTICLE.sub("", plain_text(claim)))
    if KANA.search(text) or (denial := EN_NEGATION.search(text)) is None:
        return set()
    scope = EN_CLAUSE_END.split(text[denial.end() :], 1)[0]
    return {word for word in content_tokens(scope) if word not in EN_REPORTING}


def holds_words(words: set[str], text: str) -> bool:
    """Whether ``text`` holds each of ``words`` in some form ("implement" in "Implemented", "use" in "used")."""
    held = content_tokens(text)
    return all(holds_word(word, held) for word in words)


def holds_word(word: str, held: Set[str]) -> bool:
    """Whether the content tokens ``held`` (of a text) hold ``word`` in some form (``word_stem``)."""
    return any(token.startswith(word_stem(word)) for token in held)


def word_stem(word: str) -> str:
    """What a word's forms begin with: all but its last two letters, at least four ("extend" of "extension")."""
    return word[: max(4, len(word) - 2)]


def asks_negatively(question: str) -> bool:
    """Whether a yes/no question is put in the negative ("問題ありませんか？", "Isn't it…?"), where a bare yes or no
    would be ambiguous. A word that means a denial asks plainly: "…の挿入も禁止されますか？" is answered "いいえ"; so
    does a negation in the scene or a condition before the clause that asks (``faithfulness.asking_clause``: "…
    whose licence conditions are not being met …, are you in violation?")."""
    return is_negated(_LEXICAL_NEGATION.sub("", asking_clause(question)))


def yes_no_cell(text: str) -> bool | None:
    """For a table row with a yes/no cell ("| TEE_Panic | Yes | Not tested |"), whether that cell says yes: the
    row's polarity is its answer, not a negation in a comment beside it. None for other text."""
    if text.count("|") < 2:
        return None
    for cell in text.strip().strip("|").split("|"):
        value = cell.strip().casefold()
        if value in YES_CELLS:
            return True
        if value in NO_CELLS:
            return False
    return None


def clauses_of(sentence: str) -> list[str]:
    """The clauses of a Japanese sentence, split at 、 and commas, without its answer particle and closing mark."""
    text = ANSWER_PARTICLE.sub("", plain_text(sentence)).strip()
    return [c for c in JA_CLAUSE_END.split(text.rstrip("。．.！？!? ")) if c.strip()]


def predicate_words(claim: str, count: int = 2) -> list[str]:
    """The last ``count`` words written in kanji or katakana of a Japanese claim's last clause: its verb and what
    it acts on (製品, 使 of "…製品に使ってもよい"; 削除, 必要 of "…削除する必要があります"). [] for other languages."""
    said = clauses_of(claim) if KANA.search(plain_text(claim)) else []
    return CONTENT_RUN.findall(said[-1])[-count:] if said else []
