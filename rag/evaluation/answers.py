"""Answer evaluation on a golden QA file, through the same draft the QA page uses, against the current index.

One question a line (``.jsonl``)::

    {"id": "q1", "question": "...", "answer_contains": ["240", "two hundred forty"], "expected_sources": ["a.pdf"],
     "expected_pages": [3], "no_answer": false}

An answerable question is answered correctly when the answer holds any one of ``answer_contains`` (compared after
NFKC, case folding and with digit grouping removed). A ``no_answer`` question is handled correctly when the answer
refuses: no basis; the model says the documents do not say and nothing is cited; or the model's answer failed its
claim checks and was replaced by the evidence with a note saying so (counted apart as ``replaced_by_evidence``).
Nothing is indexed: the questions run against whatever the index holds.
"""

from __future__ import annotations

import json
import re
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from rag.answers.claims import check_claim
from rag.answers.faithfulness import says_unknown
from rag.answers.faq_replies import replied_in
from rag.answers.premises import premises
from rag.errors import EvaluationError
from rag.evaluation.retrieval import percentile
from rag.records import Answer, AnswerEvaluation, Chunk

if TYPE_CHECKING:
    from rag.answers.draft import AnswerDraft


class AnsweringService(Protocol):
    """What answer evaluation needs of the service: the QA page's draft, and the chunks as the index stores them."""

    def prepare_answer(self, question: str) -> AnswerDraft: ...

    def neighbours(self, chunk_id: str, window: int = 1) -> list[Chunk]: ...


@dataclass(frozen=True, slots=True)
class GoldenQuestion:
    """One line of a golden answer file."""

    id: str
    question: str
    answer_contains: tuple[str, ...] = ()
    expected_sources: tuple[str, ...] = ()
    expected_pages: tuple[int, ...] = ()
    no_answer: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


def read_golden(path: str | Path) -> list[GoldenQuestion]:
    """The questions of a golden answer file.

    Raises:
        EvaluationError: the file cannot be read, a line is not JSON, or a question lacks what it needs.
    """
    target = Path(path)
    try:
        lines = [line for line in target.read_text(encoding="utf-8").splitlines() if line.strip()]
    except OSError as err:
        raise EvaluationError(f"Cannot read golden answer file {target}: {err}") from err
    questions: list[GoldenQuestion] = []
    for number, line in enumerate(lines, 1):
        try:
            item = json.loads(line)
        except json.JSONDecodeError as err:
            raise EvaluationError(f"{target} line {number} is not JSON: {err}") from err
        if not isinstance(item, dict) or not str(item.get("question", "")).strip():
            raise EvaluationError(f'{target} line {number}: needs a "question" (see rag.evaluation.answers).')
        no_answer = bool(item.get("no_answer", False))
        contains = tuple(str(a) for a in item.get("answer_contains") or ())
        if not no_answer and not contains:
            raise EvaluationError(f'{target} line {number}: an answerable question needs "answer_contains".')
        known = {"id", "question", "answer_contains", "expected_sources", "expected_pages", "no_answer"}
        questions.append(
            GoldenQuestion(
                id=str(item.get("id", number)),
                question=str(item["question"]),
                answer_contains=contains,
                expected_sources=tuple(str(s) for s in item.get("expected_sources") or ()),
                expected_pages=tuple(int(p) for p in item.get("expected_pages") or ()),
                no_answer=no_answer,
                extra={k: v for k, v in item.items() if k not in known},
            )
        )
    return questions


