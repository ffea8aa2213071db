"""An answer checked claim by claim: each sentence against the passage it cites, citations built from what holds.

Every sentence of the model's answer is a claim. It is ``verified`` when a passage it cites supports it
(``claims.check_claim``: its numbers, names and polarity are in the cited sentence, enough of its words too);
``reattributed`` when it cites the wrong passage (or none) and another passage supports it, whose marker it then
carries; ``unsupported`` otherwise, with its markers removed, so nothing unsupported looks verified. A citation quotes
the sentence that supports the claim, verbatim from the chunk. When the answer's main claim (its first claim) is
unsupported, or most of its claims are, the caller shows the evidence instead of the answer. A yes or no that a FAQ
entry of the passages, asking the question itself, replies to is decided by that reply (``faq_replies``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag.answers.across_languages import ACROSS_REASON, meaning_units, tied_by_facts_alone
from rag.answers.bindings import answered_elsewhere
from rag.answers.citations import ATTRIBUTION_THRESHOLD, Passage, clip_quote_for, closed_sentence_spans
from rag.answers.claim_words import name_tokens, readable_in, title_named
from rag.answers.claims import ClaimCheck, check_claim
from rag.answers.evidence import SentenceRelevance
from rag.answers.facts import Fact, facts_of, same_fact
from rag.answers.faithfulness import (
    SUPPORT_THRESHOLD,
    is_question,
    is_table_row,
    is_yes_no_question,
    markers_of,
    strip_markers,
)
from rag.answers.faq_replies import FaqDecision, faq_decision, faq_verdict
from rag.answers.premises import premises, premises_for
from rag.answers.prompts import script_language
from rag.answers.question_fit import (
    ECHOED_NAME_REASON,
    NO_COUNT_REASON,
    NOT_ASKED_REASON,
    RESTATES_ONLY_REASON,
    adds_nothing,
    asked_untouched,
    count_unsaid,
    is_claim,
    names_only_asked,
    reading_context,
    restates,
    unmentioned,
    verb_unsaid,
)
from rag.answers.replies import (
    NO_VERB_REASON,
    SELF_DENIAL_REASON,
    asked_verb,
    check_reply,
    denies_what_it_affirms,
    says_word,
    stance,
)
from rag.ingest.lists import opening_lead_in
from rag.records import Chunk, Citation, ClaimStatus, ClaimVerdict

_MARKER = re.compile(r"\s*\[\d+\]")
_CLOSING = "。．.！？!?"
_JOIN = re.compile(r"(,\s+(?:while|whereas|but)\s+|;\s+|(?<=[しり])、|(?<=[すた]が)、|一方で?、)")
"""Where a sentence joins two statements that may each rest on a passage of their own: ", while", "; ", and in
Japanese after a continuative (開始し、/ であり、) or an adversative (ですが、), never after a topic (「…は、」 keeps
its subject with what is said of it)."""


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
    uncounted = count_unsaid(strip_markers(answer), question)
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
        context = reading_context(plain, question)
        cited = [n for n in markers_of(sentence) if n in by_n]
        if main is None and faq is not None and (decided := faq_verdict(plain, cited, question, faq)) is not None:
            # the document's own reply to the question decides the answer's yes or no, in any language
            main, contradiction = decided, _faq_contradiction(decided, faq)
            verdicts.append(decided)
            n = decided.cited[0] if decided.cited else None
            pieces.append(_with_marker(sentence, n))
            if n is not None:
                quotes.setdefault(n, []).append(faq.reply.quote)
            if decided.status == "reattributed":
                attributed, moved = (attributed, moved + 1) if cited else (attributed + 1, moved)
            continue
        verdict, n, check = _judge(plain, context, cited, passages, given, question)
        marked, supports = _with_marker(sentence, n), [(n, plain, check)]
        if verdict.status == "unsupported" and (joined := _judge_parts(sentence, passages, given, question)):
            verdict, marked, supports = joined
        if verdict.status != "unsupported" and (unread := unmentioned(plain, question, passages)):
            verdict = ClaimVerdict(plain, "unsupported", (), "no passage mentions " + ", ".join(unread))
            marked, supports = _with_marker(sentence, None), []
        checks = [check for _n, _said, check in supports if check is not None]
        if verdict.status != "unsupported" and tied_by_facts_alone(plain, question, checks, units, relevance):
            verdict = ClaimVerdict(plain, "unsupported", (), ACROSS_REASON)
            marked, supports = _with_marker(sentence, None), []
        moved_here = verdict.status == "reattributed"
        if verdict.status != "unsupported" and (verb := verb_unsaid(plain, question, checks, moved=moved_here)):
            verdict = ClaimVerdict(plain, "unsupported", (), NO_VERB_REASON.format(verb))
            marked, supports = _with_marker(sentence, None), []
        if verdict.status != "unsupported" and main is None and uncounted:
            verdict = ClaimVerdict(plain, "unsupported", (), NO_COUNT_REASON)  # true, maybe, and no answer
            marked, supports = _with_marker(sentence, None), []
        if verdict.status != "unsupported" and main is None and (asked := asked_untouched(plain, question, sources)):
            verdict = ClaimVerdict(plain, "unsupported", (), NOT_ASKED_REASON.format(asked))  # true, of another thing
            marked, supports = _with_marker(sentence, None), []
        if verdict.status != "unsupported" and main is None and (echoed := names_only_asked(plain, question)):
            verdict = ClaimVerdict(plain, "unsupported", (), ECHOED_NAME_REASON.format(echoed))  # nobody new
            marked, supports = _with_marker(sentence, None), []
        denied_by_itself: Contradiction | None = None
        if verdict.status != "unsupported" and denies_what_it_affirms(plain, question):
            # its own words hold and deny what its yes affirms: the passage they rest on says the opposite of the yes
            for m, said, supporting in supports:
                if m is not None and supporting is not None:
                    denied_by_itself = Contradiction(m, clip_quote_for(said, supporting.evidence), plain)
                    break
            verdict = ClaimVerdict(plain, "unsupported", (), SELF_DENIAL_REASON)
            marked, supports = _with_marker(sentence, None), []
        if main is None and bare is not None and not says_word(plain, asked_verb(question)):
            main = bare  # "はい" undecided, then "#ライセンス違反…": nothing after it says what the yes is about
        # a table row copied from a passage is the evidence of a point, not the point: "The functions missing from …
        # are listed below:" over rows the table marks "Yes" stands or falls with what it says of them
        if main is None and not is_table_row(plain):
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
    return CheckedAnswer(text.strip(), citations, tuple(verdicts), main_failed, attributed, moved, contradiction)


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


def _judge(
    claim: str,
    context: str,
    cited: list[int],
    passages: Sequence[Passage],
    given: Sequence[Fact] = (),
    topic: str = "",
) -> tuple[ClaimVerdict, int | None, ClaimCheck | None]:
    """The verdict on one claim, the passage number it ends up citing and the check that supports it."""
    by_n = {p.n: p for p in passages}
    failed: list[ClaimCheck] = []
    for n in cited:
        check = _check(claim, by_n[n], context, given, topic)
        if check.supported and (elsewhere := _answered_elsewhere(claim, context, by_n[n], check, passages)):
            return ClaimVerdict(claim, "unsupported", (), elsewhere), None, None
        if check.supported:
            return ClaimVerdict(claim, "verified", (n,)), n, check
        failed.append(check)
    first_failure = failed[0] if failed else None
    # the model cited the wrong passage, or none: a passage it did not choose must support the claim more strongly,
    # unless the claim states facts (numbers, names, identifiers): those must all be found there, which is stronger
    threshold = SUPPORT_THRESHOLD if facts_of(claim) else ATTRIBUTION_THRESHOLD
    others = [p for p in passages if p.n not in cited]
    checks = [(p.n, _check(claim, p, context, given, topic, threshold)) for p in others]
    supported = [(n, c) for n, c in checks if c.supported]
    # a passage that restates the claim as closely as the one supporting it, and says the opposite, decides:
    # "it is unsafe to nest optional arguments" against "optional arguments … may safely be nested" is not
    # supported by an example elsewhere that shares "optional argument" and \NewDocumentCommand
    opposing = [c for c in [*failed, *(c for _n, c in checks)] if c.opposes]
    if supported:
        n, check = max(supported, key=lambda item: (item[1].support, -item[0]))
        closest = max(opposing, key=lambda c: c.support, default=None)
        if closest is None or closest.support < check.support:
            if elsewhere := _answered_elsewhere(claim, context, by_n[n], check, passages):
                return ClaimVerdict(claim, "unsupported", (), elsewhere), None, None
            return ClaimVerdict(claim, "reattributed", (n,)), n, check
        return ClaimVerdict(claim, "unsupported", (), closest.reason), None, None
    if first_failure is None and checks:
        first_failure = max((c for _, c in checks), key=lambda c: c.support)
    reason = first_failure.reason if first_failure else "no passage to check it against"
    return ClaimVerdict(claim, "unsupported", (), reason), None, None


def _answered_elsewhere(
    claim: str, context: str, passage: Passage, check: ClaimCheck, passages: Sequence[Passage]
) -> str:
    """Why a short claim (one that leans on its question, ``context``) is not the answer its passage supports: a
    passage, its own or another, gives a sibling of its fact for what the question asks
    (``bindings.answered_elsewhere``); "" otherwise."""
    if not context:
        return ""
    named = name_tokens(passage.chunk.source, title_named(passage.chunk, context))
    readable = readable_in(context, script_language(check.evidence), named) or context
    others = [p.chunk.text for p in passages]
    if (sibling := answered_elsewhere(facts_of(claim), f"{readable} {claim}", check.evidence, others)) is None:
        return ""
    return f"the passages give {sibling.text} for what the question asks"


def _judge_parts(
    sentence: str, passages: Sequence[Passage], given: Sequence[Fact], question: str
) -> tuple[ClaimVerdict, str, list[tuple[int | None, str, ClaimCheck | None]]] | None:
    """A sentence joining facts from two passages, judged part by part: "The ban starts 270 days after enactment,
    while a challenge must be filed within 165 days" holds one deadline from each of two sections, and no passage
    holds both. It splits where its clauses join (``_JOIN``) when every part states a fact of its own, and is
    supported when every part is, each part then citing its own passage. None when it does not split or a part
    fails."""
    parts = _JOIN.split(sentence)
    texts, joins = parts[::2], parts[1::2]
    if len(texts) < 2 or not all(facts_of(strip_markers(t)) for t in texts):
        return None
    by_n = {p.n: p for p in passages}
    judged = []
    for text in texts:
        plain = strip_markers(text)
        context = reading_context(plain, question)
        verdict, n, check = _judge(
            plain, context, [m for m in markers_of(text) if m in by_n], passages, given, question
        )
        if verdict.status == "unsupported":
            return None
        judged.append((verdict, n, plain, check))
    status: ClaimStatus = "verified" if all(v.status == "verified" for v, *_ in judged) else "reattributed"
    cited = tuple(dict.fromkeys(n for _, n, _, _ in judged if n is not None))
    marked = "".join(_with_marker(text, n) + join for (_, n, _, _), text, join in zip(judged, texts, [*joins, ""]))
    return ClaimVerdict(strip_markers(sentence), status, cited), marked, [(n, p, c) for _, n, p, c in judged]


def _check(
    claim: str,
    passage: Passage,
    context: str,
    given: Sequence[Fact],
    topic: str,
    threshold: float = SUPPORT_THRESHOLD,
) -> ClaimCheck:
    """``check_claim`` against a passage's whole chunk, whose file name tells which words only name the document
    and whose metadata keeps the sentence introducing a list it starts in; a bare reply to a yes/no question
    ("はい", "No, it cannot") is checked as the question's proposition instead.

    A claim the chunk does not support is checked against the neighbours the passage shows beside it
    (``Passage.around``): the model read "新しい文字クラスはcl-i から cl-xii までの 12 個とする" under the heading
    chunk it was found by. The first that supports it is its check; else the chunk's."""
    own = _check_chunk(claim, passage.chunk, context, given, topic, threshold)
    if own.supported:
        return own
    for neighbour in passage.around:
        if (check := _check_chunk(claim, neighbour, context, given, topic, threshold)).supported:
            return check
    return own


