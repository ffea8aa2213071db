"""Which thing a claimed fact is given for: a name or number the evidence holds may belong to something else.

The claim checks (``rag.answers.claims``) find a claim's facts in its evidence; these rules say when finding them is
not enough. A number may be given in the clause about another thing (``bound_elsewhere``), a parameter only paired
"respectively" with items listed elsewhere (``paired_respectively``), a passage about a sibling of the question's
identifier or office is no evidence about it (``about_another``), a clause the claim copies may say what it
says of a sibling identifier (``said_of_sibling``), and of the alternatives a question offers, the evidence may give
the other one for what the claim is about (``chose_elsewhere``), of the steps it tells in order, the one it
marks first (or last) may be another than the claim's (``ordered_elsewhere``), and the one a Japanese claim says
does something may not be the one the evidence makes do it (``done_by_another``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from rag.answers.facts import Fact, fact_found, facts_of, plain_text, same_fact, words_besides
from rag.answers.faithfulness import content_tokens, marks_a_sentence, sentence_spans
from rag.answers.names import designation_label

BINDING_MARGIN = 2
"""Words of the claim a sibling fact's clause must share beyond the claimed fact's for the fact to count as given
for something else (``bound_elsewhere``)."""

PARALLEL_ROW_MIN = 3
"""Identifiers side by side that make a line a row of parallel values (``_in_parallel_row``)."""
_CLAUSE_END = re.compile(r"[、，；;]|,\s")
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
    Values only (a date, a time, an amount with its unit): an identifier answering which command does something is
    one of many a manual names, each in its own clause, and the clause naming the document's own "pTEX" shares the
    question's words as well as any."""
    checked = [f for f in facts if f.kind in ("date", "time") or (f.kind == "number" and f.unit)]
    if not checked:
        return None
    words = words_besides(worded, facts)
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
            if other.kind == fact.kind and other.unit == fact.unit and not any(same_fact(other, f) for f in facts)
        ]
        best = max(siblings, key=lambda item: item[0], default=None)
        if best is not None and best[0] >= max(held) + BINDING_MARGIN:
            return best[1]
    return None


def _clauses(text: str, words: set[str]) -> list[tuple[int, tuple[Fact, ...], str, int]]:
    """Each clause of ``text`` (``_CLAUSE_END``) with the number of its sentence, its facts, its plain text and how
    many of ``words`` it holds."""
    return [
        (n, facts_of(clause), plain_text(clause), len(words & content_tokens(clause)))
        for n, (start, end) in enumerate(sentence_spans(text))
        for clause in _CLAUSE_END.split(text[start:end])
    ]


_ORDER_WORDS = {
    "first": re.compile(r"最初|まず|初めに|はじめに|第一に|\b(?i:first|firstly|initially)\b"),
    "last": re.compile(r"最後|最終的|\b(?i:last|lastly|finally)\b"),
}
"""The words that mark a step as the first or the last of several, in a question and in its evidence."""


def ordered_elsewhere(claim: str, question: str, reading: str, ignored: set[str]) -> tuple[str, str] | None:
    """The step the question asks for ("first", "last") and the clause of the evidence marking it, when the words
    the claim adds to the question (``ignored`` aside) are all in the evidence's other clauses.

    Asked whom one consults first about a compliance concern, the model answered the in-house legal department or an
    outside law firm. The commentary names them as the experts a company can consult, and then says "各担当者はまず
    Open Source Compliance Officer に懸案事項について相談し": its first step names another."""
    added = content_tokens(claim) - content_tokens(question) - ignored
    clauses = [c for start, end in sentence_spans(reading) for c in _CLAUSE_END.split(reading[start:end])]
    for order, mark in _ORDER_WORDS.items():
        if not mark.search(question):
            continue
        marked = [c for c in clauses if mark.search(c)]
        if not added or not marked or any(added & content_tokens(c) for c in marked):
            continue
        if any(added & content_tokens(c) for c in clauses):
            return order, marked[0].strip()
    return None


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


_EN_ALTERNATIVES = re.compile(r"\b([A-Za-z][\w-]*)\s+or\s+(?:(?:the|a|an)\s+)?([A-Za-z][\w-]*)", re.IGNORECASE)
_JA_TERM = "[\u3400-\u9fff々\u30a1-\u30fa\u30fcA-Za-z0-9_]+"
_JA_ALTERNATIVES = re.compile(
    f"({_JA_TERM})(?:です|でしょう|なの)?か[、,]?\\s*({_JA_TERM})(?:です|でしょう|なの)?か"
    f"|({_JA_TERM})(?:と|または|か)({_JA_TERM})の(?:どちら|どっち|いずれ)"
)
_ALTERNATIVE_CLAUSE_END = re.compile(r"[、，；;。]|,(?!\d{3})|\s(?:and|while|whereas|but)\s", re.IGNORECASE)


