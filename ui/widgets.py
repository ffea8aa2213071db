"""Widgets that render the engine's records. Document text is shown as text: markdown is escaped, never HTML."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence

import streamlit as st

from rag.errors import RagError
from rag.records import (
    INDEX_STAGES,
    QUIZ_LEVELS,
    Answer,
    Chunk,
    Citation,
    Evidence,
    Hit,
    IndexProgress,
    IndexReport,
    Judgement,
    QuizSummary,
    StageScores,
    SyncReport,
)
from rag.service import RagService
from ui.i18n import t

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:=^&\"'])")


def escape_md(text: str) -> str:
    """Escape every markdown, directive (``:red[..]``), emoji and LaTeX trigger so text renders literally."""
    return _MD_SPECIAL.sub(r"\\\1", text).replace("\n", "  \n")


def show_error(err: Exception) -> None:
    """An error message, shown literally: it may quote a file name or text from a document."""
    st.error(escape_md(str(err)))


def highlight(text: str, terms: Iterable[str]) -> str:
    """Markdown of ``text`` with every occurrence of ``terms`` in bold; everything else escaped.

    Terms are matched case-insensitively, longest first, so "TEEC_Open" wins over "TEEC".
    """
    words = sorted({term for term in terms if term.strip()}, key=len, reverse=True)
    if not words:
        return escape_md(text)
    pattern = re.compile("|".join(re.escape(word) for word in words), re.IGNORECASE)
    parts: list[str] = []
    last = 0
    for match in pattern.finditer(text):
        parts.append(escape_md(text[last : match.start()]))
        parts.append(f"**{escape_md(match.group())}**")
        last = match.end()
    parts.append(escape_md(text[last:]))
    return "".join(parts)


def _fmt(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _rank_and_score(rank: int | None, score: float | None, digits: int) -> str:
    """``#3 (0.812)``; a candidate the retriever did not return but fusion scored shows ``– (0.812)``."""
    if rank is None and score is None:
        return "–"
    return f"{'–' if rank is None else f'#{rank}'} ({_fmt(score, digits)})"


def stage_table(scores: StageScores) -> dict[str, str]:
    """One hit's per-stage ranks and scores, ready for a one-row table."""
    return {
        t("score.final_rank"): "–" if scores.final_rank is None else str(scores.final_rank),
        t("score.dense"): _rank_and_score(scores.dense_rank, scores.dense_score, 3),
        t("score.bm25"): _rank_and_score(scores.bm25_rank, scores.bm25_score, 2),
        t("score.rrf"): _fmt(scores.rrf_score, 4),
        t("score.fused"): _fmt(scores.fused_score, 4),
        t("score.rerank"): _fmt(scores.rerank_score, 2),
    }


def hit_title(hit: Hit, rank: int, *, show_base: bool = False) -> str:
    page = f" · p.{hit.chunk.page}" if hit.chunk.page else ""
    section = f" · {hit.chunk.section}" if hit.chunk.section else ""
    base = f"[{hit.base}] " if show_base else ""
    return f"{rank}. {base}{hit.chunk.source}{page}{section} — {hit.score:.4f}"


def show_provenance(chunk: Chunk, quote: str = "") -> None:
    """Under a hit or citation: "OCR text" for text read from a scan, who said it and when for a chat log."""
    if chunk.extra.get("ocr"):
        st.caption(t("source.ocr"))
    if who := RagService.chat_provenance(chunk, quote):
        st.caption(escape_md(t("source.chat", who=who)))


def show_hit(hit: Hit, rank: int, *, compact: bool = False, show_base: bool = False) -> None:
    """A hit: where it is from (its knowledge base too, with ``show_base``), its per-stage scores and its text with
    the matched terms in bold."""
    st.markdown(f"**{escape_md(hit_title(hit, rank, show_base=show_base))}**")
    show_provenance(hit.chunk)
    if not compact:
        st.table([stage_table(hit.scores)])
    if hit.matched_terms:
        st.caption(escape_md(t("search.matched", terms=", ".join(hit.matched_terms))))
    if hit.also_sources:
        st.caption(escape_md(t("search.also_in", sources=", ".join(hit.also_sources))))
    st.markdown(highlight(hit.chunk.text, hit.matched_terms))


