"""Evidence read in windows: runs of consecutive sentences, each with the text it is read with.

A claim is compared with a window of the cited text, never with the whole passage (``rag.answers.claims``), and the
evidence shown before an answer is chosen unit by unit (``rag.answers.evidence``). A table row is one unit, read with
its table's header row; a list item is read with the sentence introducing its list (``rag.ingest.lists``); a
sentence that goes on a chat turn is read with its speaker (``speaker_of``); a window never joins two list items.
What a window states (``statements_of``) leaves out its questions, and a list item's quote reaches back to its
lead-in when the claim's facts are there (``quote_with_lead_in``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from rag.answers.fact_matching import fact_found
from rag.answers.facts import Fact, facts_of, plain_text
from rag.answers.faithfulness import asserts_nothing, is_question, is_table_row, sentence_spans
from rag.ingest.lists import is_list_item, next_lead_in
from rag.ingest.text_cleanup import is_scrambled

WINDOW_SENTENCES = 3
"""Consecutive evidence sentences one claim may draw its facts from (a claim often joins two or three)."""


class Window(NamedTuple):
    """Consecutive sentences of a text: ``text`` verbatim (what a quote holds), ``reading`` (what is compared: a row
    after its header, a list item after ``lead_in``, the sentence introducing its list), ``size`` in sentences."""

    text: str
    reading: str
    size: int
    lead_in: str


def list_lead_in(evidence: str, sentence: str, lead_in: str = "") -> str:
    """The sentence introducing the list that ``sentence`` (a sentence of ``evidence``, perhaps clipped) is an item
    of; "" when it is no list item or its list has none. ``lead_in``: as for ``windows``."""
    start = sentence.strip()
    return next((w.lead_in for w in windows(evidence, 1, lead_in) if w.text.startswith(start)), "")


SPEAKER = re.compile(r"^\s*[\w.-]{1,20}\s*[:：]\s*")
"""A speaker's name or a field's label before what is said of it: "AB: …", "場所: …", "Date: …"."""
FIELD_NAME = re.compile(r"^[ \t]*[A-Za-z][\w.-]{0,24}(?: [A-Za-z][\w.-]{0,24}){0,2}[ \t]*[:：]", re.MULTILINE)
"""A Latin field name opening a line ("persona:", "interlocutor_id:", "evaluations satisfaction:"): unlike
``SPEAKER`` it is never Japanese, so taking it out of a Japanese record leaves the record's values, which say what
language the record is in."""


def speaker_of(evidence: str, start: int) -> str:
    """The speaker of the turn a sentence at ``start`` continues ("AA:" for "イギリスはまだ行ったことなくて" in
    "AA: 正直ですね!イギリスはまだ行ったことなくて"); "" when the sentence opens its line or the line names no one.
    The sentence is read with it: what a turn's second sentence says is said by its speaker."""
    before = evidence[evidence.rfind("\n", 0, start) + 1 : start]
    found = SPEAKER.match(before) if before.strip() else None
    return found.group().strip() if found else ""


def sentence_units(evidence: str) -> list[tuple[str, str]]:
    """``(verbatim sentence, text to read it with)`` for each sentence or table row of ``evidence``.

    A table row is read with its table's header row; header and separator rows are not units of their own.
    """
    return [(w.text, w.reading) for w in windows(evidence, 1)]


def windows(evidence: str, max_size: int, lead_in: str = "") -> list[Window]:
    """Every run of 1..``max_size`` consecutive sentences of ``evidence``, with the text to read it with.

    A table row is read together with the table's header row, so "240" in a row is checked with its column names;
    the quote stays the row itself. Header and separator rows are never windows of their own. A list item is read
    with the sentence that introduces its list ("Nothing in this division may be construed—", "次のとおり:"), which
    may deny every item: "(3) … to alter or affect any other authority" says the opposite of what it reads alone.
    ``lead_in``: that sentence for a list the evidence starts in, when it stands before the evidence.
    """
    spans = [(s, e) for s, e in _unit_spans(evidence) if not _is_separator_row(evidence[s:e])]
    header = ""
    found: list[Window] = []
    for i, (start, end) in enumerate(spans):
        line = evidence[start:end]
        if is_table_row(line):
            if not header or _follows_separator(evidence, end):
                header = line
                continue
            found.append(Window(line, without_link_targets(f"{header}\n{line}"), 1, ""))
            continue
        header = ""
        item = is_list_item(line)
        for size in range(1, max_size + 1):
            if i + size > len(spans) or any(is_table_row(evidence[s:e]) for s, e in spans[i : i + size]):
                break
            if sum(is_list_item(evidence[s:e]) for s, e in spans[i : i + size]) > 1:
                break  # list items are parallel statements: a claim joins its lead-in and one item, not two items
            if size > 1 and _parallel_records(evidence, spans[i + size - 2], spans[i + size - 1]):
                break
            text = evidence[start : spans[i + size - 1][1]]
            lead = lead_in if item else ""
            reading = "\n".join(part for part in (lead, speaker_of(evidence, start), text) if part)
            found.append(Window(text, without_link_targets(reading), size, lead))
        lead_in = next_lead_in(line, lead_in)  # a paragraph ends the list; a sentence ending in a dash opens one
    whole = evidence.strip()
    return found or ([Window(whole, whole, 1, "")] if whole else [])