def chose_elsewhere(claim: str, question: str, reading: str) -> tuple[str, str] | None:
    """For a question that offers alternatives ("Is Secure World the client or the server?", "AですかBですか",
    "AとBのどちら"), the alternative the claim picks and the one the evidence gives for what the claim is about.

    "…with Normal World acting as a client and Secure World as a server" holds every word of "Secure World is the
    client": which alternative goes with the subject is told only by the clause each stands in. Among the clauses
    naming one alternative and not the other, the one sharing most of the claim's other words decides; None when it
    names the claim's pick, ties, or the claim names both or neither. ``(pick, "")`` when the evidence does not name
    the pick at all: the words the claim takes from the question are no evidence of which it chose.
    """
    offered = _alternatives(question)
    if offered is None:
        return None
    said = content_tokens(claim)
    picked = [term for term in offered if _names_term(said, term)]
    if len(picked) != 1:
        return None
    pick, other = picked[0], next(term for term in offered if term != picked[0])
    if not _names_term(content_tokens(reading), pick):
        return pick, ""
    subject = said - content_tokens(" ".join(offered))
    best: dict[str, int] = {}
    for clause in _ALTERNATIVE_CLAUSE_END.split(reading):
        tokens = content_tokens(clause)
        named = [term for term in offered if _names_term(tokens, term)]
        if len(named) == 1:
            best[named[0]] = max(best.get(named[0], 0), len(subject & tokens))
    return (pick, other) if best.get(other, 0) > best.get(pick, 0) else None


def _alternatives(question: str) -> tuple[str, str] | None:
    """The two alternatives a question offers, or None (the same word twice offers nothing)."""
    match = _EN_ALTERNATIVES.search(question) or _JA_ALTERNATIVES.search(question)
    if match is None:
        return None
    first, second = (group for group in match.groups() if group)
    words = content_tokens(first), content_tokens(second)
    return (first, second) if all(words) and words[0] != words[1] else None


def _names_term(tokens: set[str], term: str) -> bool:
    words = content_tokens(term)
    return bool(words) and words <= tokens


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
    siblings = [f for f in window_facts if f.kind == premise.kind and _sibling(premise, f)]
    return any(not same_fact(f, premise) for f in siblings) and not fact_found(
        premise, window_facts, plain_text(reading)
    )


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
    match = re.match(r"([^_.:(]+)[_.:(]", identifier)
    return match.group(1) if match else ""


_JA_CLEFT = re.compile(
    r"([\u3400-\u9fff々]+)([\u3040-\u309f]{0,3}?)(?:る|た|す|う|く|つ|む)のは、?(.+?)(?:だと|です|である|だ|。|$)"
)
"""A Japanese cleft sentence, "決めるのは法務部門です": the verb's kanji (決) and kana before its ending (め), and
who or what the claim says does it."""
_JA_DOER = re.compile(
    r"([^、。,\s][^、。,]*?)\s*が(?=[^\u3040-\u309f]|[\u3040-\u309f]{0,2}[\u3400-\u9fff\u30a1-\u30fa])"
)
"""The phrase a clause marks as its subject with が (a noun ends before it: not the が of "ですが" or "ながら")."""


def done_by_another(claim: str, reading: str) -> tuple[str, str] | None:
    """For a Japanese claim saying who does something ("…を決めるのは法務部門です"), the one the evidence makes the
    subject of that verb instead, with the claim's: ``(evidence's doer, claim's)``; None when the evidence's clause
    names no subject with が, or names the claim's.

    Asked who decides whether outside experts are consulted, the model answered "…決めるのは社内の法務部門や社外の
    法律事務所の役割の人だ": the commentary's sentence holds both, the departments as examples of the experts
    "(例として、社内の法務部門や社外の法律事務所)" and "Open Source Compliance Officer が外部有識者のアドバイスを受け
    るかどうかを決め" as the one who decides."""
    cleft = _JA_CLEFT.search(claim)
    if cleft is None:
        return None
    verb, doer = cleft.group(1) + cleft.group(2), cleft.group(3)
    wanted = content_tokens(doer)
    for found in re.finditer(re.escape(verb), reading):
        clause = re.split(r"[、。]", reading[: found.start()])[-1]
        subjects = _JA_DOER.findall(clause)
        if not subjects:
            continue
        subject = subjects[-1].strip()
        if wanted and not content_tokens(subject) & wanted:
            return subject, doer
    return None
