"""An answer checked claim by claim: each sentence against the passage it cites, citations built from what holds.

Every sentence of the model's answer is a claim. It is ``verified`` when a passage it cites supports it
(``claims.check_claim``: its numbers, names and polarity are in the cited sentence, enough of its words too);
``reattributed`` when it cites the wrong passage (or none) and another passage supports it, whose marker it then
carries; ``unsupported`` otherwise, with its markers removed, so nothing unsupported looks verified. A citation quotes
the sentence that supports the claim, verbatim from the chunk. When the answer's main claim (its first claim) is
unsupported, or most of its claims are, the caller shows the evidence instead of the answer. A yes or no that a FAQ
entry of the passages, asking the question itself, replies to is decided by that reply (``faq_replies``).

One claim is judged in ``claim_judgement``; this module reads the answer whole: which claim is its point, the
passage that contradicts a failed point, the citations, and whether the evidence replaces the answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rag.answers.across_languages import meaning_units
from rag.answers.asked_figures import figure_unsaid
from rag.answers.citations import Passage, clip_quote_for, closed_sentence_spans
from rag.answers.claim_judgement import check_against, judge_claim, with_marker
from rag.answers.evidence import SentenceRelevance
from rag.answers.fact_matching import same_fact
from rag.answers.facts import Fact, facts_of
from rag.answers.faithfulness import (
    is_question,
    is_table_row,
    is_yes_no_question,
    markers_of,
    strip_markers,
)
from rag.answers.faq_replies import FaqDecision, faq_decision, faq_verdict
from rag.answers.premises import premises
from rag.answers.question_fit import (
    RESTATES_ONLY_REASON,
    adds_nothing,
    is_claim,
    reading_context,
    restates,
)
from rag.answers.replies import (
    SELF_DENIAL_REASON,
    asked_verb,
    denies_what_it_affirms,
    says_word,
    stance,
)
from rag.records import Citation, ClaimVerdict


@dataclass(frozen=True, slots=True)
class Contradiction:
    """A passage that states the opposite of the answer's main claim: its number, the sentence(s) that say so
    (clipped for quoting), the claim they contradict, and the yes (True) or no (False) the passage itself replies
    when it is a FAQ entry asking the question (None: the reply is the opposite of the claim's)."""

    n: int
    quote: str
    claim: str
    affirms: bool | None = None


@dataclass(frozen=True, slots=True)
class CheckedAnswer:
    """The answer after its claims were checked.

    Attributes:
        text: the answer with markers fixed: reattributed sentences carry their supporting passage's marker,
            unsupported sentences none.
        citations: for each passage still cited, one per sentence that supports a claim citing it, in answer order:
            two claims resting on two sentences of one passage each find theirs quoted under its number.
        claims: the verdict on every sentence.
        main_claim_failed: the main claim, or more than half of the claims, are unsupported. The main claim is the
            first, unless that is a bare yes or no (``replies``) that no passage confirms or denies, or a restatement
            of a what/which question (``restates``), and more follow.
        attributed: sentences the model left uncited that now cite the passage supporting them.
        moved: sentences whose citation was moved from a passage that does not support them to one that does.
        contradiction: when the main claim is unsupported because a passage states its opposite
            (``ClaimCheck.contradicts``), that passage and the sentence(s) that say so, to quote.
    """

    text: str
    citations: tuple[Citation, ...]
    claims: tuple[ClaimVerdict, ...]
    main_claim_failed: bool
    attributed: int = 0
    moved: int = 0
    contradiction: Contradiction | None = None

    @property
    def unsupported(self) -> tuple[str, ...]:
        return tuple(c.sentence for c in self.claims if c.status == "unsupported")


def check_answer(
    answer: str, question: str, passages: Sequence[Passage], relevance: SentenceRelevance | None = None
) -> CheckedAnswer:
    """Check every sentence of ``answer`` against the passages it cites and rebuild its markers and citations.

    Args:
        answer: the model's answer with ``[n]`` markers (invalid markers already removed).
        question: the question asked (short claims are read with it).
        passages: the numbered passages the answer was written from.
        relevance: the embedding model's cosines (``rag.answers.evidence.SentenceRelevance``): a claim in another
            language than its evidence must be checked against a row or sentence about as close to it in meaning as
            any of the passages' (None: no such check, for callers without an embedding model).

    Returns:
        The checked answer.
    """
    by_n = {p.n: p for p in passages}
    texts, sources = [p.chunk.text for p in passages], [p.chunk.source for p in passages]
    given = premises(question, texts, sources)
    denial_given = premises(question, texts, sources, denial=True)
    units = meaning_units(passages) if relevance is not None else []
    faq = faq_decision(question, passages, relevance)  # a FAQ entry of the passages that asks the question itself
    pieces: list[str] = []
    verdicts: list[ClaimVerdict] = []
    quotes: dict[int, list[str]] = {}  # passage -> the sentences quoted for the claims citing it, in answer order
    attributed = moved = 0
    contradiction: Contradiction | None = None
    main: ClaimVerdict | None = None  # the first claim, unless it is a bare yes or no that no passage decides
    bare: ClaimVerdict | None = None  # that bare yes or no: a later claim replaces it only if it says the verb asked
    no_figure = figure_unsaid(strip_markers(answer), question)
    cursor = 0
    for start, end in closed_sentence_spans(answer):
        sentence = answer[start:end]
        pieces.append(answer[cursor:start])
        cursor = end
        plain = strip_markers(sentence)
        if not is_claim(plain, question):
            verdicts.append(ClaimVerdict(plain, "not_checked", tuple(n for n in markers_of(sentence) if n in by_n)))
            pieces.append(sentence)
            continue
        cited = [n for n in markers_of(sentence) if n in by_n]
        if main is None and faq is not None and (decided := faq_verdict(plain, cited, question, faq)) is not None:
            # the document's own reply to the question decides the answer's yes or no, in any language
            main, contradiction = decided, _faq_contradiction(decided, faq)
            verdicts.append(decided)
            n = decided.cited[0] if decided.cited else None
            pieces.append(with_marker(sentence, n))
            if n is not None:
                quotes.setdefault(n, []).append(faq.reply.quote)
            if decided.status == "reattributed":
                attributed, moved = (attributed, moved + 1) if cited else (attributed + 1, moved)
            continue
        first = main is None
        judgement = judge_claim(sentence, question, passages, given, first=first, figure_unsaid=no_figure, units=units,
                                relevance=relevance)  # fmt: skip
        denied_by_itself: Contradiction | None = None
        if judgement.verdict.status != "unsupported" and denies_what_it_affirms(plain, question):
            # its own words hold and deny what its yes affirms: the passage they rest on says the opposite of the yes
            for m, said, supporting in judgement.supports:
                if m is not None and supporting is not None:
                    denied_by_itself = Contradiction(m, clip_quote_for(said, supporting.evidence), plain)
                    break
            judgement = judgement.refused(SELF_DENIAL_REASON)
        verdict, marked, supports = judgement.verdict, judgement.marked, judgement.supports
        if main is None and bare is not None and not says_word(plain, asked_verb(question)):
            main = bare  # "はい" undecided, then "#ライセンス違反…": nothing after it says what the yes is about
        # a table row copied from a passage is the evidence of a point, not the point: "The functions missing from …
        # are listed below:" over rows the table marks "Yes" stands or falls with what it says of them
        if main is None and not is_table_row(plain):
            context = reading_context(plain, question)
            if verdict.status == "unsupported":
                contradiction = denied_by_itself or _contradiction(plain, context, cited, passages, given, question)
                if contradiction is None and denial_given != given:
                    contradiction = _contradiction(plain, context, cited, passages, denial_given, question)
            # "はい。" that no passage confirms or denies leaves the answer's point to the sentence after it
            undecided = verdict.status == "unsupported" and contradiction is None and stance(plain, question)
            bare = verdict if undecided else bare
            main = None if undecided or restates(plain, question) else verdict
        verdicts.append(verdict)
        if verdict.status == "reattributed":
            attributed, moved = (attributed, moved + 1) if cited else (attributed + 1, moved)
        pieces.append(marked)
        for m, said, supporting in supports:
            if m is not None and supporting is not None:
                quote = clip_quote_for(said, supporting.evidence)
                cited_quotes = quotes.setdefault(m, [])
                if not any(quote in other for other in cited_quotes):
                    cited_quotes.append(quote)
    pieces.append(answer[cursor:])
    text = "".join(pieces)
    citations = tuple(by_n[n].cite(quote) for n in dict.fromkeys(markers_of(text)) for quote in quotes.get(n, ()))
    verdicts, main_failed = _settled(verdicts, main, question)
    return CheckedAnswer(text.strip(), citations, tuple(verdicts), main_failed, attributed, moved, contradiction)


def _settled(verdicts: list[ClaimVerdict], main: ClaimVerdict | None, question: str) -> tuple[list[ClaimVerdict], bool]:
    """The verdicts once the answer is read whole, and whether its main claim (``main``, else the first judged)
    failed: an answer that only restates the question, or only asks, says nothing."""
    if (
        main is None
        and verdicts
        and all(v.status == "not_checked" or adds_nothing(v.sentence, question) for v in verdicts)
    ):
        # every sentence restates the question ("厚労省の資料で、裁判例集の資料番号はです", the number left out):
        # the words hold, and nothing answers
        verdicts = [v if v.status == "not_checked" else _restating_only(v) for v in verdicts]
    if main is None and not any(v.status != "not_checked" for v in verdicts):
        # an answer that only asks ("データが分断されていないか", a checklist item copied as it stands) says nothing
        verdicts = [_only_asking(v) if v.sentence and is_question(v.sentence) else v for v in verdicts]
    judged = [v for v in verdicts if v.status != "not_checked"]
    failed = [v for v in judged if v.status == "unsupported"]
    main = main or (judged[0] if judged else None)
    # an answer most of whose sentences fail is replaced, unless its point is a yes or no that holds: "Yes, pTeX 3.8.3
    # can read back the value of \\kansujichar" stands, its wrong details are shown as unsupported
    answered = main is not None and main.status != "unsupported" and is_yes_no_question(question)
    main_failed = main is not None and (
        main.status == "unsupported" or (not answered and 2 * len(failed) > len(judged))
    )
    return verdicts, main_failed


def _faq_contradiction(verdict: ClaimVerdict, faq: FaqDecision) -> Contradiction | None:
    """The FAQ entry as the contradiction of a yes or no its reply disagrees with (None when it agrees)."""
    if verdict.status != "unsupported":
        return None
    return Contradiction(faq.n, faq.reply.quote, verdict.sentence, faq.reply.affirms)


def _restating_only(verdict: ClaimVerdict) -> ClaimVerdict:
    return ClaimVerdict(verdict.sentence, "unsupported", (), RESTATES_ONLY_REASON)


ONLY_ASKS_REASON = "it asks a question and states nothing"


def _only_asking(verdict: ClaimVerdict) -> ClaimVerdict:
    return ClaimVerdict(verdict.sentence, "unsupported", (), ONLY_ASKS_REASON)


def _contradiction(
    claim: str, context: str, cited: list[int], passages: Sequence[Passage], given: Sequence[Fact], topic: str
) -> Contradiction | None:
    """The first passage (those the claim cites first) that states the claim's opposite, with the sentence(s) that
    say so clipped for quoting; None when none does, or when the "claim" asks instead of stating: a model that copies
    a checklist's question ("データが分断されていないか") has said nothing a passage could contradict."""
    if is_question(claim):
        return None
    claimed = facts_of(claim)
    for passage in sorted(passages, key=lambda p: (p.n not in cited, p.n)):
        check = check_against(claim, passage, context, given, topic)
        # a premise the sentence leaves implicit must not be one it names another identifier in place of
        found = facts_of(check.evidence)
        implicit = any(f.kind == "identifier" and not any(same_fact(f, g) for g in found) for f in claimed)
        named_other = any(f.kind == "identifier" and not any(same_fact(f, c) for c in claimed) for f in found)
        if check.contradicts and not (implicit and named_other):
            return Contradiction(passage.n, clip_quote_for(claim, check.evidence), claim)
    return None
