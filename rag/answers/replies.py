"""Replies to a yes/no question: "はい", "No.", "Yes, it can", "必要ありません" say nothing of their own.

Such a reply borrows every word from the question, so counting the words it shares with a passage measures the
question, not the answer: "はい" to "改変したソースコードをコミュニティに提供しなければなりませんか？" was shown as
verified beside "…提供は任意であり、義務とはされていません", and so was "いいえ". A reply is therefore checked as what
it asserts: the question's proposition, affirmed or denied (``stance``). "Yes" holds where a passage states the
proposition; "no" holds where a passage states its opposite (``ClaimCheck.contradicts``).

A bare yes or no to a question asked in the negative ("実装していないのですか？") is ambiguous: Japanese "はい" agrees
with the negation, English "yes" denies it. Such a reply is never verified.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from enum import Enum

from rag.answers.bounds import bounded_above, bounded_below
from rag.answers.claim_polarity import parts_of_mixed_polarity
from rag.answers.claims import ClaimCheck, check_claim
from rag.answers.facts import Fact, facts_of, plain_text
from rag.answers.faithfulness import (
    SUPPORT_THRESHOLD,
    asking_clause,
    content_tokens,
    is_yes_no_question,
    strip_markers,
    support,
)
from rag.answers.polarity import (
    POLARITY_MIN_SUPPORT,
    asks_negatively,
    denied_words,
    holds_words,
    is_negated,
    negation_count,
    predicate_words,
)

_PARTICLE = re.compile(r"^\s*(はい|ええ|いいえ|いえ|yes|no)\b\s*[、,.。!！]?\s*", re.IGNORECASE)
_DENYING_PARTICLES = frozenset({"いいえ", "いえ", "no"})
_SECOND_ASK = re.compile(
    r",?\s+and\s+(?=(?:is|are|does|do|did|can|could|has|have|was|were|will|would|should|must)\b)", re.IGNORECASE
)
"""Where an English yes/no question asks a second thing ("Is it implemented, and is it tested?"): a yes may answer
the first and a denial the second."""
GENERIC_PREDICATES = content_tokens(
    "できます できません です ます ません でした そうです あります ありません なります なりません います いません"
    " 必要 不要 可能 不可能 構いません かまいません 問題 大丈夫 よい いい 正しい"
    " it is are was were can could does do did will would must may should has have they you we he she"
    " not cannot true correct right so"
)
"""Words a reply may add without saying anything the question did not: its predicate and politeness."""
_WITHOUT = re.compile(r"\bwithout\b", re.IGNORECASE)
_KANA = re.compile(r"[\u3040-\u30ff]")
SELF_DENIAL_REASON = "it answers yes, then denies what the question asks"
_QUESTION_ENDING = re.compile(r"(?:のでしょうか|でしょうか|のですか|んですか|ですか|か)?\s*[?？。.]?\s*$")


class Stance(Enum):
    """What a reply to a yes/no question says of the question's proposition."""

    AFFIRMS = "affirms"
    DENIES = "denies"
    AMBIGUOUS = "ambiguous"


def stance(reply: str, question: str) -> Stance | None:
    """What ``reply`` says of ``question``'s proposition, when it is a bare reply to a yes/no question: a yes or a
    no, perhaps with a predicate that names nothing ("はい、必要です", "No, it cannot", "できません"). None for any
    other sentence: one that restates the question's subject is checked as a claim of its own.

    The reply's predicate decides when it has one ("必要ありません" denies); otherwise its particle does.
    """
    if not is_yes_no_question(question):
        return None
    plain = strip_markers(reply).strip()
    match = _PARTICLE.match(plain)
    particle = match.group(1).casefold() if match else ""
    rest = plain[match.end() :] if match else plain
    if facts_of(rest) or content_tokens(rest) - GENERIC_PREDICATES:
        return None  # it says something of its own ("はい、mTowerはTEE_GenerateRandomを実装しています"): a claim
    negated = asked_negated(question)
    if content_tokens(rest):
        return Stance.AFFIRMS if is_negated(rest) == negated else Stance.DENIES
    if not particle:
        return None
    if negated:
        return Stance.AMBIGUOUS
    return Stance.DENIES if particle in _DENYING_PARTICLES else Stance.AFFIRMS


def asked_negated(question: str) -> bool:
    """Whether what a yes/no question asks is negated, read in the clause that asks (``faithfulness.asking_clause``):
    a negation in its scene or a condition before it ("…whose licence conditions are not being met and you sell a
    product with it, are you in violation?", "…遵守できていないものがありました。…違反になりますか?") is not asked."""
    return is_negated(proposition(asking_clause(question)))


def proposition(question: str) -> str:
    """The statement a yes/no question asks about: the question without its question mark and ending ("…提供しなけれ
    ばなりませんか？" -> "…提供しなければなりません")."""
    return _QUESTION_ENDING.sub("", question.strip()) or question


def opening_reply(claim: str) -> tuple[bool, str] | None:
    """The yes (True) or no (False) a claim opens with ("Yes, …", "いいえ、…"), and the rest of it; None when it
    opens with neither."""
    plain = strip_markers(claim).strip()
    match = _PARTICLE.match(plain)
    if match is None:
        return None
    return match.group(1).casefold() not in _DENYING_PARTICLES, plain[match.end() :]


