"""QA: a chat whose answers stream, cite verified quotes (with the PDF page marked) and offer follow-ups."""

from __future__ import annotations

import streamlit as st

from rag.errors import RagError
from rag.records import Answer
from ui.i18n import t
from ui.service import get_service
from ui.widgets import escape_md, show_citations, streamed_text

svc = get_service()
history: list[tuple[str, Answer]] = st.session_state.setdefault("qa_history", [])
st.title(t("qa.title"))


def ask_followup(question: str) -> None:
    st.session_state["qa_pending"] = question


def show_answer(answer: Answer, turn: int, *, streamed: bool) -> None:
    """Everything under an answer; ``streamed`` answers already show their text."""
    if answer.no_basis:
        st.warning(t("qa.no_basis"))
        if answer.message:
            st.caption(escape_md(answer.message))
        return
    if not streamed:
        st.markdown(escape_md(answer.answer))
    if answer.message:  # the LLM failed (citations only, with the fix), or notes on how the citations were checked
        (st.warning if not answer.answer else st.caption)(escape_md(answer.message))
    if answer.unsupported_sentences:
        with st.expander(t("qa.unsupported", n=len(answer.unsupported_sentences))):
            for sentence in answer.unsupported_sentences:
                st.text(sentence)
    show_citations(answer.citations, key=f"qa_{turn}", render_page=svc.render_page)
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
        show_answer(answer, turn, streamed=False)

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
                hits = svc.search(question, contextual=True)
                basis = svc.has_basis(hits)
                reading = svc.answer_passages(question, hits) if basis and svc.llm.name != "extractive" else []
            if basis:
                raw: list[str] = []
                if reading:  # a CPU model reads for seconds before it answers: say what it is reading
                    st.caption(escape_md(t("qa.reading", sources="; ".join(p.label for p in reading))))
                shown = st.empty()
                with shown.container():
                    st.write_stream(streamed_text(svc.stream_answer(question, hits), raw))
                answer = svc.finish_answer(question, hits, "".join(raw))
                shown.markdown(escape_md(answer.answer))  # the checked text: markers fixed, follow-ups moved
            else:
                answer = svc.finish_answer(question, hits, "")
        except RagError as err:
            st.error(str(err))
        else:
            show_answer(answer, len(history), streamed=not answer.no_basis)
            history.append((question, answer))