def show_citations(
    citations: Sequence[Citation],
    *,
    key: str,
    render_page: Callable[..., bytes] | None = None,
    chunk_of: Callable[[str], Chunk | None] | None = None,
    show_base: bool = False,
) -> None:
    """Each verified quote with its source and page (and, with ``chunk_of``, "OCR text" or the chat's speaker and
    time); PDF pages can be opened as an image with the quote marked."""
    if not citations:
        return
    st.markdown(f"**{t('qa.citations')}**")
    # a passage cited for several of its sentences is named once, its quotes under it in the answer's order
    by_passage: dict[tuple[int, str, str], list[Citation]] = {}
    for citation in citations:
        by_passage.setdefault((citation.n, citation.chunk_id, citation.base), []).append(citation)
    position = 0  # a toggle's key: its place in the list (a passage number repeats)
    for (n, _chunk_id, _base), quoted in by_passage.items():
        page = f" p.{quoted[0].page}" if quoted[0].page else ""
        base = f" · {escape_md(quoted[0].base)}" if show_base else ""
        st.markdown(f"\\[{n}\\] {escape_md(quoted[0].source)}{page}{base}")
        for citation in quoted:
            _show_quote(citation, f"{key}_page_{position}", render_page, chunk_of)
            position += 1


def _show_quote(
    citation: Citation,
    toggle_key: str,
    render_page: Callable[..., bytes] | None,
    chunk_of: Callable[[str], Chunk | None] | None,
) -> None:
    """One quote, with its provenance and, for a page of a PDF or a scan, the toggle that shows the page with the quote
    marked."""
    if chunk_of is not None and (chunk := chunk_of(citation.chunk_id)) is not None:
        show_provenance(chunk, citation.quote)
    st.text(citation.quote)
    has_page = RagService.shows_pages(citation.source) and citation.page
    if render_page and has_page and st.toggle(t("qa.show_page"), key=toggle_key):
        try:
            page_png = render_page(citation.source, int(citation.page or 1), citation.quote, base=citation.base)
            st.image(page_png, width=640)
        except (RagError, ValueError) as err:
            show_error(err)


EVIDENCE_CONTEXT_CHARS = 300
"""Characters of a passage shown before and after its best sentence."""


def show_evidence(
    evidence: Sequence[Evidence],
    *,
    chunk_of: Callable[[str], Chunk | None] | None = None,
    show_base: bool = False,
) -> None:
    """Each passage the answer is written from, its sentence that best answers the question in bold."""
    for item in evidence:
        page = f" p.{item.page}" if item.page else ""
        base = f" · {escape_md(item.base)}" if show_base else ""
        st.markdown(f"\\[{item.n}\\] {escape_md(item.source)}{page}{base}")
        if chunk_of is not None and (chunk := chunk_of(item.chunk_id)) is not None:
            show_provenance(chunk, item.sentence)
        at = item.text.find(item.sentence) if item.sentence else -1
        if at < 0:
            st.text(item.text[: 2 * EVIDENCE_CONTEXT_CHARS])
            continue
        start, end = max(0, at - EVIDENCE_CONTEXT_CHARS), at + len(item.sentence) + EVIDENCE_CONTEXT_CHARS
        before = ("…" if start else "") + item.text[start:at]
        if item.lead_in and item.lead_in not in before:  # the list's opening sentence, the record's name line
            before = f"{item.lead_in} {before}"
        after = item.text[at + len(item.sentence) : end] + ("…" if end < len(item.text) else "")
        st.markdown(f"{escape_md(before)}**{escape_md(item.sentence)}**{escape_md(after)}")


def show_claims(answer: Answer, *, key: str) -> None:
    """Unsupported sentences in plain sight with why; every sentence's verdict and the model's own text on request."""
    if answer.unsupported_sentences:
        with st.expander(t("qa.unsupported", n=len(answer.unsupported_sentences)), expanded=True):
            for claim in answer.claims:
                if claim.status == "unsupported":
                    st.markdown(f"⚠ {escape_md(claim.sentence)}")
                    st.caption(escape_md(claim.reason))
    if answer.model_answer:
        with st.expander(t("qa.model_answer")):
            st.text(answer.model_answer)
    if answer.claims and st.toggle(t("qa.claims_title"), key=f"{key}_claims"):
        st.dataframe(
            [
                {t("qa.claims_title"): c.sentence, "": t(f"qa.claim_{c.status}"), "[n]": " ".join(map(str, c.cited))}
                for c in answer.claims
            ],
            hide_index=True,
        )


