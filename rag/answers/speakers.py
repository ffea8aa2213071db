"""Who says a line of a conversation: a claim that gives a chat line to one speaker is checked against the speaker
the chat gives it to (``said_by_another``); ``rag.answers.claim_reasons`` asks it of every claim's evidence.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.answers.fact_matching import fact_found
from rag.answers.facts import Fact, facts_of
from rag.answers.faithfulness import content_tokens
from rag.answers.loanwords import heard_in
from rag.answers.prompts import Language, script_language
from rag.answers.windows import SPEAKER

OWN_LINE_SHARE = 0.5
"""Share of the words the best line holds that the claimed speaker's own best line must hold for the claim to be
read as restating it: a claim's words taken from the question (遠距離 of 「遠距離恋愛の間」) can sit in the other
speaker's line as well."""


def said_by_another(claim: str, reading: str, evidence: str = "") -> tuple[str, str] | None:
    """``(claimed, speaker)`` when the claim gives a line of a conversation to one speaker and the evidence gives
    that line to another: "ABさんは、趣味は旅行だと言っています" on "AA: 趣味は旅行です!\nAB: いいですね!". The line
    sharing most of the claim's words (its speakers' names aside) is the one it restates; None when that line is
    the claimed speaker's, or no line shares a word.

    A claim naming several speakers is read clause by clause, each from a speaker named as its subject ("AAさんが
    「…」と言い、ABさんは…と返しました"). A claim in another language than the conversation shares no word with it:
    its names and numbers found in a line (UK / イギリス) are what tie it to that line. ``evidence``: the whole
    conversation the reading is cut from, whose speakers a claim may name though the reading holds one of them.
    """
    turns = _turns(reading)
    speakers = {speaker for speaker, _said in _turns(evidence or reading)}
    if len(speakers) < 2 or not turns:
        return None
    named = {f.value for f in facts_of(claim) if f.kind in ("name", "identifier")} & speakers
    spoken = script_language("\n".join(said for _speaker, said in turns))
    if len(named) == 1:
        return _line_of_another(claim, next(iter(named)), turns, spoken)
    if len(named) > 1 and script_language(claim) == "ja":
        for clause, subject in _clauses_by_subject(claim, speakers):
            if found := _line_of_another(clause, subject, turns, spoken):
                return found
    return None


def _turns(reading: str) -> list[tuple[str, str]]:
    """The conversation's turns as ``(speaker, what they say)``; a line without a speaker goes on the turn before it
    (a window cut at sentences writes "AB: いいなー!\n私は、イギリスとフランスだけ…")."""
    turns: list[tuple[str, str]] = []
    for line in reading.splitlines():
        if found := SPEAKER.match(line):
            turns.append((found.group().strip(" :："), line[found.end() :]))
        elif turns:
            turns[-1] = (turns[-1][0], f"{turns[-1][1]} {line}")
    return turns


_JA_SUBJECT = r"(?:さん|くん|ちゃん|氏)?(?:のほう|の方)?(?:は|が|も)"
"""What follows a speaker's name where the name is a Japanese clause's subject: "ABさんは", "AAが", "ABさんのほうが"
(the one of the two who…)."""


def _clauses_by_subject(claim: str, speakers: set[str]) -> list[tuple[str, str]]:
    """The claim's stretches that open at a speaker named as their subject, each with that speaker; a name in another
    case ("ABさんに", said to AB) opens none."""
    names = "|".join(re.escape(speaker) for speaker in sorted(speakers, key=len, reverse=True))
    starts = [(m.start(), m.group(1)) for m in re.finditer(rf"(?<![A-Za-z0-9])({names}){_JA_SUBJECT}", claim)]
    ends = [start for start, _speaker in starts[1:]] + [len(claim)]
    return [(claim[start:end], speaker) for (start, speaker), end in zip(starts, ends, strict=True)] if starts else []


def _line_of_another(
    claim: str, claimed: str, turns: Sequence[tuple[str, str]], spoken: Language
) -> tuple[str, str] | None:
    """``(claimed, speaker)`` when the line ``claim`` restates best is another speaker's and ``claimed``'s own lines
    share less than ``OWN_LINE_SHARE`` as much; ``spoken``: the language of the turns."""
    speakers = {speaker for speaker, _said in turns} | {claimed}
    if script_language(claim) != spoken:
        facts = [fact for fact in facts_of(claim) if fact.value not in speakers]
        shared = [(len(_facts_in_line(claim, facts, said, speakers)), speaker) for speaker, said in turns]
    else:
        words = content_tokens(claim) - {speaker.casefold() for speaker in speakers}
        shared = [(len(words & content_tokens(said)), speaker) for speaker, said in turns]
    best = max(count for count, _speaker in shared)
    own = max((count for count, speaker in shared if speaker == claimed), default=0)
    if best == 0 or own >= OWN_LINE_SHARE * best:
        return None  # the claimed speaker's own line holds about as much: 連絡取ってました of "…連絡を取り合っていた"
    return claimed, min(speaker for count, speaker in shared if count == best)


def _facts_in_line(claim: str, facts: Sequence[Fact], said: str, speakers: set[str]) -> list[str]:
    """The claim's ``facts`` (its names and numbers, speakers aside) a line in another language holds: as written,
    or as the other script renders them (UK / イギリス)."""
    said_facts = facts_of(said)
    return [fact.value for fact in facts if fact_found(fact, said_facts, said)] + [
        word for word in heard_in(claim, said) if word not in speakers
    ]
