"""The words a claim adds to what its evidence says, and whether the evidence holds enough of them: the Japanese
words it adds to its question (its answer), counted as words (kanji pairs, a lone kanji noun between particles, each
katakana word once and each proper noun once), and the English words of each of its clauses.

``rag.answers.claim_reasons`` asks ``added_words_unsaid`` and ``clause_unsaid`` of the window a claim is checked
against; ``word_count`` tells how much a text says besides its facts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.answers.facts import Fact, facts_of, words_besides
from rag.answers.faithfulness import content_tokens, is_katakana, run_tokens, script_runs, sentence_spans
from rag.answers.polarity import holds_word
from rag.ingest.tokenization import proper_nouns

ADDED_WORDS_SHARE = 0.5
"""Share of the Japanese words a claim adds to the question that its evidence must hold (``added_words_unsaid``)."""
ADDED_MIN_TOKENS = 1
"""Added words (kanji pairs, katakana words) a claim must have for ``added_words_unsaid`` to judge it: one will do
("縦持ち" is the whole answer of "データを縦持ち形式に"); a lone kanji is a counter or an ending ("30個")."""
CLAUSE_WORDS_SHARE = 0.5
"""Share of an English clause's own words its evidence must hold (``clause_unsaid``)."""
CLAUSE_NEIGHBOURS = 2
"""Sentences before and after the window a claim was read on that its clauses may draw their words from: "unlike
\\newcommand, this is decided argument by argument, so in 's o o +m O{default}' only the mandatory argument is long"
takes its last clause from two sentences on ("So modifying the example to 's o o +m O{default}' means…")."""
CLAUSE_MIN_WORDS = 3
"""Words (besides its facts and the question's) a clause must say for ``clause_unsaid`` to judge it: "and it is
free" leans on the clause before it."""
_CLAUSE_BREAK = re.compile(
    r";|\s[—–]\s|,?\s+(?:but|while|whereas|although|though|yet)\s+|,\s+(?:and|or|so)\s+"
    r"|\s+and\s+(?=(?:it|they|he|she|this|that|each|all|no|only|must|may|can|cannot|have|has|had|is|are|was|were|will"
    r"|would|should|does|do|did)\b)",
    re.IGNORECASE,
)
"""Where an English sentence starts another clause: a semicolon or dash, "but", "while", ", and", ", so", or "and"
before a new subject or verb ("…just before it plays, and the note is moved…", "…stake and have held it…")."""
_KANJI_RUN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff々]+")
_JAPANESE_TOKEN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u30a0-\u30ff]")
_HIRAGANA = re.compile("[\u3041-\u3096]")
_JA_CLAUSE_BREAK = re.compile(r"[、，,]")


def added_words_unsaid(claim: str, topic: str, reading: str, premised: Sequence[Fact] = ()) -> str:
    """The Japanese words the claim adds to the question (``topic``) that the evidence lacks, when fewer than
    ``ADDED_WORDS_SHARE`` of them are in it ("" otherwise).

    What a Japanese answer adds to the question is its answer, and a kanji name is no fact the checks compare
    (``facts`` reads Latin-script names): "AQは東京都出身です" held enough of its words (AQ, 出身) in the record that
    says "愛媛県松山市出身です" to be verified. Words are counted as words (``_added_words``), not as character
    pairs: the one katakana word ライセンス must not outweigh 使用, 許可, 基準 and 選択 beside it."""
    named = content_tokens(" ".join(f.text for f in premised))
    known, read = content_tokens(topic) | named, content_tokens(reading)
    joins = _junctions(claim, known | read) - read
    added = [(text, tokens) for text, tokens in _added_words(claim, known) if not tokens <= joins]
    if len(added) < ADDED_MIN_TOKENS:
        return ""
    absent = _unheld(added, read)
    if len(added) - len(absent) >= ADDED_WORDS_SHARE * len(added):
        return ""
    return ", ".join(sorted(absent)[:4])