def _check_chunk(
    claim: str, chunk: Chunk, context: str, given: Sequence[Fact], topic: str, threshold: float
) -> ClaimCheck:
    lead_in = opening_lead_in(chunk)
    given = premises_for(chunk, given, topic) if topic else given
    if topic and (stated := stance(claim, topic)) is not None:
        return check_reply(
            stated, topic, chunk.text, threshold=threshold, given=given, source=chunk.source, lead_in=lead_in
        )
    return check_claim(
        claim,
        chunk.text,
        context=context,
        threshold=threshold,
        given=given,
        topic=topic,
        source=chunk.source,
        lead_in=lead_in,
        title=title_named(chunk, topic),
    )


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
        check = _check(claim, passage, context, given, topic)
        # a premise the sentence leaves implicit must not be one it names another identifier in place of
        found = facts_of(check.evidence)
        implicit = any(f.kind == "identifier" and not any(same_fact(f, g) for g in found) for f in claimed)
        named_other = any(f.kind == "identifier" and not any(same_fact(f, c) for c in claimed) for f in found)
        if check.contradicts and not (implicit and named_other):
            return Contradiction(passage.n, clip_quote_for(claim, check.evidence), claim)
    return None


def _with_marker(sentence: str, n: int | None) -> str:
    """``sentence`` with its markers replaced by ``[n]`` before its closing punctuation (none when ``n`` is None).

    The marker keeps the spacing the model used ("approval [1]."); a new one follows Latin text after a space.
    """
    first = _MARKER.search(sentence)
    bare = _MARKER.sub("", sentence).rstrip()
    if n is None:
        return bare
    at = len(bare) - 1 if bare and bare[-1] in _CLOSING else len(bare)
    if first is not None:
        space = first.group()[: len(first.group()) - len(first.group().lstrip())]
    else:
        space = " " if at and bare[at - 1].isascii() and bare[at - 1].isalnum() else ""
    return f"{bare[:at]}{space}[{n}]{bare[at:]}"