def denies(claim: str) -> bool:
    """Whether a claim answers "no": it opens with a denying particle ("いいえ", "No,") or denies what it states."""
    match = _PARTICLE.match(strip_markers(claim))
    if match and match.group(1).casefold() in _DENYING_PARTICLES:
        return True
    return is_negated(claim)


def denies_what_it_affirms(claim: str, question: str) -> bool:
    """Whether a claim that opens with a yes to a yes/no question goes on to deny what the question asks.

    "Yes, timing correction works during playback and operates without 'chopping' notes" to "Does the timing
    correction chop notes?" copies the brochure, so its words hold; its yes says the opposite. So does a yes that
    bounds from above the number the question bounds from below ("more than 16 …?" - "Yes, … up to 16"). In
    English the words a denial covers ("not", "without": ``polarity.denied_words``) must include one the question
    asks, and the rest of the sentence must restate the question (a double denial affirms: "it does not run without
    root"). In Japanese its last clause must deny the question's verb ("はい、…配布にはなりません" to "…配布した
    ことになりますか？").
    A question asked in the negative makes any bare yes ambiguous and is left to ``stance``.
    """
    if not is_yes_no_question(question) or asks_negatively(question):
        return False
    plain = strip_markers(claim).strip()
    match = _PARTICLE.match(plain)
    if match is None or match.group(1).casefold() in _DENYING_PARTICLES:
        return False
    body, asked = plain[match.end() :], proposition(question)
    if (beyond := bounded_below(asked)) and bounded_above(body) & beyond and not bounded_below(body):
        return True  # "more than 16 MIDI channels?" - "Yes, … up to 16 MIDI channels"
    if _KANA.search(body):
        verb = asked_verb(question)
        return bool(verb) and is_negated(body) and verb in "".join(predicate_words(body, 3))
    if len(_SECOND_ASK.split(question)) > 1 and parts_of_mixed_polarity(body):
        return False  # "Is it implemented, and is it tested?" - "Yes, it is implemented, but it is not tested"
    denying = _WITHOUT.sub(" not ", body)
    if negation_count(denying) % 2 == 0 or support(asked, body) < POLARITY_MIN_SUPPORT:
        return False
    denied = denied_words(denying) - denied_words(_WITHOUT.sub(" not ", asked))
    return any(holds_words({word}, " ".join(denied)) for word in content_tokens(asked))


def check_reply(
    stated: Stance,
    question: str,
    evidence: str,
    *,
    threshold: float = SUPPORT_THRESHOLD,
    given: Sequence[Fact] = (),
    source: str = "",
    lead_in: str = "",
) -> ClaimCheck:
    """Check a bare reply (its ``stated`` stance) against the text it cites, as the question's proposition.

    "Yes" is supported where the evidence states the proposition, "no" where it states the opposite; a "yes" the
    evidence denies ``contradicts`` it. An ambiguous reply is never supported. The other arguments are
    ``check_claim``'s.
    """
    check = check_claim(
        proposition(question),
        evidence,
        threshold=threshold,
        given=given,
        topic=question,
        source=source,
        lead_in=lead_in,
    )
    if stated is Stance.AMBIGUOUS:
        return replace(check, supported=False, contradicts=False, reason=_AMBIGUOUS)
    if (check.supported or check.contradicts) and not says_word(check.evidence, verb := asked_verb(question)):
        # "もともとのOSSがライセンス違反状態です" holds every word of "ライセンス違反状態にあるOSSを製品に使ってもよい"
        # but 使: it restates what the question is about, not what it asks of it
        return replace(
            check, supported=False, contradicts=False, polarity_conflict=False, reason=NO_VERB_REASON.format(verb)
        )
    if stated is Stance.AFFIRMS:
        return check
    if check.contradicts:
        return replace(check, supported=True, polarity_conflict=False, reason="", contradicts=False)
    if check.supported:
        # no negation where the proposition's words are is weaker evidence than a negation: a section heading
        # "Random Data Generation Function" holds the words of "Can I get random numbers from mTower?" and states
        # nothing, so the "no" is left unsupported without calling it contradicted
        return replace(check, supported=False, reason=_OPPOSITE)
    return check


_AMBIGUOUS = "a bare yes or no to a question asked in the negative is ambiguous"
NO_VERB_REASON = "the cited text is about what the question asks of, but does not say 「{}」 of it"


def says_word(text: str, word: str) -> bool:
    """Whether ``text`` holds ``word``, also across a line break a PDF put inside it ("出\n\n荷する")."""
    return word in re.sub(r"\s", "", plain_text(text))


def asked_verb(question: str) -> str:
    """What a Japanese yes/no question asks of its subject: the last word of its proposition written in kanji or
    katakana, passing over a predicate that says nothing by itself (問題, 必要, 可能: "…使うなら問題ありませんか" asks
    about 使). "" for other languages, where every evidence holds it."""
    words = [w for w in predicate_words(proposition(question), 3) if not content_tokens(w) <= GENERIC_PREDICATES]
    return words[-1] if words else ""


_OPPOSITE = "the cited text seems to state what the reply denies"
