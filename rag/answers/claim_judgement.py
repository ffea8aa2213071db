"""One claim of an answer judged against the passages: the passage that supports it (the one it cites, or another
it is moved to), or why none does.

``judge`` checks a claim against the passages it cites, then the others (which must support it more strongly);
``judge_parts`` splits a sentence joining facts from two passages and judges each part; ``judge_claim`` adds what the
question asks of a claim that the words alone hold (a verb, a count, the thing asked about, someone new) and gives
the sentence with its markers fixed. ``verification.check_answer`` runs it on every sentence.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from rag.answers.across_languages import ACROSS_REASON, tied_by_facts_alone
from rag.answers.bindings import answered_elsewhere
from rag.answers.citations import ATTRIBUTION_THRESHOLD, Passage
from rag.answers.claim_words import name_tokens, readable_in, title_named
from rag.answers.claims import ClaimCheck, check_claim
from rag.answers.evidence import SentenceRelevance
from rag.answers.facts import Fact, facts_of
from rag.answers.faithfulness import SUPPORT_THRESHOLD, markers_of, strip_markers
from rag.answers.framing import without_framing
from rag.answers.premises import premises_for
from rag.answers.prompts import script_language
from rag.answers.question_fit import (
    ECHOED_NAME_REASON,
    NOT_ASKED_REASON,
    asked_untouched,
    names_only_asked,
    reading_context,
    unmentioned,
    verb_unsaid,
)
from rag.answers.replies import NO_VERB_REASON, check_reply, stance
from rag.ingest.lists import opening_lead_in
from rag.records import Chunk, ClaimStatus, ClaimVerdict

_MARKER = re.compile(r"\s*\[\d+\]")
_CLOSING = "。．.！？!?"
_JOIN = re.compile(r"(,\s+(?:while|whereas|but|and)\s+|;\s+|(?<=[しりで])、|(?<=[すた]が)、|一方で?、)")
"""Where a sentence joins two statements that may each rest on a passage of their own: ", while", ", and", "; ", and in
Japanese after a continuative (開始し、/ であり、/ 85%以上で、) or an adversative (ですが、), never after a topic
(「…は、」「…では、」 keep their subject with what is said of it)."""

Support = tuple[int | None, str, ClaimCheck | None]
"""A passage number a claim (or a part of it) rests on, the words resting there, and the check that found them."""


@dataclass(frozen=True, slots=True)
class JudgedClaim:
    """A claim's verdict, its sentence as written and with its markers fixed (the supporting passage's, or none when
    unsupported), and what it rests on, one entry per part when a joined sentence was judged part by part."""

    verdict: ClaimVerdict
    written: str
    marked: str
    supports: tuple[Support, ...]

    @property
    def checks(self) -> list[ClaimCheck]:
        return [check for _n, _said, check in self.supports if check is not None]

    def refused(self, reason: str) -> JudgedClaim:
        """The same claim unsupported for ``reason``: no marker, nothing it rests on."""
        unsupported = ClaimVerdict(self.verdict.sentence, "unsupported", (), reason)
        return JudgedClaim(unsupported, self.written, with_marker(self.written, None), ())


def judge_claim(
    sentence: str,
    question: str,
    passages: Sequence[Passage],
    given: Sequence[Fact],
    *,
    first: bool,
    figure_unsaid: str,
    units: Sequence[tuple[str, str]] = (),
    relevance: SentenceRelevance | None = None,
) -> JudgedClaim:
    """One answer sentence judged: by the passages (``judge``, or part by part), then by what the question asks.

    Args:
        sentence: the sentence as the model wrote it, markers and all.
        question: the question asked.
        passages: the numbered passages the answer was written from.
        given: the premises the question gives (facts a claim may leave implicit).
        first: no claim before it was the answer's point (the checks of a point's relevance to the question apply).
        figure_unsaid: why the answer gives no figure where the question asks for one ("" when it gives one).
        units: the passages' sentences read by meaning (``across_languages.meaning_units``), with ``relevance``.
        relevance: the embedding model's cosines; None skips the check across languages.
    """
    by_n = {p.n: p for p in passages}
    plain = strip_markers(sentence)
    said = without_framing(plain, question)  # "厚労省の資料の表記で、" copied from the question names where, not what
    context = reading_context(said, question)
    cited = [n for n in markers_of(sentence) if n in by_n]
    verdict, n, check = judge(said, context, cited, passages, given, question)
    verdict = replace(verdict, sentence=plain)
    judged = JudgedClaim(verdict, sentence, with_marker(sentence, n), ((n, said, check),))
    if verdict.status == "unsupported" and (joined := judge_parts(sentence, passages, given, question)):
        judged = joined
    if judged.verdict.status == "unsupported":
        return judged
    if unread := unmentioned(plain, question, passages):
        return judged.refused("no passage mentions " + ", ".join(unread))
    if tied_by_facts_alone(plain, question, judged.checks, units, relevance):
        return judged.refused(ACROSS_REASON)
    moved = judged.verdict.status == "reattributed"
    if verb := verb_unsaid(plain, question, judged.checks, moved=moved):
        return judged.refused(NO_VERB_REASON.format(verb))
    if not first:
        return judged
    if figure_unsaid:
        return judged.refused(figure_unsaid)  # true, maybe, and no answer
    if asked := asked_untouched(plain, question, [p.chunk.source for p in passages]):
        return judged.refused(NOT_ASKED_REASON.format(asked))  # true, of another thing
    if echoed := names_only_asked(plain, question):
        return judged.refused(ECHOED_NAME_REASON.format(echoed))  # nobody new
    return judged


def judge(
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
        check = check_against(claim, by_n[n], context, given, topic)
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
    checks = [(p.n, check_against(claim, p, context, given, topic, threshold)) for p in others]
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


def judge_parts(sentence: str, passages: Sequence[Passage], given: Sequence[Fact], question: str) -> JudgedClaim | None:
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
        verdict, n, check = judge(plain, context, [m for m in markers_of(text) if m in by_n], passages, given, question)
        if verdict.status == "unsupported":
            return None
        judged.append((verdict, n, plain, check))
    status: ClaimStatus = "verified" if all(v.status == "verified" for v, *_ in judged) else "reattributed"
    cited = tuple(dict.fromkeys(n for _, n, _, _ in judged if n is not None))
    marked = "".join(with_marker(text, n) + join for (_, n, _, _), text, join in zip(judged, texts, [*joins, ""]))
    verdict = ClaimVerdict(strip_markers(sentence), status, cited)
    return JudgedClaim(verdict, sentence, marked, tuple((n, p, c) for _, n, p, c in judged))


def check_against(
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


def with_marker(sentence: str, n: int | None) -> str:
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
