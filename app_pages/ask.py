"""QA: the evidence at once, then a streamed answer whose every claim is checked, with verified citations."""

from __future__ import annotations

import streamlit as st

from rag.errors import RagError
from rag.records import Answer, Chunk
from ui.bases import active_bases, shows_base
from ui.i18n import t
from ui.service import get_service
from ui.widgets import escape_md, show_citations, show_claims, show_error, show_evidence, streamed_text

svc = get_service()
bases = active_bases(svc)
history: list[tuple[str, Answer]] = st.session_state.setdefault("qa_history", [])
st.title(t("qa.title"))


def cited_chunk(chunk_id: str) -> Chunk | None:
    """The cited chunk, from whichever active base holds it."""
    for name in bases:
        try:
            if found := svc.neighbours(chunk_id, window=0, base=name):
                return found[0]
        except RagError:
            continue
    return None


def ask_followup(question: str) -> None:
    st.session_state["qa_pending"] = question


def show_answer(answer: Answer, turn: int, *, evidence_shown: bool) -> None:
    """Everything under an answer: its text, how its claims were checked, its citations and follow-ups."""
    if answer.query:
        st.caption(escape_md(t("qa.rewritten", query=answer.query)))
    if answer.no_basis:
        st.warning(t("qa.no_basis"))
        if answer.message:
            st.caption(escape_md(answer.message))
        return
    if answer.evidence and not evidence_shown:
        with st.expander(t("qa.evidence_title", n=len(answer.evidence))):
            show_evidence(answer.evidence, chunk_of=cited_chunk, show_base=shows_base(bases))
    if answer.answer:
        st.markdown(escape_md(answer.answer))
    if answer.message:  # the LLM failed (citations only, with the fix), or notes on how the claims were checked
        (st.warning if not answer.answer or answer.model_answer else st.caption)(escape_md(answer.message))
    show_claims(answer, key=f"qa_{turn}")
    show_citations(
        answer.citations,
        key=f"qa_{turn}",
        render_page=svc.render_page,
        chunk_of=cited_chunk,
        show_base=shows_base(bases),
    )
    if answer.backend:
        st.caption(t("qa.backend", name=answer.backend))
    for i, followup in enumerate(answer.followups):
        st.button(
            followup,
            key=f"qa_follow_{turn}_{i}",
            on_click=ask_followup,
            args=(followup,),
            icon=":material/subdirectory_arrow_right:",
        )


for turn, (question, answer) in enumerate(history):
    with st.chat_message("user"):
        st.text(question)
    with st.chat_message("assistant"):
        show_answer(answer, turn, evidence_shown=False)

typed = st.chat_input(t("qa.placeholder"), key="qa_input")
question = typed or st.session_state.pop("qa_pending", None)
if history and st.button(t("qa.clear"), key="qa_clear"):
    history.clear()
    st.rerun()

if question:
    with st.chat_message("user"):
        st.text(question)
    with st.chat_message("assistant"):
        try:
            with st.spinner(t("qa.searching")):
                draft = svc.prepare_answer(question, history=[(q, a.answer) for q, a in history], bases=bases)
            if draft.evidence:  # shown before the model has read a word
                with st.expander(t("qa.evidence_title", n=len(draft.evidence)), expanded=True):
                    show_evidence(draft.evidence, chunk_of=cited_chunk, show_base=shows_base(bases))
            if draft.needs_llm:
                streaming = st.empty()
                with streaming.container():
                    st.write_stream(streamed_text(draft.stream(), []))
                answer = draft.finish()
                streaming.empty()  # the checked answer replaces the raw stream: markers fixed, claims marked
            else:
                answer = draft.finish()
        except RagError as err:
            show_error(err)
        else:
            show_answer(answer, len(history), evidence_shown=True)
            history.append((question, answer))
