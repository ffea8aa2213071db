"""Whether a claim's polarity differs from the evidence sentence it restates: the sentence sharing most of its
words (or holding its facts), the part of a claim that joins an affirmed and a denied statement ("…is implemented but
not tested"), a table row's yes/no cell or the comment beside it, the clause of a Japanese sentence that gives the
claim's case or condition, and the condition a denial is lifted by ("…shall not be entertained unless commenced
within 10 years"). How one sentence is negated is ``rag.answers.polarity``.
"""

from __future__ import annotations

import os
import re

from rag.answers.fact_matching import fact_found
from rag.answers.facts import facts_of, plain_text
from rag.answers.faithfulness import content_tokens, is_question, is_table_row, punctuated_sentences, support
from rag.answers.loanwords import heard_in
from rag.answers.polarity import (
    KANA,
    NO_CELLS,
    POLARITY_MIN_SUPPORT,
    YES_CELLS,
    clauses_of,
    holds_words,
    is_negated,
    negation_count,
    predicate_words,
    yes_no_cell,
)

_CONDITION = re.compile(
    r"(?:[てでう]いると|[るたい]と|[れけ]ば|たら|なら|場合(?:に)?は?|とき(?:に)?は?|際(?:に)?は?)\s*$"
)
"""The end of a clause that states a condition ("…残されていると", "…であれば", "…した場合は")."""
_REASON = re.compile(r"(?:ため|ので|から)\s*$")
"""The end of a clause given as the reason for the rest of the sentence ("…実行できない場合があるため")."""
_JOINED_DENIAL = re.compile(r"(?:ず|ずに|なく|ないで)\s*$")
"""A clause that denies and joins the next one as a coordinate statement, not as its condition."""
_CONDITION_WITHIN = re.compile(r"(?:場合|とき|時|際)(?:に)?(?:は|も|でも)")
"""Where a clause's condition ends without a comma ("…行頭に配置される場合も全角アキを確保します")."""
_JOINED_AFFIRMATION = re.compile(r"(?:ており|ておりまして|となり)\s*$")
"""A clause that affirms a state and joins the next one as a statement of its own ("…となっており,"), not as its
condition ("…含まれていると、") nor as the first half of one point ("任意であり、義務とはされていません"): a denial
in the next clause is not its."""


def _without_question_cells(row: str) -> str:
    """A table row without the cells that ask ("| L1-12 | 【Excel】セルの結合をしていないか | …": a checklist's
    question asserts nothing, though it holds the claim's words)."""
    cells = row.split("|")
    return "|".join(cell if not is_question(cell.strip()) else "" for cell in cells)


def polarity_conflict(claim: str, evidence: str, *, across: bool = False) -> bool:
    """Whether the claim's polarity differs from the evidence sentence it restates (when it restates one: the sentence
    sharing most of its words, or failing that the one holding its facts).

    ``across``: claim and evidence are in different languages, so no words are shared; the sentence restated is
    then the one holding most of the claim's facts, and polarity is always compared with it.
    """
    # sentences end at their punctuation here, not at line breaks: a slide or a wrapped PDF line breaks mid-sentence;
    # a table's rows end at their line breaks
    sentences = [
        _without_question_cells(line) if is_table_row(line) else line
        for piece in punctuated_sentences(evidence)
        for line in (piece.splitlines() if any(map(is_table_row, piece.splitlines())) else [piece])
        if line.strip()
    ] or [evidence]
    # a question asserts nothing, so its polarity is not the evidence's ("…読まなければいけないでしょうか?")
    sentences = [s for s in sentences if not is_question(s)] or sentences
    facts = facts_of(claim)
    held = [sum(fact_found(f, facts_of(s), plain_text(s)) for f in facts) for s in sentences]
    # as many facts in two sentences ("LaTeX" in one, "\Provide" in the next): the one sharing more of its words
    by_facts = max(zip(held, sentences), key=lambda pair: (pair[0], support(claim, pair[1])))[1]
    if across:
        if yes_no_cell(by_facts) is not None:  # each part against the cell it speaks of ("テスト": "Not tested")
            return any(
                is_negated(part) != _row_polarity(part, by_facts) for part in parts_of_mixed_polarity(claim) or [claim]
            )
        return is_negated(claim) != is_negated(by_facts)
    # a Japanese claim asserts in its last clause: the ones before set its scope ("…ルールでは、") or its condition,
    # so the sentence compared is the one restating its predicate most (then the whole claim)
    said = clauses_of(claim) if KANA.search(plain_text(claim)) else []
    predicate = said[-1] if len(said) > 1 else ""
    # a tie goes to the sentence the claim covers most of (a bullet "The verbatim argument type v is not available"
    # over the long opening sentence that shares as many of its words)
    closest = max(sentences, key=lambda s: (support(predicate, s), support(claim, s), support(s, claim)))
    restated = max(support(claim, closest), support(predicate, closest))
    if restated < POLARITY_MIN_SUPPORT:
        # few words in common, but the sentence holding the claim's facts is what it restates: a table row
        # "| TEEC_RequestCancellation | No |" against "TEEC_RequestCancellation is implemented"; and a row alone is
        # what a claim checked on it (its words found in the header it is read with) restates: "This function is
        # implemented" against "| **Asymmetric Functions** | No |" under "| GP TEE Internal API | Implemented |"
        if len(sentences) == 1 and is_table_row(sentences[0]):
            closest = sentences[0]
        elif not max(held, default=0):
            return False
        else:
            closest = by_facts
    if yes_no_cell(closest) is not None and (parts := parts_of_mixed_polarity(claim)):
        # "…is implemented, but it is marked as not tested": each part against its own cell of the row
        return any(is_negated(part) != _row_polarity(part, closest) for part in parts)
    claim_negated = _restating_part_negated(claim, closest)
    if (outcome := condition_outcome(claim, closest)) is not None:
        return claim_negated != outcome
    if (commented := comment_polarity(claim, closest)) is not None:
        return claim_negated != commented
    contrasted = clause_polarity(claim, closest)
    contrasted = _unless_polarity(claim, closest) if contrasted is None else contrasted
    return claim_negated != (is_negated(closest) if contrasted is None else contrasted)


