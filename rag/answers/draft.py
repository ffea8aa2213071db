"""Grounded answers: evidence first, then a streamed answer whose every claim is checked against its citation.

One draft per question (``AnswerDraft``, made by ``RagService.prepare_answer``) holds the hits, whether they are a
basis to answer from, the numbered passages and the evidence (each passage's sentence that best answers the
question). ``draft.evidence`` is shown at once; ``draft.stream()`` streams the model's text; ``draft.finish()``
checks every claim (``rag.answers.verification``) and returns the Answer. Nothing is asked of the LLM when no hit
clears the thresholds. With the ``extractive`` backend, when the LLM fails, or when the answer's main claim does not
hold, the answer is the evidence's own sentences.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace

from rag.answers.answer_stream import AnswerStream
from rag.answers.citations import Passage, drop_invalid_markers
from rag.answers.context import build_context, has_basis, reading_rate
from rag.answers.evidence import (
    SentenceRelevance,
    best_per_passage,
    evidence_answer,
    evidence_citations,
    passage_evidence,
    rank_sentences,
    strongest,
)
from rag.answers.faithfulness import is_yes_no_question, says_unknown, strip_markers
from rag.answers.notes import note
from rag.answers.polarity import asks_negatively
from rag.answers.prompts import (
    Language,
    detect_language,
    echoes_passages,
    heading_followups,
    split_followups,
)
from rag.answers.replies import denies
from rag.answers.verification import Contradiction, check_answer
from rag.answers.worked_figures import (
    asks_count,
    counted_list,
    timed_span,
    worked_difference,
    worked_total,
)
from rag.llm.base import LLMBackend
from rag.records import Answer, Citation, ClaimVerdict, Evidence, Hit, LatencyStage
from rag.settings import Settings

__all__ = [
    "AnswerDraft",
    "AnswerTimings",
    "AnswerStream",
    "Passage",
    "answer_question",
]

EXTRACTIVE = "extractive"
FALLBACK_SENTENCES = 5
"""Sentences an answer made of the evidence shows: the best sentences of all the passages, not each passage's best
one. On the realdocs golden set (the 59 answerable questions, embedded model's context) the five best held the
answer for 36, the best of the first three passages for 25 (``bench/answers_replay.py`` measures what it does to
answers)."""

AnswerTimings = tuple[tuple[LatencyStage, float], ...]
"""Milliseconds per answering stage that ran: ``context``, ``first_token``, ``generate``, ``check``."""


class AnswerDraft:
    """Everything known about one question before the model answers, and the way to its checked Answer.

    Attributes:
        question: the question as the user asked it.
        query: the question as searched and answered (a follow-up rewritten with the conversation).
        hits: the search results.
        basis: whether the hits are worth answering from (else the LLM is not asked).
        passages: the numbered passages the model reads (empty without a basis).
        evidence: each passage's sentence that best answers the question (by words and, given ``relevance``, by
            meaning), shown before the answer.
    """

    def __init__(
        self,
        backend: LLMBackend,
        question: str,
        hits: Sequence[Hit],
        settings: Settings,
        *,
        query: str = "",
        relevance: SentenceRelevance | None = None,
        on_finish: Callable[[Answer, AnswerTimings], None] | None = None,
    ) -> None:
        started = time.perf_counter()
        self.question = question
        self.query = query or question
        self.hits = tuple(hits)
        self.basis = has_basis(self.hits, settings)
        self.backend_name = backend.name
        self._backend = backend
        self.passages: tuple[Passage, ...] = ()
        if self.basis:
            # measuring the reading rate loads the model: only when the context is sized by it, so the evidence
            # is ready before the model is
            rate = reading_rate(backend) if settings.sizes_context_by_reading_rate(backend.name) else None
            self.passages = tuple(build_context(self.query, self.hits, settings, backend.name, rate, relevance))
        self._bases = {h.chunk.chunk_id: h.base for h in self.hits}
        self._relevance = relevance
        ranked = rank_sentences(self.query, self.passages, relevance)
        self._ranked = tuple((score, replace(e, base=self._bases.get(e.chunk_id, e.base))) for score, e in ranked)
        self.evidence: tuple[Evidence, ...] = best_per_passage(self._ranked, self.passages)
        self._stream: AnswerStream | None = None
        self._on_finish = on_finish
        self._timings: dict[LatencyStage, float] = {"context": (time.perf_counter() - started) * 1e3}

    @property
    def needs_llm(self) -> bool:
        """Whether ``stream()`` will ask the model (a basis and a backend other than extractive)."""
        return bool(self.passages) and self.backend_name != EXTRACTIVE

    @property
    def reply(self) -> str:
        """The model's whole reply as written, follow-ups and all ("" until it has answered)."""
        return self._stream.raw_text if self._stream is not None else ""

    def stream(self) -> Iterator[str]:
        """The model's answer text as it is written (nothing when the model is not asked)."""
        if not self.needs_llm:
            return iter(())
        if self._stream is None:
            self._stream = AnswerStream(self._backend, self.query, self.passages)
        return self._stream

    @property
    def timings(self) -> AnswerTimings:
        """Milliseconds per answering stage so far (the model's stages once its reply is read)."""
        return tuple(self._timings.items())

    def finish(self) -> Answer:
        """The checked Answer: reads the rest of the stream first (all of it when nothing was streamed).

        The first call hands the answer and ``timings`` to ``on_finish`` (the facade's monitoring).
        """
        if self.needs_llm:
            stream = self._stream or AnswerStream(self._backend, self.query, self.passages)
            self._stream = stream
            if not stream.done:
                stream.consume()
            if stream.first_piece_ms is not None:
                self._timings["first_token"] = stream.first_piece_ms
            if stream.elapsed_ms is not None:
                self._timings["generate"] = stream.elapsed_ms
        started = time.perf_counter()
        answer = self._checked_answer()
        self._timings["check"] = (time.perf_counter() - started) * 1e3
        if self._on_finish is not None:
            report, self._on_finish = self._on_finish, None  # one record per question, however often finished
            report(answer, self.timings)
        return answer

    def _checked_answer(self) -> Answer:
        language = detect_language(self.question)
        if not self.passages:
            nothing = note("no_basis", language)
            return self._answer(nothing, no_basis=True, message=nothing)
        if not self.needs_llm:
            return self._from_evidence(note("extractive", language))
        stream = self._stream or AnswerStream(self._backend, self.query, self.passages)  # finish() has read it
        self._stream = stream
        if not stream.done:
            stream.consume()
        if stream.error is not None:
            message = note("llm_failed", language, error=stream.error)
            return replace(self._from_evidence(message, answer=""), llm_error=str(stream.error))
        body, followups = split_followups(stream.raw_text)
        body, dropped = drop_invalid_markers(body, len(self.passages))
        if not any(ch.isalnum() for ch in strip_markers(body)):  # "", or a bare "[1]": no answer to check or show
            return self._from_evidence(note("empty", language))  # as for "I don't know": the sentences themselves
        if echoes_passages(body, self.passages):  # the prompt's passages written out: no answer to check or show
            return self._from_evidence(note("echoed", language), model_answer=body.strip())
        notes = [note("dropped", language, numbers=", ".join(f"[{n}]" for n in dropped))] if dropped else []
        if stream.looped:
            notes.append(note("looped", language))
        followups = followups or heading_followups(self.query, self.passages, language)
        checked = check_answer(body, self.query, self.passages, self._relevance)
        if checked.main_claim_failed:
            reasons = "; ".join(dict.fromkeys(c.reason for c in checked.claims if c.reason))
            replaced = note("replaced", language, reasons=reasons)
            evidence, lead = None, ""
            if checked.contradiction is not None:
                evidence, lead = self._contradicting(checked.contradiction, language)
            return self._from_evidence(
                " ".join([replaced, *notes]),
                claims=checked.claims,
                model_answer=body.strip(),
                followups=followups,
                evidence=evidence,
                lead=lead,
            )
        if not checked.citations and says_unknown(body):
            # a small model says "I don't know" with the answer on the page: the reader sees the best sentences
            unknown = note("unknown", language)
            return self._from_evidence(" ".join([unknown, *notes]), model_answer=body.strip(), followups=followups)
        if checked.attributed:
            notes.append(note("attributed", language))
        if checked.moved:
            notes.append(note("moved", language))
        if checked.unsupported:
            notes.append(note("unsupported", language, count=len(checked.unsupported)))
        worked = worked_difference(self.query, checked.claims, language) or worked_total(
            self.query, checked.claims, language
        )
        worked = worked or self._worked_from_evidence(checked.claims, language)
        text, claims = _with_worked_line(checked.text, checked.claims, worked)
        if worked is not None:
            notes.append(note("computed", language))
        return self._answer(
            text,
            citations=checked.citations,
            followups=followups,
            unsupported_sentences=checked.unsupported,
            message=" ".join(notes),
            claims=claims,
        )

    def _worked_from_evidence(self, claims: Sequence[ClaimVerdict], language: Language) -> ClaimVerdict | None:
        """The line the engine works out from the evidence shown, when the question asks for it: the numbered list
        a shown sentence introduces, counted (``worked_figures.counted_list``; each sentence read on into the chunk
        after its passage), or the length of the span of clock times they give (``worked_figures.timed_span``)."""
        shown = self._ranked[:FALLBACK_SENTENCES]
        counted = None
        if asks_count(self.query):
            after = {h.chunk.chunk_id: h.context_after for h in self.hits}
            leads = []
            for _score, piece in shown:
                start = piece.text.find(piece.sentence) if piece.sentence else -1
                if start >= 0:
                    rest = piece.text[start + len(piece.sentence) :]
                    leads.append((piece.n, piece.sentence, f"{rest}\n{after.get(piece.chunk_id, '')}"))
            counted = counted_list(self.query, claims, leads, language)
        return counted or timed_span(self.query, claims, [(piece.n, piece.sentence) for _s, piece in shown], language)

    def _contradicting(self, contradiction: Contradiction, language: Language) -> tuple[tuple[Evidence, ...], str]:
        """The evidence led by the sentence that states the opposite of the answer's main claim, and the line that
        says so: with "No."/"Yes." first when the question asks for a yes or a no and is itself affirmative (a "yes"
        to "問題ありませんか？" would be ambiguous)."""
        n, quote = contradiction.n, contradiction.quote
        leading = passage_evidence(next(p for p in self.passages if p.n == n), quote)
        others = strongest([(score, e) for score, e in self._ranked if e.sentence != quote], FALLBACK_SENTENCES - 1)
        evidence = (leading, *others)
        verdict = ""
        if is_yes_no_question(self.query) and not asks_negatively(self.query):
            affirms = contradiction.affirms if contradiction.affirms is not None else denies(contradiction.claim)
            verdict = note("yes" if affirms else "no", language)
        return evidence, note("contradicted", language, verdict=verdict)

    def _from_evidence(
        self,
        message: str,
        *,
        answer: str | None = None,
        claims: tuple[ClaimVerdict, ...] = (),
        model_answer: str = "",
        followups: tuple[str, ...] = (),
        evidence: Sequence[Evidence] | None = None,
        lead: str = "",
    ) -> Answer:
        """An answer made of the passages' best sentences (``answer=""``: citations only, e.g. the LLM failed), or
        of ``evidence`` in its order, after ``lead`` (a line of its own) when one is given."""
        evidence = strongest(self._ranked, FALLBACK_SENTENCES) if evidence is None else evidence
        text = evidence_answer(evidence) if answer is None else answer
        text = f"{lead}\n{text}" if lead else text
        language = detect_language(self.question)
        worked = self._worked_from_evidence(claims, language) if text else None
        text, claims = _with_worked_line(text, claims, worked)
        if worked is not None:
            message = f"{message} {note('computed', language)}".strip()
        return self._answer(
            text,
            citations=evidence_citations(evidence),
            followups=followups or heading_followups(self.query, self.passages, language),
            message=message,
            claims=claims,
            model_answer=model_answer,
            unsupported_sentences=tuple(c.sentence for c in claims if c.status == "unsupported"),
        )

    def _answer(self, text: str, **fields: object) -> Answer:
        cited: tuple[Citation, ...] = fields.pop("citations", ())  # type: ignore[assignment]
        fields["citations"] = tuple(replace(c, base=self._bases.get(c.chunk_id, c.base)) for c in cited)
        return Answer(
            answer=text,
            backend=self.backend_name,
            evidence=self.evidence,
            query=self.query if self.query != self.question else "",
            **fields,  # type: ignore[arg-type]
        )


def _with_worked_line(
    text: str, claims: tuple[ClaimVerdict, ...], worked: ClaimVerdict | None
) -> tuple[str, tuple[ClaimVerdict, ...]]:
    """The answer text and verdicts with the engine's computed line last, citing the passages it was worked from."""
    if worked is None:
        return text, claims
    markers = " ".join(f"[{n}]" for n in worked.cited)
    return f"{text.rstrip()}\n\n{worked.sentence} {markers}".rstrip(), (*claims, worked)


def answer_question(
    backend: LLMBackend, question: str, hits: Sequence[Hit], settings: Settings, *, query: str = ""
) -> Answer:
    """Answer in one call (no streaming): no LLM call when the hits give no basis.

    Returns:
        The finished answer; a backend failure yields the evidence's citations and a message, not an error.
    """
    return AnswerDraft(backend, question, hits, settings, query=query).finish()