DASH_RECORD = re.compile(r"^(?P<subject>[^\n–—]{1,60}?)\s[–—-]\s[^\n–—]{1,60}$")
"""A line pairing two things with a dash: "Shinsuke Kato – Panasonic" in a list of attendees."""


def _parallel_records(evidence: str, first: tuple[int, int], second: tuple[int, int]) -> bool:
    """Whether two sentences are lines of their own with one shape, records side by side: "Shinsuke Kato –
    Panasonic" and "Ayumi Watanabe – Hitachi Solutions", or two values of one field ("persona: 好きな食べ物は餃子で…",
    "persona: 趣味はお菓子作りです。"). A claim joining them ("Shinsuke Kato is from Hitachi Solutions", "ABの趣味は
    餃子作り") binds a value to another record's name, as one joining two list items would."""
    lines = [evidence[evidence.rfind("\n", 0, s) + 1 : e] for s, e in (first, second)]
    if any(line != evidence[s:e] for line, (s, e) in zip(lines, (first, second), strict=True)):
        return False  # a sentence within a paragraph, not a line of its own
    if all(DASH_RECORD.match(line) for line in lines):
        return True
    labels = [SPEAKER.match(line) for line in lines]
    return all(labels) and len({label.group().strip() for label in labels if label}) == 1


_LINK_TARGET = re.compile(r"(?<=\])\([^()\s]*(?:\([^()\s]*\)[^()\s]*)*\)")
"""The target of a Markdown link: "(specs/gp/GPD_TEE_Internal_API_Specification_v1.0.pdf)" after "[TEE Internal
API]"."""


def without_link_targets(reading: str) -> str:
    """What a reader sees of a text: a Markdown link's words, not the path it points to. The path of "please see
    [TEE Internal API](specs/gp/GPD_TEE_Internal_API_Specification_v1.0.pdf)" says nothing of the GP specification
    that "the GP specification defines the Secure World API" could rest on."""
    return _LINK_TARGET.sub("", reading)


def _unit_spans(evidence: str) -> list[tuple[int, int]]:
    """The spans of ``evidence``'s sentences, a table row being one span however many sentences its cells hold:
    split at its 。, a rule's row lost its ID cell to the first piece and its closing ``|`` to the last."""
    spans: list[tuple[int, int]] = []
    for start, end in sentence_spans(evidence):
        line_start = evidence.rfind("\n", 0, start) + 1
        line_end = evidence.find("\n", start)
        line_end = len(evidence) if line_end < 0 else line_end
        if is_table_row(evidence[line_start:line_end]):
            start, end = line_start, line_start + len(evidence[line_start:line_end].rstrip())
        if not spans or spans[-1] != (start, end):
            spans.append((start, end))
    return spans


def _is_separator_row(line: str) -> bool:
    return bool(re.fullmatch(r"\s*\|?(?:\s*:?-{3,}:?\s*\|)+\s*:?-*:?\s*\|?\s*", line))


def _follows_separator(text: str, end: int) -> bool:
    """Whether the line ending at ``end`` is a header: the next line is a ``| --- |`` separator."""
    rest = text[end:].lstrip("\n")
    return _is_separator_row(rest.split("\n", 1)[0]) if rest else False


def quote_with_lead_in(evidence: str, window: str, lead_in: str, facts: Sequence[Fact]) -> str:
    """The quote for a claim checked on ``window``, a list item: from its list's ``lead_in`` on when the claim's
    facts are found only there and it stands in ``evidence``, so the quote shows them. "(1) a notification of the
    decision to take the action…" says nothing of 30 days; "(b) NOTIFICATION.—Not later than 30 days before the
    release…, the President shall submit…— (1) a notification…" does."""
    if not lead_in or (start := evidence.find(lead_in)) < 0 or (end := evidence.find(window, start)) < 0:
        return window
    own = facts_of(window)
    if all(fact_found(f, own, plain_text(window)) for f in facts):
        return window
    return evidence[start : end + len(window)]


def statements_of(window: str) -> str:
    """``window`` without its questions, hashtag lines and recognition noise (the sentences a claim may draw support
    from: a FAQ's "#ソースコードの提供#改変#コミュニティ" labels its topic and says nothing of it, nor does the OCR of
    a chart's photo, ``text_cleanup.is_scrambled``, that a claim may copy); "" when it only asks."""
    spans = [window[start:end] for start, end in sentence_spans(window)]
    return "\n".join(span for span in spans if not asserts_nothing(span) and not is_scrambled(span))


def holds_question(window: str) -> bool:
    """Whether a window holds a question: it asserts nothing, so it neither contradicts a claim nor agrees with one
    (a FAQ's "…OSSを配布していないという事になりますか?" is the asker's misconception)."""
    return any(is_question(window[start:end]) for start, end in sentence_spans(window))