_EN_PARTS = re.compile(r",?\s+but\s+|;\s+|,\s+(?:although|though|whereas|while)\s+", re.IGNORECASE)
"""Where an English claim joins two statements of their own: "…is implemented but not tested"."""
_JA_PARTS = re.compile(r"(?:(?<=ますが)|(?<=ですが)|(?<=たが)|(?<=だが)|(?<=おり)|(?<=ておらず))、")
"""Where a Japanese claim joins two statements of their own: 「実装されていますが、テストされていません」."""
_INFLECTION = re.compile(r"(?<=[a-z])(?:ed|ing)\b", re.IGNORECASE)
"""An English verb's ending, left out to read a cell's word as its katakana rendering does ("tested" as テスト)."""


def parts_of_mixed_polarity(claim: str) -> list[str]:
    """The statements a claim joins when one is affirmed and another denied ("…is implemented but not tested",
    「実装されていますが、テストされていません」); [] otherwise."""
    parts = _JA_PARTS.split(claim) if KANA.search(claim) else _EN_PARTS.split(claim)
    return parts if len({is_negated(part) for part in parts}) > 1 else []


def _row_polarity(part: str, row: str) -> bool:
    """Whether a table row with a yes/no cell denies what ``part`` of a claim speaks of: its comment cell when the
    part speaks of the comment, its yes/no cell otherwise."""
    commented = comment_polarity(part, row)
    return is_negated(row) if commented is None else commented


def _restating_part_negated(claim: str, sentence: str) -> bool:
    """Whether the claim denies what ``sentence`` speaks of: an English claim joining an affirmed and a denied part
    ("Yes, TEEC_RegisterSharedMemory is implemented but not tested") is read by the part sharing most of the
    sentence's words ("| TEEC_RegisterSharedMemory | No | |" under "Implemented"), not counted as one denial."""
    parts = parts_of_mixed_polarity(claim)
    if not parts:
        return is_negated(claim)
    fits = [(support(part, sentence), not is_negated(part)) for part in parts]
    best = max(fits)
    if [fit for fit, _affirmed in fits].count(best[0]) > 1:
        return is_negated(claim)
    return not best[1]


def _is_aside(clause: str) -> bool:
    return clause.lstrip().startswith(("(", "（"))


def comment_polarity(claim: str, row: str) -> bool | None:
    """For a table row with a yes/no cell, whether a comment cell the claim speaks of denies:
    "| TEE_GetObjectBufferAttribute | Yes | Not tested |" answers yes to "is it implemented" and no to "is it
    covered by the test suite". The comment decides when it is denied and holds a word of the claim ("test"); None
    otherwise (the yes/no cell decides, ``is_negated``)."""
    if yes_no_cell(row) is None:
        return None
    cells = [cell.strip() for cell in row.strip().strip("|").split("|")]
    said = content_tokens(claim)
    for cell in cells[1:]:
        if cell.casefold() in YES_CELLS | NO_CELLS or not is_negated(cell):
            continue
        if any(holds_words({word}, cell) for word in said if not holds_words({word}, cells[0])):
            return True
        if KANA.search(claim) and heard_in(claim, _INFLECTION.sub("", cell)):
            return True  # 「テストされていません」 speaks of "Not tested" (its テスト is "test")
    return None


