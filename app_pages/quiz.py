"""Quiz: generate true/false statements from a source, play them one at a time, manage saved sets."""

from __future__ import annotations

import streamlit as st

from rag.errors import RagError
from rag.quiz.models import Quiz
from rag.records import QUIZ_LEVELS, Judgement
from ui.bases import pick_base
from ui.i18n import t
from ui.service import get_service
from ui.widgets import escape_md, quiz_set_label, show_error, show_judgement

st.title(t("quiz.title"))
svc = get_service()
svc = svc.base(pick_base(svc, "quiz_base", t("bases.quiz_from")))  # a quiz comes from one source of one base


def start(quiz_id: str) -> None:
    st.session_state["quiz_current"] = quiz_id
    st.session_state["quiz_position"] = 0
    st.session_state["quiz_answers"] = {}  # item_id -> judgement


def play(quiz: Quiz) -> None:
    """One statement at a time: answer ○ or ×, see the judgement and its citations, then the next."""
    answers: dict[str, Judgement] = st.session_state["quiz_answers"]
    position: int = st.session_state["quiz_position"]
    score = sum(j.correct for j in answers.values())
    if position >= len(quiz.items):
        st.success(t("quiz.finished", score=score, total=len(quiz.items)))
        st.button(t("quiz.restart"), key="quiz_restart", on_click=start, args=(quiz.id,))
        return
    item = quiz.items[position]
    st.progress(position / len(quiz.items), text=t("quiz.progress", i=position + 1, n=len(quiz.items)))
    st.caption(t("quiz.score_so_far", score=score, answered=len(answers)))
    with st.container(border=True):
        st.markdown(f"### {escape_md(item.statement)}")
    judgement = answers.get(item.id)
    if judgement is None:
        true_col, false_col = st.columns(2)
        said_true = true_col.button(t("quiz.true"), key=f"quiz_true_{position}", width="stretch")
        said_false = false_col.button(t("quiz.false"), key=f"quiz_false_{position}", width="stretch")
        if said_true or said_false:
            try:
                judgement = svc.judge_answer(quiz.id, item.id, said_true)
                answers[item.id] = judgement
                if len(answers) == len(quiz.items):
                    svc.record_quiz_score(quiz.id, sum(j.correct for j in answers.values()), len(quiz.items))
            except RagError as err:
                show_error(err)
            else:
                st.rerun()
    else:
        show_judgement(judgement, item.answer_bool, key=f"quiz_{position}", render_page=svc.render_page)
        if st.button(t("quiz.next"), type="primary", key=f"quiz_next_{position}"):
            st.session_state["quiz_position"] = position + 1
            st.rerun()


play_tab, generate_tab, manage_tab = st.tabs([t("quiz.tab_play"), t("quiz.tab_generate"), t("quiz.tab_manage")])

with generate_tab:
    try:
        sources = svc.sources()
    except RagError as err:
        show_error(err)
        sources = []
    if not sources:
        st.info(t("common.empty_index"))
    with st.form("quiz_generate"):
        source = st.selectbox(t("quiz.source"), sources, key="quiz_source")
        level_col, count_col = st.columns(2)
        level = level_col.selectbox(
            t("quiz.level"), QUIZ_LEVELS, format_func=lambda v: t(f"quiz.level_{v}"), key="quiz_level"
        )
        count = count_col.number_input(t("quiz.count"), 1, 20, 5, key="quiz_count")
        generate = st.form_submit_button(t("quiz.generate"), type="primary", disabled=not sources, key="quiz_submit")
    if generate and source:
        with st.status(t("quiz.generating"), expanded=True) as box:
            try:
                quiz = svc.generate_quiz(source, count=int(count), level=level, progress=box.write)
            except (RagError, ValueError) as err:
                box.update(state="error")
                show_error(err)
            else:
                box.update(label=t("quiz.generated", n=len(quiz.items)), state="complete", expanded=False)
                start(quiz.id)

try:
    saved = svc.quiz_sets()
except RagError as err:
    show_error(err)
    saved = []
titles = {q.id: quiz_set_label(q) for q in saved}

with play_tab:
    if not saved:
        st.info(t("quiz.no_sets"))
    else:
        ids = list(titles)
        current = st.session_state.get("quiz_current")
        chosen = st.selectbox(
            t("quiz.choose_set"),
            ids,
            index=ids.index(current) if current in ids else 0,
            format_func=titles.__getitem__,
            key=f"quiz_pick_{current}",
        )
        if chosen != current:
            start(chosen)
        try:
            quiz = svc.quiz(chosen)
        except RagError as err:
            show_error(err)
            quiz = None
        if quiz is not None:
            play(quiz)

with manage_tab:
    if not saved:
        st.info(t("quiz.no_sets"))
    for q in saved:
        with st.container(border=True):
            st.markdown(f"**{escape_md(titles[q.id])}**")
            try:
                scores = svc.quiz_scores(q.id)
                export_col, delete_col = st.columns(2)
                export_col.download_button(
                    t("quiz.export"),
                    svc.export_quiz(q.id),
                    file_name=f"quiz-{q.id}.json",
                    mime="application/json",
                    key=f"quiz_export_{q.id}",
                    on_click="ignore",
                )
                if delete_col.button(t("quiz.delete"), key=f"quiz_delete_{q.id}"):
                    svc.delete_quiz(q.id)
                    if st.session_state.get("quiz_current") == q.id:
                        st.session_state.pop("quiz_current")
                    st.rerun()
            except RagError as err:
                show_error(err)
                continue
            if scores:
                st.caption(t("quiz.scores", scores=", ".join(f"{s.correct}/{s.total}" for s in scores)))
