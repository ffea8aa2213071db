"""The stats page's monitoring section: latency per stage, hit and no-basis ratios, questions by hour."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from rag.records import MonitoringSummary
from ui.i18n import t


def _percent(ratio: float | None) -> str:
    return "–" if ratio is None else f"{ratio:.0%}"


def show_monitoring(summary: MonitoringSummary) -> None:
    """What the searches and answers of the summary's window looked like (no question text is ever kept)."""
    st.caption(t("monitor.window", since=summary.since))
    if not summary.searches and not summary.answers:
        st.info(t("monitor.empty"))
        return
    searches, answers, hit_ratio, no_basis = st.columns(4)
    searches.metric(t("monitor.searches"), summary.searches)
    answers.metric(t("monitor.answers"), summary.answers)
    hit_ratio.metric(t("monitor.hit_ratio"), _percent(summary.hit_ratio), help=t("monitor.hit_ratio_help"))
    no_basis.metric(t("monitor.no_basis_ratio"), _percent(summary.no_basis_ratio), help=t("monitor.no_basis_help"))

    st.dataframe(
        pd.DataFrame(
            [
                {
                    t("monitor.stage"): t(f"monitor.stage.{s.stage}"),
                    "p50 (ms)": round(s.p50_ms, 1),
                    "p95 (ms)": round(s.p95_ms, 1),
                    t("monitor.count"): s.count,
                }
                for s in summary.stages
            ]
        ),
        hide_index=True,
    )
    st.markdown(f"**{t('monitor.by_hour')}**")
    hours = pd.DataFrame(
        {
            t("monitor.hour"): [h.hour for h in summary.by_hour],
            t("monitor.searches"): [h.searches for h in summary.by_hour],
            t("monitor.answers"): [h.answers for h in summary.by_hour],
        }
    )
    st.bar_chart(hours, x=t("monitor.hour"), y=[t("monitor.searches"), t("monitor.answers")], stack=True)
    if summary.backends:
        st.caption(t("monitor.backends", backends=", ".join(f"{name} {n}" for name, n in summary.backends)))