def condition_outcome(claim: str, sentence: str) -> bool | None:
    """For a Japanese claim whose verb the sentence holds only in a condition, whether what follows from that
    condition is denied (None when the sentence asserts the claim's verb itself, or for other languages).

    Rule L1-04 reads "表のデータ範囲の外側にメモ等の無関係な情報が残されていると、並べ替えといった手作業だけでなく、
    機械がデータ範囲を誤認識して自動処理も正しく実行できない場合があるため、データ本体と無関係な情報は完全に削除する
    こと。": leaving memos is its condition, and what follows is that processing fails, so "メモを残してもよいです"
    says the opposite and "残してはいけません" agrees, though the sentence ends by saying to delete. The claim's verb
    (the last words of its predicate written in kanji or katakana: 残, 削除) must be in a condition clause and in no
    other; the outcome runs from the next clause to the one giving it as a reason (…ため、) or the sentence's end.
    """
    verbs = predicate_words(claim)
    clauses = clauses_of(sentence)
    holding = [i for i, clause in enumerate(clauses) if any(verb in clause for verb in verbs)]
    if not holding or not all(i < len(clauses) - 1 and _CONDITION.search(clauses[i]) for i in holding):
        return None
    outcome: list[str] = []
    for clause in clauses[holding[-1] + 1 :]:
        outcome.append(clause)
        if _REASON.search(clause):
            break
    return any(negation_count(clause) % 2 == 1 for clause in outcome)


def clause_polarity(claim: str, sentence: str) -> bool | None:
    """Whether the clause of a Japanese ``sentence`` that the claim's predicate restates is negated, when the
    sentence's clauses differ in polarity (None when they agree, or for other languages).

    "行末に配置される場合は,全角アキを確保し,行頭に配置される場合は,全角アキを確保しないで,…" affirms for one
    case and denies for the other; its last clause says neither. The clause compared is the one sharing most words
    with the claim's last clause; when several do (the same predicate for two cases), the one whose preceding clause
    differs from the others' in words the claim's condition holds ("行頭に来た場合も" picks 行頭 over 行末).
    """
    if not KANA.search(plain_text(sentence)):
        return None
    clauses = clauses_of(sentence)
    negated = [negation_count(c) % 2 == 1 for c in clauses]
    said = clauses_of(claim)
    if len(set(negated)) < 2 or not said:
        return None
    predicate, condition = said[-1], (said[-2] if len(said) > 1 else "")
    if inner := _CONDITION_WITHIN.search(predicate):  # "…行頭に配置される場合も全角アキを確保します", no comma
        condition, predicate = f"{condition} {predicate[: inner.end()]}", predicate[inner.end() :]
    fits = [support(predicate, clause) for clause in clauses]
    if max(fits) == 0:
        return None
    candidates = [i for i, fit in enumerate(fits) if fit >= 0.8 * max(fits)]
    if len(candidates) < 2:
        # one clause restated: the sentence is no pair of cases, and its polarity is its main predicate's; a
        # condition ("改行が含まれていると、…読み取れなくなる") is not what it asserts, but a denial joined to the
        # next clause is ("セルの結合を行わず、同一内容を各セルに入力すること": do not merge, and enter …)
        restated = clauses[candidates[0]]
        if (later := clauses[candidates[0] + 1 :]) and all(_is_aside(clause) for clause in later):
            return negated[candidates[0]]  # only asides follow it ("…挙動であった(例えば…はエラー)"): the predicate
        if candidates[0] < len(clauses) - 1 and _JOINED_DENIAL.search(restated):
            return True
        # "1 zh = 9.16443 pt となっており, 両者の値は一致していない": the denial is the next statement's
        return False if _JOINED_AFFIRMATION.search(restated) and not negated[candidates[0]] else None
    # the same predicate for two cases ("行末に配置される場合は…し, 行頭に配置される場合は…しないで"): the cases
    # differ where their condition clauses stop running in parallel, just before the ending they share
    conditions = [clauses[i - 1] if i > 0 else "" for i in candidates]
    shared = len(os.path.commonprefix([c[::-1] for c in conditions]))
    heads = [c[: len(c) - shared] for c in conditions]
    width = min(len(h) for h in heads)
    if width == 0:
        return None
    asked = content_tokens(condition)
    named = [len(asked & content_tokens(h[-width:])) for h in heads]
    if max(named) == 0 or named.count(max(named)) > 1:
        return None  # the claim names none of the cases, or several: nothing to compare with
    return negated[candidates[named.index(max(named))]]


_UNLESS = re.compile(r"\bunless\b", re.IGNORECASE)


def _unless_polarity(claim: str, sentence: str) -> bool | None:
    """For an English ``sentence`` that denies a thing unless a condition holds ("…shall not be entertained unless
    commenced within 10 years…"), whether the part the claim restates is denied: the condition is what must hold
    ("must be commenced within 10 years" agrees), the denial what happens otherwise. None when the sentence has no
    such "unless" or the claim restates neither part more."""
    found = _UNLESS.search(sentence)
    if found is None or KANA.search(sentence) or not is_negated(sentence[: found.start()]):
        return None
    denial, condition = sentence[: found.start()], sentence[found.end() :]
    fits = support(claim, denial), support(claim, condition)
    if fits[0] == fits[1]:
        return None
    return is_negated(denial) if fits[0] > fits[1] else is_negated(condition)
