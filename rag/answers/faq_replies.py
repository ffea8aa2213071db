"""A FAQ's own yes or no: a document that asks a yes/no question and answers it with a bare "はい" or "いいえ" ("Yes",
"No") on a line of its own decides that question, in whatever language a user asks it.

A Japanese FAQ slide reads "ライセンス文をSPDX-License-Identifierへ置き換えていいですか? … いいえ". Asked in
English ("Can I delete the full license text … and just put an SPDX-License-Identifier line there instead?"), the
model answered "Yes": no word of the English reply is in the Japanese page, so no check could say it was wrong, and
the page's "いいえ" went unread. Asked in Japanese whether lending a device holding OSS distributes it, a passage on
another case ("…設置して当社が使用しているだけであれば、…配布にはなりません") was taken for the answer's opposite,
while the slide asking just that ("OSSを組み込んだ機器を貸与した場合、OSSを配布したことになりますか?") says "はい".

The FAQ entry that asks the user's question is found by meaning (the embedding model's cosine, which reads across
languages) among the entries of the passages the model read (``faq_decision``); its reply word then verifies a
yes or no that agrees and contradicts one that does not (``rag.answers.verification``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag.answers.citations import QUOTE_MAX_CHARS, Passage
from rag.answers.evidence import SentenceRelevance, answers_nothing
from rag.answers.fact_matching import fact_found
from rag.answers.facts import facts_of
from rag.answers.faithfulness import content_tokens, is_question, is_yes_no_question, support
from rag.answers.polarity import asks_negatively, is_negated
from rag.answers.prompts import script_language
from rag.answers.question_fit import RESTATED_SHARE, adds_no_fact
from rag.answers.replies import Stance, asked_negated, opening_reply, stance
from rag.answers.windows import sentence_units
from rag.records import ClaimVerdict

_REPLY_LINE = re.compile(
    r"(?:(?:A|Ans(?:wer)?|答え?|回答)\s*[:：.．]\s*)?(?P<word>はい|いいえ|yes|no)\s*[.。!！]?", re.IGNORECASE
)
"""A line that is a reply and nothing else: "はい", "いいえ。", "No.", "A: Yes", "回答：いいえ"."""
_AFFIRMING = frozenset({"はい", "yes"})
_SHARE_OR_COUNT = re.compile(r"^\s*[\d.,]+\s*(?:[%％]|\(|（|$)")
"""A line a chart puts beside an answer option: "45.9%", "17 (45.9%)", "17"."""
REPLY_REACH = 8
"""Lines (blank ones aside) a reply may stand below the question it answers: a FAQ slide puts a note, a footnote
and a link between them ("…良いですか。" / "(次スライド参照)" / "(*1) SPDXでは…" / "<https://spdx.dev/…>" /
"いいえ")."""
SAME_LANGUAGE_FLOOR = 0.91
"""Least cosine between a question and a FAQ question in the same language for one to be taken for the other (e5).
On 26 questions asked of the license FAQ (``/work``-kept probes, 24 written for this and the golden set's four), the
entries asking the same thing scored 0.913 to 0.961; the closest entry of another case to a golden question 0.90."""
ACROSS_LANGUAGES_FLOOR = 0.88
"""The same across languages, where e5's cosines are lower: English questions met their Japanese entry at 0.877 to
0.897, and the closest entry of another case at up to 0.874."""
RIVAL_MARGIN = 0.02
"""How close another FAQ entry of the passages that replies the other way may come before neither decides: entries
on neighbouring cases are phrased alike ("機器を貸与した場合" はい, "場所を借用し…設置し当社が使用します" いいえ)."""


@dataclass(frozen=True, slots=True)
class FaqReply:
    """A yes/no question a text asks and the reply it gives on a line of its own.

    Attributes:
        question: the question's line, verbatim.
        word: the reply as written ("いいえ", "Yes").
        affirms: whether the reply is a yes.
        quote: the text from the question to the reply, verbatim (the question alone when that is too long).
    """

    question: str
    word: str
    affirms: bool
    quote: str


@dataclass(frozen=True, slots=True)
class FaqDecision:
    """The FAQ entry of passage ``n`` that asks the user's question, and how close in meaning it is."""

    n: int
    reply: FaqReply
    cosine: float


def faq_replies(text: str) -> list[FaqReply]:
    """The yes/no questions ``text`` answers with a bare reply line: the nearest question above each reply line (at
    most ``REPLY_REACH`` lines up, none passed over that is itself a reply).

    Answer options are no reply: a survey chart lists "はい" and "いいえ" under its question, each beside its share
    ("はい" / "45.9%"), so a reply line beside a share or a count, or followed by the other reply before the next
    question, answers nothing.
    """
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    found: list[FaqReply] = []
    for i, line in enumerate(lines):
        reply = _REPLY_LINE.fullmatch(line.strip())
        if reply is None or _is_option(lines, i, reply["word"].casefold() in _AFFIRMING):
            continue
        question_at = _question_above(lines, i)
        if question_at is None:
            continue
        question = lines[question_at].strip()
        start = offsets[question_at] + lines[question_at].index(question)
        end = offsets[i] + lines[i].index(line.strip()) + len(line.strip())
        quote = text[start:end] if end - start <= 2 * QUOTE_MAX_CHARS else question
        found.append(FaqReply(question, reply["word"], reply["word"].casefold() in _AFFIRMING, quote))
    return found


def _question_above(lines: Sequence[str], at: int) -> int | None:
    seen = 0
    for j in range(at - 1, -1, -1):
        line = lines[j].strip()
        if not line:
            continue
        if _REPLY_LINE.fullmatch(line) or seen == REPLY_REACH:
            return None
        if is_question(line):
            return j if is_yes_no_question(line) and not asks_negatively(line) else None
        seen += 1
    return None


def _is_option(lines: Sequence[str], at: int, affirms: bool) -> bool:
    """Whether the reply line at ``at`` is one of a chart's answer options rather than a FAQ's reply."""
    after = [line.strip() for line in lines[at + 1 :] if line.strip()]
    if after and _SHARE_OR_COUNT.match(after[0]):
        return True
    for line in after:
        if is_question(line):
            return False
        if (other := _REPLY_LINE.fullmatch(line)) and (other["word"].casefold() in _AFFIRMING) != affirms:
            return True
    return False


def faq_decision(question: str, passages: Sequence[Passage], relevance: SentenceRelevance | None) -> FaqDecision | None:
    """The FAQ entry of the passages that asks ``question``, when one plainly does; None otherwise.

    It must be a yes/no question asked plainly (a bare reply to one asked in the negative is ambiguous), its entry's
    question must be the passages' sentence closest to the user's in meaning and at least ``SAME_LANGUAGE_FLOOR``
    close (``ACROSS_LANGUAGES_FLOOR`` in another language), no entry replying the other way may come within
    ``RIVAL_MARGIN`` of it, and the entry must hold the numbers and names the user's question gives
    ("SPDX-License-Identifier"): an entry on another version or product asks something else.
    """
    if relevance is None or not is_yes_no_question(question) or asks_negatively(question):
        return None
    entries = [(p.n, chunk.text, reply) for p in passages for chunk in p.read for reply in faq_replies(chunk.text)]
    if not entries:
        return None
    units = [reading for p in passages for unit, reading in sentence_units(p.text) if not answers_nothing(unit)]
    cosines = list(relevance(question, [reply.question for _n, _t, reply in entries] + units))
    asked, closest = cosines[: len(entries)], max(cosines)
    best = max(range(len(entries)), key=lambda i: asked[i])
    n, text, reply = entries[best]
    same_language = script_language(reply.question) == script_language(question)
    floor = SAME_LANGUAGE_FLOOR if same_language else ACROSS_LANGUAGES_FLOOR
    if asked[best] < max(closest, floor):
        return None  # another sentence of the passages is closer to what was asked, or no FAQ question is close
    rivals = [i for i, (_n, _t, other) in enumerate(entries) if other.affirms != reply.affirms]
    if any(asked[i] >= asked[best] - RIVAL_MARGIN for i in rivals):
        return None
    given = [f for f in facts_of(question) if f.kind in ("number", "date", "identifier", "version", "name")]
    if not all(fact_found(f, tuple(facts_of(text)), text) for f in given):
        return None
    return FaqDecision(n, reply, asked[best])


FAQ_OPPOSITE_REASON = "the document asks this question itself (「{question}」) and replies 「{word}」"


def faq_verdict(claim: str, cited: Sequence[int], question: str, decision: FaqDecision) -> ClaimVerdict | None:
    """The verdict the FAQ entry that asks ``question`` gives a claim answering it yes or no; None for a claim that
    gives no yes or no, or agrees while saying more than the question asked (its other words are checked as any
    claim's).

    A yes or no the entry's reply disagrees with is unsupported, whatever follows it ("Yes, you can replace it with
    the identifier" against "いいえ"); one that agrees, bare or restating the question, is verified on the entry,
    cited by its passage's number.
    """
    said = _reply_given(claim, question)
    if said is None:
        return None
    reply = decision.reply
    if said != reply.affirms:
        reason = FAQ_OPPOSITE_REASON.format(question=reply.question, word=reply.word)
        return ClaimVerdict(claim, "unsupported", (), reason)
    if not _restates(claim, question):
        return None
    return ClaimVerdict(claim, "verified" if decision.n in cited else "reattributed", (decision.n,))


def _reply_given(claim: str, question: str) -> bool | None:
    """The yes (True) or no (False) a claim gives a yes/no question: a bare reply (``replies.stance``); the one it
    opens with when the rest does not say the other ("Yes, it is not enough" says neither plainly); or, opening with
    neither, the question's proposition restated with or without a denial ("When you ship a dual-licensed OSS
    component as a binary, it is not enough to include only the text of the license you chose" says no)."""
    said = stance(claim, question)
    if said is not None:
        return None if said is Stance.AMBIGUOUS else said is Stance.AFFIRMS
    opening = opening_reply(claim)
    if opening is None:
        if not _restates(claim, question):
            return None
        return is_negated(claim) == asked_negated(question)
    affirms, rest = opening
    if content_tokens(rest) and (is_negated(rest) != asked_negated(question)) == affirms:
        return None
    return affirms


def _restates(claim: str, question: str) -> bool:
    """Whether a yes or no says nothing besides: a bare reply, or one whose other words are mostly the question's
    and whose facts are all the question's."""
    opening = opening_reply(claim)
    rest = opening[1] if opening is not None else claim
    if not content_tokens(rest):
        return True
    if not adds_no_fact(rest, question):
        return False
    return stance(claim, question) is not None or support(rest, question) >= RESTATED_SHARE


def replied_in(claim: str, question: str, quote: str) -> bool:
    """Whether ``quote`` is a FAQ entry whose reply gives the yes or no ``claim`` gives ``question``, the claim
    saying nothing besides (what ``faq_verdict`` verifies, read back from a citation's quote)."""
    said = _reply_given(claim, question)
    return (
        said is not None and _restates(claim, question) and any(reply.affirms == said for reply in faq_replies(quote))
    )