def comparable(text: str) -> str:
    """The form answers and expected strings are compared in: NFKC, case-folded, no spaces or digit grouping."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return re.sub(r"(?<=\d),(?=\d{3})|\s+", "", folded)


def is_correct(answer: Answer, question: GoldenQuestion) -> bool:
    """Whether the answer does what the golden question expects (holds an expected string, or refuses)."""
    if question.no_answer:
        return refused(answer)
    if answer.no_basis:
        return False
    shown = comparable(answer.answer)
    return any(comparable(expected) in shown for expected in question.answer_contains if expected.strip())


def refused(answer: Answer) -> bool:
    """Whether the answer declines to assert anything: no basis; "the documents do not say" with nothing cited; or
    the model's answer failed its checks and the page says so, showing the documents' sentences instead."""
    if answer.no_basis or answer.model_answer:
        return True
    return not answer.citations and (not answer.answer.strip() or says_unknown(answer.answer))


def evaluate_answers(
    service: AnsweringService,
    path: str | Path,
    *,
    limit: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> AnswerEvaluation:
    """Answer every golden question with the current index and settings and score the answers.

    Returns:
        ``{"summary": {...}, "per_query": [{"id", "question", "answer", "no_basis", "citations", ...}]}``; the
        summary holds ``accuracy``, ``no_answer_accuracy``, ``supported_sentence_share``, ``citation_validity``,
        ``verified_with_unsupported_fact``, latencies (``seconds_p50``/``p95``, ``evidence_seconds_p50``,
        ``first_token_seconds_p50``) and counts.
    """
    questions = read_golden(path)[:limit] if limit else read_golden(path)
    per_query: list[dict[str, Any]] = []
    for i, question in enumerate(questions, 1):
        record = _answer_one(service, question)
        per_query.append(record)
        if progress:
            verdict = "ok" if record["correct"] else "WRONG"
            how = "replaced by evidence" if record["replaced_by_evidence"] else "no basis" if record["no_basis"] else ""
            said = " ".join(str(record["answer"]).split())[:100]
            progress(f"[{i}/{len(questions)}] {verdict} {record['seconds']:.1f}s {question.id} {how}: {said}")
    return {"summary": _summary(per_query), "per_query": per_query}


def _answer_one(service: AnsweringService, question: GoldenQuestion) -> dict[str, Any]:
    started = time.perf_counter()
    draft = service.prepare_answer(question.question)
    evidence_s = time.perf_counter() - started
    first_token_s: float | None = None
    for _piece in draft.stream():
        if first_token_s is None:
            first_token_s = time.perf_counter() - started
    answer = draft.finish()
    seconds = time.perf_counter() - started
    valid = [_quote_is_verbatim(service, c.chunk_id, c.quote) for c in answer.citations]
    # a computed line (a difference, count or length of time the engine worked out) is no passage's claim
    judged = [c for c in answer.claims if c.status not in ("not_checked", "computed")]
    return {
        "id": question.id,
        "question": question.question,
        "answer": answer.answer,
        "no_basis": answer.no_basis,
        "citations": [{"source": c.source, "page": c.page, "quote": c.quote} for c in answer.citations],
        "unsupported_sentences": list(answer.unsupported_sentences),
        "seconds": round(seconds, 3),
        "evidence_seconds": round(evidence_s, 3),
        "first_token_seconds": None if first_token_s is None else round(first_token_s, 3),
        "correct": is_correct(answer, question),
        "no_answer": question.no_answer,
        "refused": refused(answer),
        "replaced_by_evidence": bool(answer.model_answer),
        "model_answer": answer.model_answer,
        "reply": draft.reply,
        "llm_error": answer.llm_error or None,
        "claims_checked": len(judged),
        "claims_supported": sum(c.supported for c in judged),
        "citations_valid": sum(valid),
        "verified_with_unsupported_fact": _shown_but_unsupported(answer, draft.query),
        "top_sources": list(dict.fromkeys(e.source for e in answer.evidence))[:3],
    }


def _quote_is_verbatim(service: AnsweringService, chunk_id: str, quote: str) -> bool:
    """Whether ``quote`` is text of the chunk as the index stores it (re-read, not taken from the answer)."""
    stored = service.neighbours(chunk_id, 0)
    return bool(quote) and any(quote in chunk.text for chunk in stored)


def _shown_but_unsupported(answer: Answer, question: str) -> int:
    """Answer sentences shown as verified whose cited quote lacks one of their facts or flips their polarity.

    An answer replaced by the evidence shows none of the model's sentences as verified (its citations are the
    evidence's, numbered afresh), so it counts none.
    """
    if answer.model_answer:
        return 0
    quotes: dict[int, list[str]] = {}
    for citation in answer.citations:
        quotes.setdefault(citation.n, []).append(citation.quote)
    # what the question states and the passages (or their file names) state too
    given = premises(question, [e.text for e in answer.evidence], [e.source for e in answer.evidence])
    count = 0
    for claim in answer.claims:
        if not claim.supported:
            continue
        cited = [quote for n in claim.cited for quote in quotes.get(n, ())]
        # a sentence joining two passages' facts ("…270 days…, while … within 165 days") holds by its quotes together
        readings = [*cited, "\n".join(cited)] if len(cited) > 1 else cited
        checks = [check_claim(claim.sentence, quote, threshold=0.0, given=given) for quote in readings]
        if not checks or not any(c.supported for c in checks):
            # a yes or no a FAQ entry replies to the question itself ("…よいですか?" / "はい") holds by that reply
            count += not any(replied_in(claim.sentence, question, quote) for quote in cited)
    return count


def _summary(per_query: list[dict[str, Any]]) -> dict[str, Any]:
    answerable = [q for q in per_query if not q["no_answer"]]
    unanswerable = [q for q in per_query if q["no_answer"]]
    checked = sum(q["claims_checked"] for q in per_query)
    cited = sum(len(q["citations"]) for q in per_query)
    first_tokens = [q["first_token_seconds"] for q in per_query if q["first_token_seconds"] is not None]
    return {
        "questions": len(per_query),
        "accuracy": _share(sum(q["correct"] for q in answerable), len(answerable)),
        "no_answer_accuracy": _share(sum(q["correct"] for q in unanswerable), len(unanswerable)),
        "supported_sentence_share": _share(sum(q["claims_supported"] for q in per_query), checked),
        "citation_validity": _share(sum(q["citations_valid"] for q in per_query), cited),
        "verified_with_unsupported_fact": sum(q["verified_with_unsupported_fact"] for q in per_query),
        "replaced_by_evidence": sum(q["replaced_by_evidence"] for q in per_query),
        "llm_errors": sum(bool(q["llm_error"]) for q in per_query),
        "seconds_p50": _rounded(percentile([q["seconds"] for q in per_query], 50)),
        "seconds_p95": _rounded(percentile([q["seconds"] for q in per_query], 95)),
        "evidence_seconds_p50": _rounded(percentile([q["evidence_seconds"] for q in per_query], 50)),
        "evidence_seconds_p95": _rounded(percentile([q["evidence_seconds"] for q in per_query], 95)),
        "first_token_seconds_p50": _rounded(percentile(first_tokens, 50)) if first_tokens else None,
    }


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def _rounded(value: float) -> float:
    return round(value, 3)
