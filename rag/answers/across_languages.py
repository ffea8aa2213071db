"""Claims in another language than their evidence: no word is shared, so the embedding model's sense of meaning is
what ties a claim to the row or sentence its facts were found in (``rag.answers.verification`` asks, for every claim
that holds).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from rag.answers.citations import Passage
from rag.answers.claims import ClaimCheck
from rag.answers.evidence import SentenceRelevance, answers_nothing
from rag.answers.facts import facts_of, words_besides
from rag.answers.faithfulness import content_tokens
from rag.answers.prompts import script_language
from rag.answers.windows import sentence_units

ACROSS_LANGUAGES_MARGIN = 0.01
"""How far below the passages' row or sentence closest in meaning to a claim in another language its evidence may be
(e5 cosines; rows of one table differ by hundredths). On the realdocs golden replies and 73 probe questions, right
claims sat 0 to 0.006 below it ("シーケンスは100個保存できます" on "Each of the 100 sequences contains 32 … tracks")."""
PICK_MARGIN = 0.001
"""The same for a claim that adds only a name or number to the question, read with the question: only a tie. It
says "this row answers" and nothing else; the wrong rule "L1-02" sat 0.022 below the row of L3-01, a wrong year
"1900年" on a scanned patent 0.002 below the sentence closest to the question."""


ACROSS_REASON = (
    "written in another language than its evidence, it is tied to it only by its facts, and another row or sentence "
    "of the passages is closer to it in meaning"
)


def meaning_units(passages: Sequence[Passage]) -> list[tuple[str, str]]:
    """The passages' sentences and table rows that say something (titles and near-empty rows aside), each with the
    text it is read with: what a claim in another language is compared with by meaning."""
    return [unit for p in passages for unit in _described(p.chunk.text)]


_SIGNATURE_REST = re.compile(r"⟨[^⟩]*⟩|[\s{}\[\]()<>*,|=]")
"""What a command's signature holds besides the command names: its argument brackets and placeholders."""


@functools.lru_cache(maxsize=4096)  # asked of every unit of the passages, for every claim
def is_signature(unit: str) -> bool:
    """Whether ``unit`` is a command's signature ("\\ShowCommand {⟨cmd⟩}", "\\NewCommandCopy {⟨cmd⟩}
    {⟨existing-cmd⟩} …"): command names and argument placeholders, no sentence."""
    names = [f.text for f in facts_of(unit) if f.kind == "identifier"]
    rest = unit
    for name in names:
        rest = rest.replace(name, " ")
    return bool(names) and not _SIGNATURE_REST.sub("", rest)


def _described(text: str) -> list[tuple[str, str]]:
    """The sentences and table rows of ``text`` that say something (titles and near-empty rows aside), each with the
    text it is read with; a command's signature is read with the sentence after it, which says what the command
    does: "\\ShowCommand {⟨cmd⟩}" says nothing a question in words could be close to, "This displays the meaning of
    the ⟨cmd⟩ on the terminal…" does."""
    units = sentence_units(text)
    described = []
    for i, (unit, reading) in enumerate(units):
        if not is_signature(unit):
            if not answers_nothing(unit):
                described.append((unit, reading))
        elif after := next((u for u, _r in units[i + 1 :] if not is_signature(u)), ""):
            described.append((unit, f"{reading} {after}"))
    return described


def tied_by_facts_alone(
    claim: str,
    question: str,
    checks: Sequence[ClaimCheck],
    units: Sequence[tuple[str, str]],
    relevance: SentenceRelevance | None,
) -> bool:
    """Whether a claim checked against evidence in another language holds there only by its facts, on a row or
    sentence that is not the one closest to it in meaning.

    No word is shared across languages, so a claim's facts and polarity were all that tied it to its evidence: the
    bare "L1-02", answering in English which rule says the header row comes first, was verified by the row of rule
    L1-02 (several tables in one sheet) because the row names it, and "Yes, pTeX 3.8.3 can read back the value of
    \\kansujichar" by an entry of the manual's reference list naming \\kansujichar. The meaning ties them: the row
    or sentence a claim is checked against must be within ``ACROSS_LANGUAGES_MARGIN`` of the one of the passages
    closest to the claim by the embedding model's cosine (titles and near-empty rows aside). A claim that adds only
    its facts to the question is read with the question, is in the question's language, and must name the closest
    row itself (``PICK_MARGIN``). ``checks``: the checks the claim holds by; ``units``: ``meaning_units`` of the
    passages, read once per answer.
    """
    if relevance is None:
        return False
    pick = not words_besides(claim, facts_of(claim)) - content_tokens(question)
    reading = f"{question} {claim}" if pick else claim
    margin = PICK_MARGIN if pick else ACROSS_LANGUAGES_MARGIN
    language = script_language(reading)  # a bare "\\prebreakpenalty" is in the question's language
    across = [check for check in checks if script_language(check.evidence) != language]
    if not across or not units:
        return False
    # evidence from a neighbour a passage shows (``Passage.around``) is compared too, not its other sentences
    shown = [unit for check in across for unit in _described(check.evidence)]
    units = [*units, *(unit for unit in dict.fromkeys(shown) if unit not in units)]
    if not pick:  # a signature names a command for a pick; what a claim says of it is in the sentences after
        units = [unit for unit in units if not is_signature(unit[0])]
        if not units:
            return True
    cosines = list(relevance(reading, [unit_reading for _unit, unit_reading in units]))
    closest = max(cosines)
    for check in across:
        held = [cos for (unit, _r), cos in zip(units, cosines, strict=True) if unit.strip() in check.evidence]
        if not held or max(held) < closest - margin:
            return True
    return False