def clause_unsaid(claim: str, topic: str, window: str, evidence: str, premised: Sequence[Fact] = ()) -> str:
    """The English words of one clause of the claim that its evidence lacks (a Japanese claim's clauses are cut at its
    commas and counted as words: ``_japanese_clause_unsaid``), when fewer than ``CLAUSE_WORDS_SHARE``
    of that clause's words are in the ``window`` the claim was read on, with ``CLAUSE_NEIGHBOURS`` sentences of
    ``evidence`` on either side ("" otherwise, and for a claim of one clause).

    A claim's share of words is counted over the whole claim, so a clause the evidence never says rides on the one
    it does: "When such foreign persons directly or indirectly own at least a 20 percent stake and have held it for at
    least one year" held most of its words in "directly or indirectly own at least a 20 percent stake", and "each must
    be uniform with a diameter of exactly one-thousandth of an inch" leaned on "The wires may have various lengths".
    Each clause that says something besides its facts and the question's words (at least ``CLAUSE_MIN_WORDS``
    words) must hold its share of them there; a word is held in any form (``holds_word``)."""
    japanese = _HIRAGANA.search(claim) is not None  # a Japanese sentence; an English one may quote a Japanese term
    breaks = _JA_CLAUSE_BREAK if japanese else _CLAUSE_BREAK
    clauses = [clause for clause in breaks.split(claim) if clause and clause.strip()]
    if len(clauses) < 2:
        return ""
    known = content_tokens(topic) | content_tokens(" ".join(f.text for f in premised))
    held = content_tokens(_with_neighbours(window, evidence))
    if japanese:
        return _japanese_clause_unsaid(clauses, known, held)
    for clause in clauses:
        words = {word for word in words_besides(clause, facts_of(clause)) if word.isascii() and word not in known}
        if len(words) < CLAUSE_MIN_WORDS:
            continue
        absent = sorted(word for word in words if not holds_word(word, held))
        if len(words) - len(absent) < CLAUSE_WORDS_SHARE * len(words):
            return ", ".join(absent[:4])
    return ""


def _japanese_clause_unsaid(clauses: Sequence[str], known: set[str], held: set[str]) -> str:
    """The words of one clause of a Japanese claim (between its commas) that the evidence lacks, when fewer than
    ``CLAUSE_WORDS_SHARE`` of the words it adds (``_added_words``, at least ``CLAUSE_MIN_WORDS``) are held: "Program
    関係者が、…影響を認識していることを、外部の認証機関が審査して確認したエビデンスです" held most of its words in the
    OpenChain commentary's "1.3.1 Program 関係者が、…認識していることを確認したことの、文書化されたエビデンス", and no
    word of the outside certification body's review (外部, 認証機関, 審査)."""
    for clause in clauses:
        added = _added_words(clause, known)
        if len(added) < CLAUSE_MIN_WORDS:
            continue
        absent = _unheld(added, held)
        if len(added) - len(absent) < CLAUSE_WORDS_SHARE * len(added):
            return ", ".join(sorted(absent)[:4])
    return ""


def _unheld(words: Sequence[tuple[str, frozenset[str]]], held: set[str]) -> list[str]:
    """The words (``_added_words``) fewer than ``ADDED_WORDS_SHARE`` of whose tokens ``held`` holds."""
    return [text for text, tokens in words if len(tokens & held) < ADDED_WORDS_SHARE * len(tokens)]


def _with_neighbours(window: str, evidence: str) -> str:
    """``window`` with ``CLAUSE_NEIGHBOURS`` sentences of ``evidence`` before and after it (the window alone when it is
    not found)."""
    at = evidence.find(window)
    if at < 0 or not window:
        return window
    spans = sentence_spans(evidence)
    inside = [i for i, (start, end) in enumerate(spans) if end > at and start < at + len(window)]
    if not inside:
        return window
    first, last = max(inside[0] - CLAUSE_NEIGHBOURS, 0), min(inside[-1] + CLAUSE_NEIGHBOURS, len(spans) - 1)
    return evidence[spans[first][0] : spans[last][1]]


