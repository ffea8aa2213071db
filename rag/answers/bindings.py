"""Which thing a claimed fact is given for: a name or number the evidence holds may belong to something else.

The claim checks (``rag.answers.claims``) find a claim's facts in its evidence; these rules say when finding them is
not enough. A number may be given in the clause about another thing (``bound_elsewhere``), a parameter only paired
"respectively" with items listed elsewhere (``paired_respectively``), a passage about a sibling of the question's
identifier or office is no evidence about it (``about_another``), and a clause the claim copies may say what it
says of a sibling identifier (``said_of_sibling``). Which of several things the evidence picks is
``rag.answers.choices``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from rag.answers.fact_matching import fact_found, same_fact
from rag.answers.facts import Fact, facts_of, plain_text, words_besides
from rag.answers.faithfulness import content_tokens, marks_a_sentence, sentence_spans
from rag.answers.names import LEGEND_MARK, designation_label
from rag.answers.windows import DASH_RECORD

BINDING_MARGIN = 2
"""Words of the claim a sibling fact's clause must share beyond the claimed fact's for the fact to count as given
for something else (``bound_elsewhere``)."""

PARALLEL_ROW_MIN = 3
"""Identifiers side by side that make a line a row of parallel values (``_in_parallel_row``)."""
CLAUSE_END = re.compile(r"[、，；;]|,\s")
"""Where a clause ends: a Japanese or full-width comma, a semicolon, a comma before a space (not "1,200")."""
_COPIED_CLAUSE_END = re.compile(r"[、，；;]|,(?!\d{3})|(?=[(（])")
"""Where a clause of a copied sentence ends: also at a comma without a space ("…であるが,p3.8.2 までは") and where an
aside opens ("(例えば\\count255=\\kansujichar1 はエラー)" names its own example)."""


def bound_elsewhere(facts: Sequence[Fact], worded: str, reading: str) -> tuple[Fact, Fact] | None:
    """A claimed fact the evidence gives for something else, with the sibling it gives for what the claim says.

    "…for renewable periods not to exceed 180 days only if, not later than 15 days after the date on which the
    waiver is to take effect…" gives 180 days for a waiver; a claim that the date something takes effect can be
    pushed back by 180 days shares its words with the clause of 15 days. The same holds across the sentences of the
    window: "和文文字と欧文文字の間に,標準で\\xkanjiskip で指定されただけのグルーを挿入する … \\kanjiskip の一部と
    \\xkanjiskip はノードの形で挿入される." names \\kanjiskip, yet gives \\xkanjiskip for the glue between Japanese and
    Latin letters. A fact is bound to another clause when a sibling of its kind (an identifier, date, time, or number
    with the same unit) in a clause without it shares at least ``BINDING_MARGIN`` more of the claim's other words than
    the clauses holding it do, and that clause is in a sentence holding the fact, or every sentence holding the fact
    names the sibling too. A sentence that names the fact alone says something of it: "TEX provides two primitives
    \\uppercase and \\lowercase for changing the case of text. … To overcome this problem, LATEX provides the commands
    \\MakeUppercase …" does give \\MakeUppercase for changing case.
    Clauses end at 、，；; and at a comma before a space (not inside 1,200).
    """
    checked = [f for f in facts if f.kind in ("identifier", "date", "time") or (f.kind == "number" and f.unit)]
    if not checked:
        return None
    words = words_besides(worded, facts)  # the names the question gives ("David's Sling") bind the value it asks
    clauses = _clauses(reading, words)
    named = [facts_of(reading[start:end]) for start, end in sentence_spans(reading)]
    for fact in checked:
        holding = [(n, score) for n, found, text, score in clauses if fact_found(fact, found, text)]
        held_in = {n for n, _ in holding}
        siblings = [
            (score, other)
            for n, found, text, score in clauses
            if not fact_found(fact, found, text)
            for other in found
            if other.kind == fact.kind
            and other.unit == fact.unit
            and not any(same_fact(other, f) for f in facts)
            and (n in held_in or all(any(same_fact(other, g) for g in named[h]) for h in held_in))
        ]
        best = max(siblings, key=lambda item: item[0], default=None)
        if holding and best is not None and best[0] >= max(score for _, score in holding) + BINDING_MARGIN:
            return fact, best[1]
    return None


def answered_elsewhere(facts: Sequence[Fact], worded: str, evidence: str, others: Sequence[str]) -> Fact | None:
    """A sibling of a short answer's fact that the passages the model read (``others``, the answer's own among them)
    give for what the question asks, when its clause shares at least ``BINDING_MARGIN`` more of the question's words
    (``worded``: the question's words with the claim's) than any clause of ``evidence`` holding the claimed fact.

    Asked how much H.R. 815 gives Israel for the Iron Dome and David's Sling, the bare reply "$1,200,000,000" was
    verified on the proviso that grants it "for the procurement of the Iron Beam defense system … in addition to funds
    provided pursuant to the U.S.-Israel Iron Dome Procurement Agreement": that passage holds Israel, procurement and
    Iron Dome, and no other amount. The passage before it gives "$4,000,000,000 … for the procurement of the Iron
    Dome and David's Sling defense systems". ``bound_elsewhere`` compares the clauses of one window; a short answer
    leans on its question for what it is about, and each passage the model read answers it in its own clauses.
    Values and names only (a date, a time, an amount with its unit, a person's or body's name): asked whom the
    commentary's author thanks for advice and comments, the bare "Mark Gisi" was verified on "The author is grateful
    to Mark Gisi for his support. I also thank Nobuo Imada for advice and comments." An identifier answering which
    command does something is one of many a manual names, each in its own clause, and the clause naming the
    document's own "pTEX" shares the question's words as well as any."""
    checked = [f for f in facts if f.kind in ("date", "time", "name") or (f.kind == "number" and f.unit)]
    if not checked:
        return None
    words = words_besides(worded, facts)
    asked = facts_of(worded)  # what the question names ("Toolchain Selection") is no rival answer
    own = _clauses(evidence, words)
    theirs = [clause for reading in others for clause in _clauses(reading, words)]
    for fact in checked:
        held = [score for _, found, text, score in own if fact_found(fact, found, text)]
        if not held:
            continue
        siblings = [
            (score, other)
            for _, found, text, score in theirs
            if not fact_found(fact, found, text)
            for other in found
            if other.kind == fact.kind
            and other.unit == fact.unit
            and not any(same_fact(other, f) for f in (*facts, *asked))
        ]
        best = max(siblings, key=lambda item: item[0], default=None)
        if best is not None and best[0] >= max(held) + BINDING_MARGIN:
            return best[1]
    return None


def _clauses(text: str, words: set[str]) -> list[tuple[int, tuple[Fact, ...], str, int]]:
    """Each clause of ``text`` (``CLAUSE_END``) with the number of its sentence, its facts, its plain text and how
    many of ``words`` it holds."""
    return [
        (n, facts_of(clause), plain_text(clause), len(words & content_tokens(clause)))
        for n, (start, end) in enumerate(sentence_spans(text))
        for clause in CLAUSE_END.split(text[start:end])
    ]


def said_of_sibling(stated: Sequence[Fact], claim: str, reading: str) -> tuple[Fact, Fact] | None:
    """An identifier the claim says something of, with the sibling the evidence says that of instead.

    A clause of the claim restates a clause of the evidence when it shares its words; the identifier it names must
    then be the one that clause names. "pTeXで\\kansujiは整数値パラメータであるが,…" copies the manual's
    "\\kansujichar は整数値パラメータであるが,…" with the command's name cut short; the window holds \\kansuji
    too, two sentences on (`\\count255=\\expandafter`\\kansuji1`), so finding the name is not enough. The
    clause naming the sibling (same family, or one name the other with more letters) must share at least
    ``BINDING_MARGIN`` more of the claim clause's words than every clause naming the claimed identifier.
    """
    identifiers = [f for f in stated if f.kind == "identifier"]
    if not identifiers:
        return None
    evidence = [
        (facts_of(c), plain_text(c), content_tokens(c))
        for start, end in sentence_spans(reading)
        for c in _COPIED_CLAUSE_END.split(reading[start:end])
    ]
    for start, end in sentence_spans(claim):
        for clause in _COPIED_CLAUSE_END.split(claim[start:end]):
            named = facts_of(clause)
            words = words_besides(clause, named)
            for fact in (f for f in identifiers if fact_found(f, named, plain_text(clause))):
                holding = [len(words & tokens) for found, text, tokens in evidence if fact_found(fact, found, text)]
                siblings = [
                    (len(words & tokens), other)
                    for found, text, tokens in evidence
                    if not fact_found(fact, found, text)
                    for other in found
                    if other.kind == "identifier"
                    and not fact_found(other, named, plain_text(clause))
                    and _sibling(fact, other)
                ]
                best = max(siblings, key=lambda item: item[0], default=None)
                if best is not None and best[0] >= max(holding, default=0) + BINDING_MARGIN:
                    return fact, best[1]
    return None


_RESPECTIVELY = re.compile(r"それぞれ|各々|\brespectively\b", re.IGNORECASE)


def paired_respectively(facts: Sequence[Fact], reading: str) -> tuple[Fact, Fact] | None:
    """A claimed fact that the evidence gives only in a "respectively" sentence, with a sibling of its kind beside it.

    "上記のうち,1 と2 についてはそれぞれ\\kanjiskip, \\xkanjiskip というパラメータを設けている." says which
    parameter goes with which item of a list above it, and the claim restating item 2's words with \\kanjiskip holds
    all its words: only the list, not this sentence, tells the two apart. Where another sentence of the evidence holds
    the fact too, that one may say it plainly. A table row read out of a PDF without its columns is such a list
    (``_in_parallel_row``): "命令\\yoko \\tate \\dtou —" under "横組縦組DtoU 方向…" does not say which command sets
    縦組.
    """
    sentences = [reading[start:end] for start, end in sentence_spans(reading)]
    for fact in facts:
        holding = [s for s in sentences if fact_found(fact, facts_of(s), plain_text(s))]
        if not holding or not all(_RESPECTIVELY.search(s) or _in_parallel_row(fact, s) for s in holding):
            continue
        for sentence in holding:
            sibling = next(
                (
                    other
                    for other in facts_of(sentence)
                    if other.kind == fact.kind
                    and other.unit == fact.unit
                    and not any(same_fact(other, f) for f in facts)
                ),
                None,
            )
            if sibling is not None:
                return fact, sibling
    return None


def _in_parallel_row(fact: Fact, sentence: str) -> bool:
    """Whether every line of ``sentence`` that holds ``fact`` is a row of identifiers and nothing else but a label:
    at least ``PARALLEL_ROW_MIN`` identifiers, no other fact and at most one other word ("命令\\yoko \\tate
    \\dtou —"), what a table row becomes when its columns are lost."""
    rows = []
    for line in sentence.splitlines():
        found = facts_of(line)
        if fact_found(fact, found, plain_text(line)):
            identifiers = [f for f in found if f.kind == "identifier"]
            only = len(identifiers) == len(found) and len(words_besides(line, found)) <= 1
            rows.append(only and len(identifiers) >= PARALLEL_ROW_MIN)
    return bool(rows) and all(rows)


_JAPANESE_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u9fff々]{2,}")
_LATIN_WORD = re.compile(r"[A-Za-z]{3,}")


_ENGLISH_GRAMMAR = re.compile(r"\b(?:the|of|to|that|for|with|is|are|was|were|shall|may|which)\b")
PROSE_GRAMMAR_WORDS = 3
"""English grammar words from which a line is prose, however often a word comes back in it: a table's cells hold
names and values, not "the", "of" and "shall"."""


def row_without_its_subject(premised: Sequence[Fact], reading: str, evidence: str) -> Fact | None:
    """A premise the claim speaks of ("DtoU") that the evidence names only in another line, when the line the claim
    rests on is a row of parallel cells read out of a PDF table without its columns; None otherwise.

    pTeX's table of directions reads "横組縦組DtoU 方向縦数式ディレクション" over "字送り方向水平右向き(→)垂直下向き(↓)
    垂直上向き(↑)垂直下向き(↓)": the row gives four directions, and only their order tells which is DtoU's. "DtoU
    方向では、字送り方向は水平右向き(→)です" (the first column's) held every word of it. A row is a line without a
    sentence's end in which one cell's shape (two Japanese characters, or a Latin word) comes back at least
    ``PARALLEL_ROW_MIN`` times ("向き" of each direction)."""
    lines = [line for line in reading.splitlines() if line.strip()]
    if len(lines) != 1 or marks_a_sentence(line := lines[0]):
        return None
    text = plain_text(line).casefold()
    if len(_ENGLISH_GRAMMAR.findall(text)) >= PROSE_GRAMMAR_WORDS:
        return None  # a sentence clipped before its end ("…to respond to the situation in"), not a row of cells
    shapes = [run[i : i + 2] for run in _JAPANESE_RUN.findall(text) for i in range(len(run) - 1)]
    shapes += _LATIN_WORD.findall(text)
    if not shapes or max(shapes.count(shape) for shape in set(shapes)) < PARALLEL_ROW_MIN:
        return None
    in_row = facts_of(line)
    for fact in premised:
        if fact_found(fact, in_row, plain_text(line)):
            continue
        if any(fact_found(fact, facts_of(other), plain_text(other)) for other in evidence.splitlines()):
            return fact
    return None


def about_another(premise: Fact, window_facts: tuple[Fact, ...], reading: str) -> bool:
    """Whether the evidence names a sibling of the question's identifier or name instead of it: a premise restated
    by the claim needs no proof where the evidence leaves its subject implicit, but "| TEEC_InitializeContext | Yes |"
    is no evidence about TEEC_RequestCancellation (siblings share the prefix before ``_``, ``.``, ``:`` or ``(``, or
    one is the other with more letters: "\\kansujichar は整数値パラメータ" says nothing of \\kansuji),
    and a deadline the Secretary of the Treasury is given none about the Secretary of State (names of several words
    share their first)."""
    if fact_found(premise, window_facts, plain_text(reading)):
        return False
    siblings = [f for f in window_facts if f.kind == premise.kind and _sibling(premise, f)]
    return any(not same_fact(f, premise) for f in siblings) or _record_of_another(premise, reading)


def _record_of_another(premise: Fact, reading: str) -> bool:
    """Whether ``reading`` is a record line pairing another name with a value ("Ayumi Watanabe – Hitachi
    Solutions"): asked which company Shinsuke Kato is from, that line is no evidence of his."""
    if premise.kind != "name":
        return False
    records = [DASH_RECORD.match(line.strip()) for line in reading.splitlines() if line.strip()]
    return any(record is not None and any(f.kind == "name" for f in facts_of(record["subject"])) for record in records)


def _sibling(fact: Fact, other: Fact) -> bool:
    """Whether ``other`` (of ``fact``'s kind) is a sibling of ``fact``: one is the other with more letters, or one
    part apart (``_one_part_apart``), or they share a family (identifiers: the prefix before a separator, a
    designation's label; names of several words: their first word; a one-word name has no siblings to be told
    from)."""
    if _extends(other.value, fact.value) or _one_part_apart(fact.value, other.value):
        return True
    of_family: Callable[[str], str] = _family if fact.kind == "identifier" else _head
    family = of_family(fact.value) if fact.kind == "identifier" or " " in fact.value else ""
    return bool(family) and of_family(other.value) == family


_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def _one_part_apart(value: str, other: str) -> bool:
    """Whether two identifiers written in parts (CamelCase, snake_case) differ in exactly one of as many parts:
    ``\\ProvideDocumentCommand`` beside ``\\DeclareDocumentCommand``, ``TEE_GetPropertyAsBool`` beside
    ``TEE_GetPropertyAsU32``."""
    parts, others = _PART.findall(value), _PART.findall(other)
    if len(parts) < 2 or len(parts) != len(others):
        return False
    return sum(a.casefold() != b.casefold() for a, b in zip(parts, others, strict=True)) == 1


def _extends(value: str, other: str) -> bool:
    """Whether one identifier is the other with more letters: ``\\kansujichar`` beside ``\\kansuji``."""
    a, b = value.casefold(), other.casefold()
    return a != b and (a.startswith(b) or b.startswith(a))


def _head(name: str) -> str:
    """The first word of a name, which the names of its siblings share (``secretary`` of ``Secretary of State``)."""
    return name.split()[0].casefold() if name.strip() else ""


def _family(identifier: str) -> str:
    """The prefix an API's identifiers share (``TEEC`` of ``TEEC_OpenSession``), the label designations share
    (``division`` of ``Division R``); "" for one without a separator."""
    if label := designation_label(identifier):
        return label
    if LEGEND_MARK.fullmatch(identifier):
        return "legend mark"  # ○ and ● are told apart by the legend, as Division R and Division S by their letter
    match = re.match(r"([^_.:(]+)[_.:(]", identifier)
    return match.group(1) if match else ""
