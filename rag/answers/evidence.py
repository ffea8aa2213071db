"""Evidence first: the passages an answer is written from, each with the sentence that best answers the question.

The QA page shows the evidence within a second of asking, before the model has read a word. In place of an answer
whose main claim does not hold it shows the best sentences of all the passages (``rank_sentences``, ``strongest``):
the answer is often a passage's second sentence, after the one that repeats the question's words. Every sentence
here is verbatim text of its chunk (a table row, never its header; a sentence rather than a bare title when there is
one).

A sentence is scored by the words it shares with the question and, when the engine lends its embedding model
(``SentenceRelevance``), by how close its meaning is: a question asked in English about a Japanese document shares
no word with the sentence that answers it. A sentence giving the kind of value the question asks for (a date, when
it asks when) weighs more.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from rag.answers.asked_values import gives_asked_value
from rag.answers.citations import QUOTE_MAX_CHARS, Passage, clip_quote
from rag.answers.fact_matching import fact_found, same_fact
from rag.answers.facts import Fact, facts_of, plain_text
from rag.answers.faithfulness import (
    content_tokens,
    holds_phrase,
    is_question,
    quoted_phrases,
    sentence_spans,
    similarity,
    support,
)
from rag.answers.loanwords import heard_in
from rag.answers.premises import written_as_code
from rag.answers.windows import SPEAKER, list_lead_in, sentence_units, speaker_of, windows
from rag.ingest.lists import opening_lead_in
from rag.ingest.parsing.records import RECORD_LABEL
from rag.ingest.text_cleanup import is_scrambled
from rag.records import Chunk, Citation, Evidence

SentenceRelevance = Callable[[str, Sequence[str]], Sequence[float]]
"""``(question, sentences) -> one cosine per sentence``: the embedding model's view of how well each answers."""
ScoredEvidence = tuple[float, Evidence]
"""A sentence of a passage (as the Evidence quoting it) with how well it answers the question."""