def word_count(text: str) -> int:
    """How many words ``text`` says besides its facts: its Latin-script content words, its kanji pairs and each of
    its katakana runs once ("バナナジュース" is one word, not six character pairs)."""
    latin = [token for token in words_besides(text, facts_of(text)) if token.isascii()]
    return len(latin) + len(_added_words(text, set()))


_LONE_KANJI_NOUN = re.compile(
    r"(?:^|(?<=[はがをにでとのもや、「『（(\s]))([\u4e00-\u9fff])(?=[をがはにでとのもや」』）)、。]|です|だ)"
)
"""A kanji standing alone between particles: a noun ("AMは猫を飼っています"), not a counter ("30個", after a digit),
nor a verb's stem (飼っ), nor the tail of a longer word."""
_OKURIGANA = re.compile(r"[ぁ-ゖ](?<![をがはにでとのもへや])")
"""Kana after a kanji that make it a verb's or adjective's stem (作り, 高い), not a particle after a noun."""
_FUNCTION_KANJI = frozenset("後前次他際方点上下中内外間時事物為旨等毎各全本当同別所的性化")
"""Lone kanji that are function nouns ("その後、", "の際に", "の方が"): they say where or when, not what."""


def _added_words(claim: str, known: set[str]) -> list[tuple[str, frozenset[str]]]:
    """The kanji and katakana words ``claim`` adds to the ``known`` tokens, each with its tokens: a kanji pair is a
    word, and a lone kanji between particles (猫 of "猫を飼っています"; ``_LONE_KANJI_NOUN``), where elsewhere a lone
    kanji is a counter or an ending; in a katakana run, the unknown tokens in a row are one word (ライセンス of
    オープンソースライセンス when オープンソース is known), unless they only join two known words."""
    words: list[tuple[str, frozenset[str]]] = [
        (kanji, frozenset({kanji}))
        for kanji in dict.fromkeys(_LONE_KANJI_NOUN.findall(claim))
        if kanji not in known and kanji not in _FUNCTION_KANJI
    ]
    names = [name for name in proper_nouns(claim) if len(name) > 2]
    cursor = 0
    for run in script_runs(claim):
        at = claim.find(run, cursor)
        cursor = at + len(run) if at >= 0 else cursor
        if len(run) < 2 or not _JAPANESE_TOKEN.match(run):
            continue
        tokens = run_tokens(run)
        if not is_katakana(run):
            if len(tokens) > 1 and at >= 0 and _OKURIGANA.match(claim, at + len(run)):
                tokens = tokens[:-1]  # "餃子作り": 作 is the stem of 作り, and 子作 no word
            # a name is one word, however many kanji pairs it has: 愛媛県松山市 must not outweigh 会社員
            for name in (name for name in names if name in run):
                in_name = set(run_tokens(name))
                tokens = [token for token in tokens if token not in in_name]
                if not in_name <= known:
                    words.append((name, frozenset(in_name)))
            words += [(token, frozenset({token})) for token in tokens if token not in known]
            continue
        start = None
        for i, token in enumerate([*tokens, ""]):  # "" closes the last stretch
            if token and token not in known:
                start = i if start is None else start
            elif start is not None:
                # the characters of the stretch not in a known neighbour; none: a pair joining two known words
                text = run[start + (start > 0) : i + (i == len(tokens))]
                if text:
                    words.append((text, frozenset(tokens[start:i])))
                start = None
    return words


def _junctions(claim: str, known: set[str]) -> set[str]:
    """The kanji pairs of ``claim`` that join two ``known`` words and are no word of their own: "月有" of
    "18 か月有効" where か月 (a lone 月) and 有効 are known."""
    found: set[str] = set()
    for run in _KANJI_RUN.findall(claim):
        for i in range(len(run) - 1):
            left = run[i - 1 : i + 1] if i > 0 else run[i]
            right = run[i + 1 : i + 3] if i + 2 < len(run) else run[i + 1]
            if left in known and right in known:
                found.add(run[i : i + 2])
    return found