def show_report(report: IndexReport) -> None:
    """The per-file outcome table of one indexing run."""
    rows = [
        {
            t("col.source"): f.source,
            t("col.status"): t(f"status.{f.status}"),
            t("col.chunks"): f.chunks,
            t("col.reason"): f.error or "; ".join(f.warnings),
        }
        for f in report.files
    ]
    statuses = ("indexed", "updated", "unchanged", "failed", "skipped")
    counts = {s: sum(f.status == s for f in report.files) for s in statuses}
    summary = t("upload.summary", version=report.index_version, embedded=report.embedded, **counts)
    (st.warning if report.failed else st.success)(summary)
    st.dataframe(rows, hide_index=True, width="stretch")


def show_sync_report(report: SyncReport) -> None:
    """What one sync did: counts per side, then each changed or missing archive file and each failure."""
    summary = t("upload.sync_summary", version=report.index_version, new=len(report.archive_indexed),
                unchanged=report.archive_unchanged, rebuilt=len(report.live_rebuilt),
                live_unchanged=report.live_unchanged, removed=len(report.live_removed), embedded=report.embedded,
                seconds=f"{report.phase_seconds.get('total', 0.0):.1f}")  # fmt: skip
    (st.warning if report.has_warnings else st.success)(summary)
    if report.archive_changed:
        st.warning(escape_md(t("upload.sync_changed", sources=", ".join(report.archive_changed))))
    if report.archive_missing:
        st.warning(escape_md(t("upload.sync_missing", sources=", ".join(report.archive_missing))))
    for failure in report.failed:
        st.error(escape_md(t("upload.sync_failed", source=failure.source, error=failure.error)))


def duration(seconds: float | None) -> str:
    if seconds is None:
        return "–"
    minutes, secs = divmod(int(round(seconds)), 60)
    return f"{minutes}m {secs:02d}s" if minutes else f"{secs}s"


class ProgressView:
    """The facade's progress callback drawn as a bar with counts, the current file, elapsed time and time left."""

    def __init__(self) -> None:
        self._bar = st.progress(0.0, text=t("progress.start"))
        self._started = time.monotonic()

    def __call__(self, progress: IndexProgress) -> None:
        fraction = progress.done_files / progress.total_files if progress.total_files else 1.0
        self._bar.progress(
            min(max(fraction, 0.0), 1.0),
            text=t(
                "progress.line",
                done=progress.done_files,
                total=progress.total_files,
                stage=t(f"stage.{progress.stage}") if progress.stage in INDEX_STAGES else progress.stage,
                current=progress.current,
                embedded=progress.embedded,
                elapsed=duration(progress.elapsed_s),
                eta=duration(progress.eta_s),
            ),
        )


def streamed_text(pieces: Iterator[str], sink: list[str]) -> Iterator[str]:
    """Pass an LLM stream to ``st.write_stream`` escaped, keeping the raw text in ``sink``."""
    for piece in pieces:
        sink.append(piece)
        yield escape_md(piece)


def quiz_set_label(summary: QuizSummary) -> str:
    """How a saved quiz set is named in lists: source, size, level and when it was made."""
    level = t(f"quiz.level_{summary.level}") if summary.level in QUIZ_LEVELS else summary.level
    at = summary.created_at[:16].replace("T", " ")
    return t("quiz.set_title", source=summary.source, n=summary.count, level=level, at=at)


def show_judgement(
    judgement: Judgement, truth: bool, *, key: str, render_page: Callable[..., bytes] | None = None
) -> None:
    """Right or wrong, the right answer, the explanation and the citations that show why."""
    if judgement.correct:
        st.success(t("quiz.correct"))
    else:
        st.error(t("quiz.wrong"))
    st.markdown(t("quiz.truth", answer=t("quiz.true") if truth else t("quiz.false")))
    st.text(judgement.explanation)
    show_citations(judgement.citations, key=key, render_page=render_page)