EVIDENCE_MAX_CHARS = 2 * QUOTE_MAX_CHARS
"""Longest piece of evidence shown: a whole sentence up to twice a claim's quote. A definition in H.R. 815 is one
sentence of 330 characters whose last words are the answer ("… within a range of 1,850 feet or less"); a claim's
quote is clipped around what the claim says (``clip_quote_for``), evidence has no claim to clip around."""
TITLE_MAX_CHARS = 40
"""A line this short without closing punctuation is taken for a title: it counts half (so does a near-empty row)."""
TITLE_WEIGHT = 0.5
"""What a title, a question, a near-empty table row or a line of one or two words counts: they name the topic (and
share the question's words) without answering it."""
MIN_CONTENT_TOKENS = 2
"""Content words (Japanese: character pairs, kana endings aside) below which a line says too little to answer
anything ("AA: ですね!", "Answer"); "AA: 趣味は旅行です!" says enough."""
ANSWER_FOLLOWS_QUESTION = 0.5
"""Share of a question's score passed to the sentence after it: in a FAQ the answer follows the question it shares
the asker's words with."""
SEMANTIC_WEIGHT = 0.6
"""Weight of a sentence's meaning, scaled 0..1 between the least and most similar sentence of the evidence.

Word overlap ranges over 0..1.25; on the realdocs golden questions the two together picked an answering sentence
more often than either alone (``bench/answers_realdocs.py --backend extractive``)."""
SINGLED_OUT_BONUS = 0.5
"""What a sentence or row gains, whatever its weight, for holding what the question singles out: a phrase it quotes,
or an identifier its asking sentence names.

The asker quotes the document's own words, and the line holding them is the one asked about. Asked who is listed as
「Individual（個人）」 in the minutes' attendee list, the line "Tomo Dote – Individual" counted as a title (short, no
closing mark) and was not among the five shown. A table's header row holds a quoted column name and answers nothing:
for a quoted phrase rows are left out (given it, the header of the training sheet pushed the row "改訂 … 未改定" out
of the five).

A question may set the scene with identifiers before the sentence that asks ("TEE_CipherInit and TEE_CipherUpdate
are partially covered by the test suite. Is TEE_CipherDoFinal covered too?"): the rows of the scene shared more of
its words, and the row of TEE_CipherDoFinal ("Not tested") was not shown. The identifiers of the asking sentence, less
those of the scene, single out its row."""
ASKED_VALUE_BONUS = 0.5
"""What a sentence or row gains, whatever its weight, for giving the kind of value the question asks for: a date or a
year when it asks when, a place when it asks where (``asked_values``). Asked when the license FAQ was updated, its
title page's field "更新日:2024年5月9日" shares one word with the question, and the five sentences shown were lines
naming the FAQ and its version, which share most of them. Asked where the 2018-06-13 meeting was held, the minutes'
"場所: トヨタ自動車 名古屋オフィス" was not among the five."""
MAX_SCORED_SENTENCES = 32
"""Sentences embedded per question at most; the rest keep their word-overlap score. On the realdocs golden set
(extractive backend) 32, 48 and 96 picked equally well (accuracy 0.373 each), and time to evidence grows with the
count (p50 about 0.9 s at 32 and 1.2 s at 96 on 2 cores, search included)."""
MIN_SHARE_OF_BEST = 0.3
"""A sentence scored under this share of the best one is no answer worth showing beside it (a sentence of another
topic that only fills a place). On the realdocs golden set the five best held the answer for 36 of 59 questions with
no floor and with this one, 34 at 0.4, 32 at 0.5."""
_CLOSING = "。．.！？!?）)」"
_HIRAGANA = re.compile("[\u3040-\u309f]+")
_LABEL_ASIDE = re.compile(r"(?<=[】\]］])\s*[(（][^()（）]*[)）]$")
"""An aside after a bracketed label ("【質問 1.h】 (Spec Ref 1.4.1)"): its parenthesis closes the label, not a sentence
(while "17 (45.9%)" and "垂直上向き(↑)" are values)."""
_ADDRESS = re.compile(r"(?:https?://|www\.)\S+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
"""A web or mail address: it says where to look, not what is there."""


def _lexical_score(question: str, reading: str) -> float:
    # a word of the question the sentence writes in the other script (UK / イギリス, persona / ペルソナ) is shared
    held = "\n".join([reading, *heard_in(question, reading)])
    return support(question, held) + 0.25 * similarity(question, reading)


def answers_nothing(sentence: str, *, whole_line: bool = True) -> bool:
    """Whether a unit names a topic rather than answering: a short line without closing punctuation (a title), a
    question, a table row with one filled cell or fewer than a third filled (a label, a merged header), recognition
    noise (``text_cleanup.is_scrambled``), or a line of fewer than ``MIN_CONTENT_TOKENS`` content words after its
    speaker's name, web and mail addresses aside ("japan-wg+subscribe@lists.openchainproject.org" shares the
    question's words and answers nothing).
    A short line that gives a label its value ("場所: トヨタ自動車 名古屋オフィス", "AB: イギリス行ってました") is
    a field or a turn, not a title; nor is a sentence that is not a ``whole_line`` of its text: in "AA: 正直ですね!
    イギリスはまだ行ったことなくて" the turn's second sentence is what AA says, however short."""
    line = sentence.strip()
    if is_scrambled(line):  # the OCR of a chart's photo: no text at all
        return True
    if line.startswith("|"):
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        filled = sum(1 for cell in cells if cell)
        return filled <= 1 or 3 * filled < len(cells)
    if is_question(line):
        return True
    unaddressed = _ADDRESS.sub(" ", line).strip()
    value = SPEAKER.sub("", unaddressed)
    said = [token for token in content_tokens(value) if not _HIRAGANA.fullmatch(token)]
    if len(said) < MIN_CONTENT_TOKENS:
        return True
    labelled = value != unaddressed
    closed = _LABEL_ASIDE.sub("", line)
    return whole_line and not labelled and len(line) <= TITLE_MAX_CHARS and closed[-1:] not in _CLOSING


def _scored_units(
    question: str, texts: Sequence[str], relevance: SentenceRelevance | None
) -> list[list[tuple[float, str]]]:
    """Each text's sentences and table rows (verbatim, in text order) with how well each answers ``question``.

    Scored by the share of the question's content words a unit holds (a table row read with its header), plus a
    quarter of their overlap; with ``relevance``, every unit (up to ``MAX_SCORED_SENTENCES``) is also scored by
    meaning in one batch, scaled between the least and most similar unit, and added with ``SEMANTIC_WEIGHT``.
    Titles, questions and near-empty lines count ``TITLE_WEIGHT``; a line holding what the question singles out gains
    ``SINGLED_OUT_BONUS``, one giving the kind of value it asks for (a date for "when") ``ASKED_VALUE_BONUS``; the
    unit after a question gains part of the question's score (a FAQ's answer).
    """
    units = [sentence_units(text) for text in texts]
    lines = [{line.strip() for line in text.splitlines()} for text in texts]
    weights = [
        [TITLE_WEIGHT if answers_nothing(s, whole_line=s.strip() in text_lines) else 1.0 for s, _r in text_units]
        for text_units, text_lines in zip(units, lines, strict=True)
    ]
    scores = [[_lexical_score(question, r) for _s, r in text_units] for text_units in units]
    if relevance is not None:
        # past the cap, the units that share fewest of the question's words keep their word-overlap score (ties: the
        # first passages are the most relevant): a turn naming the country asked about ("UK", イギリス) deep in a
        # long chat passage is read by meaning before the passage's first lines that share nothing
        chosen = [(i, j) for i, text_units in enumerate(units) for j in range(len(text_units))]
        chosen = sorted(chosen, key=lambda ij: -scores[ij[0]][ij[1]])[:MAX_SCORED_SENTENCES]
        cosines = list(relevance(question, [units[i][j][1] for i, j in chosen])) if chosen else []
        if cosines:
            low, high = min(cosines), max(cosines)
            spread = high - low
            for (i, j), cosine in zip(chosen, cosines, strict=True):
                meaning = (cosine - low) / spread if spread > 1e-6 else 0.0
                scores[i][j] += SEMANTIC_WEIGHT * meaning
    quoted, asked = quoted_phrases(question), asked_identifiers(question)
    gives_asked = gives_asked_value(question)
    scored: list[list[tuple[float, str]]] = []
    for text_units, text_scores, text_weights in zip(units, scores, weights, strict=True):
        raw = list(text_scores)
        text_scores = [score * weight for score, weight in zip(raw, text_weights, strict=True)]
        for k, (sentence, _reading) in enumerate(text_units):
            # a quoted phrase not in a table's row: a quoted column name is in its header row, which answers nothing
            row = sentence.lstrip().startswith("|")
            if (not row and any(holds_phrase(sentence, phrase) for phrase in quoted)) or _names_any(sentence, asked):
                text_scores[k] += SINGLED_OUT_BONUS
            if gives_asked is not None and gives_asked(sentence):
                text_scores[k] += ASKED_VALUE_BONUS
        for k, (sentence, _reading) in enumerate(text_units):
            if not is_question(sentence.strip()):
                continue
            # the answer: the next unit that says something ("No." or "はい。" may come first)
            answer = next((m for m in range(k + 1, min(k + 3, len(text_units))) if text_weights[m] == 1.0), None)
            if answer is not None:
                text_scores[answer] += ANSWER_FOLLOWS_QUESTION * raw[k]
        scored.append([(score, sentence) for score, (sentence, _r) in zip(text_scores, text_units, strict=True)])
    return scored


_ASKS_WHO = re.compile(r"\W*(?:who|whom)\b", re.IGNORECASE)


def asked_identifiers(question: str) -> list[Fact]:
    """The identifiers written as code (``premises.written_as_code``: a function, a command, a rule code) that the
    question's last sentence names and its earlier sentences (the scene it sets) do not; none for a question of one
    sentence, whose identifiers are all it is about and single out nothing. A product name ("the LaTeX guide")
    says which document, not which line. An asking sentence that asks who adds the names it gives, the scene's too:
    "…, Sony raised a problem in the supply chain. Who attended from Sony…?" asks for the lines "Satoru Ueda – Sony"."""
    spans = sentence_spans(question)
    if len(spans) < 2:
        return []
    start = spans[-1][0]
    scene = facts_of(question[:start])
    asking = facts_of(question[start:])
    asked = [f for f in asking if f.kind == "identifier" and written_as_code(f.value)]
    asked = [f for f in asked if not any(same_fact(f, g) for g in scene)]
    if _ASKS_WHO.match(question[start:]):
        asked += [f for f in asking if f.kind == "name"]
    return asked


def _names_any(sentence: str, identifiers: Sequence[Fact]) -> bool:
    """Whether ``sentence`` names one of ``identifiers``."""
    if not identifiers:
        return False
    found, plain = facts_of(sentence), plain_text(sentence)
    return any(fact_found(f, found, plain) for f in identifiers)


def rank_sentences(
    question: str, passages: Sequence[Passage], relevance: SentenceRelevance | None = None
) -> tuple[ScoredEvidence, ...]:
    """Every sentence and table row of the passages as a piece of evidence with how well it answers ``question``
    (``_scored_units``), best first; ties in passage and text order."""
    found: list[tuple[float, int, int, Evidence]] = []
    for p, units in zip(passages, _scored_units(question, [p.chunk.text for p in passages], relevance), strict=True):
        lead_ins = [
            w.lead_in for w in windows(p.chunk.text, 1, opening_lead_in(p.chunk))
        ]  # one per unit, in unit order
        for k, (score, sentence) in enumerate(units):
            found.append((-score, p.n, k, _evidence(p, clip_quote(sentence, EVIDENCE_MAX_CHARS), lead_ins[k])))
    found.sort(key=lambda entry: entry[:3])
    return tuple((-negated, piece) for negated, _n, _k, piece in found)


def strongest(ranked: Sequence[ScoredEvidence], limit: int) -> tuple[Evidence, ...]:
    """The first ``limit`` pieces of ranked evidence that say something, each sentence once (overlapping chunks
    share sentences), leaving out those scored under ``MIN_SHARE_OF_BEST`` of the best."""
    floor = MIN_SHARE_OF_BEST * max((score for score, _piece in ranked), default=0.0)
    chosen: dict[str, Evidence] = {}
    for score, piece in ranked:
        if len(chosen) == limit or (chosen and score < floor):
            break
        if piece.sentence:
            chosen.setdefault(piece.sentence, piece)
    return tuple(chosen.values())


def best_per_passage(ranked: Sequence[ScoredEvidence], passages: Sequence[Passage]) -> tuple[Evidence, ...]:
    """One Evidence per passage, in passage order: its best-ranked sentence (``""`` for a passage without one)."""
    best: dict[int, Evidence] = {}
    for _score, piece in ranked:
        best.setdefault(piece.n, piece)
    return tuple(best.get(p.n) or passage_evidence(p, "") for p in passages)


def passage_evidence(passage: Passage, sentence: str) -> Evidence:
    """``sentence`` of the passage as evidence, with the sentence introducing its list when it is a list item."""
    lead_in = list_lead_in(passage.chunk.text, sentence, opening_lead_in(passage.chunk)) if sentence else ""
    return _evidence(passage, sentence, lead_in)


def _evidence(passage: Passage, sentence: str, lead_in: str) -> Evidence:
    chunk = passage.chunk
    lead_in = lead_in or record_lead_in(chunk, sentence) or _turn_speaker(chunk, sentence)
    return Evidence(
        passage.n, chunk.source, chunk.page, chunk.chunk_id, chunk.text, sentence, score=passage.score, lead_in=lead_in
    )


def _turn_speaker(chunk: Chunk, sentence: str) -> str:
    """The speaker a turn's later sentence is shown after ("AA:" before "イギリスはまだ行ったことなくて")."""
    at = chunk.text.find(sentence) if sentence else -1
    return speaker_of(chunk.text, at) if at >= 0 else ""


def record_lead_in(chunk: Chunk, sentence: str) -> str:
    """The line naming the record a line of a flattened record belongs to ("interlocutor_id: AD"), when the line
    does not say it itself: "persona: 好きな食べ物はチョコレートやケーキで…" alone, shown as the answer to a question
    about AA, reads as AA's; it is AD's."""
    label = str(chunk.extra.get(RECORD_LABEL, ""))
    return label if sentence and label and label not in sentence else ""


def evidence_citations(evidence: Sequence[Evidence]) -> tuple[Citation, ...]:
    """Citations of the pieces of evidence, each quoting its sentence."""
    return tuple(Citation(e.n, e.source, e.page, e.sentence, e.chunk_id) for e in evidence if e.sentence)


def evidence_answer(evidence: Sequence[Evidence]) -> str:
    """The sentences of the pieces of evidence, verbatim, each with its marker, one a line; a list item after the
    sentence introducing its list ("Nothing in this division may be construed— (2) to authorize …"), a line of a
    record after the line naming the record ("interlocutor_id: AD persona: …")."""
    return "\n".join(f"{e.lead_in + ' ' if e.lead_in else ''}{e.sentence} [{e.n}]" for e in evidence if e.sentence)
