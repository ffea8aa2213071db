"""Sources a question names: "In the Digital Agency machine-readability rules, which rule ID ..." points at
``ja_digital_agency_machine_readability_rules.csv`` even though the file is written in Japanese and shares no
word of its text with the English question.

The words of each file's name (its stem cut at ``_``, ``-``, ``.``, spaces and camelCase, through the BM25
tokenizer, so "rules" matches "rule") are weighted by how few files' names use them (a word in every name, such as
a language prefix, weighs nothing). A source is named by a question with the share of its name's weight the
question's words cover; ``NAMED_SHARE`` or more counts. A day the name gives (``minutes_20180613``) names the file
in full when the question gives that day in any common form (``dated_names``). The retriever then looks for
candidates inside a named source as well, and lifts its candidates by ``NAME_BOOST`` times that share.
"""

from __future__ import annotations

import math
import re
import threading
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import PurePosixPath

from rag.ingest.tokenization import search_terms

NAMED_SHARE = 0.34
"""The share of a file name's weight a question must use for the file to count as named."""
TITLE_SHARE = 0.75
"""The share of a document title's weight a question must use for the title to name it. Titles are few and short,
so one brand word weighs much in them: at ``NAMED_SHARE`` "OpenChain" alone named both OpenChain documents by their
titles ("OpenChain業界調査結果", "OpenChain仕様書詳細解説") and "mTower" its description, and the golden set's
nDCG@10 fell from 0.848 to 0.833; three quarters asks for the title about whole ("2023年のOpenChain業界調査" covers
0.81 of the first)."""
NAME_BOOST = 1.0
"""Added to a named source's candidates' fused score (times the share named); fused scores lie in [0, 1], so a file
the question names in full comes first. On the realdocs golden set (59 questions with an answer, 17 files; hybrid
nDCG@10 / MRR@10 through ``python -m rag evaluate golden/realdocs_qa.jsonl``): without names 0.772 / 0.761; boost
0.3: 0.818 / 0.803; 0.5: 0.832 / 0.821; 1.0: 0.839 / 0.830 (share 0.34). No question was lifted to a file it did
not name."""

_DESIGNATION = re.compile(r"(?<![A-Za-z0-9])([A-Z](?:\.?[A-Z])+)\.?[\s\-]*(\d{2,})(?![0-9])")
"""Capitals then a number, as documents are designated: "H.R. 815", "RFC 7231", "ISO-9001" (not "June 13")."""
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTH_NAME = rf"(?P<mon>{'|'.join(_MONTHS)})[a-z]*\.?"
_ORDINAL = r"(?:st|nd|rd|th)?"
_DATES = (
    re.compile(r"(?<!\d)(?P<y>\d{4})\s*年\s*(?P<m>\d{1,2})\s*月\s*(?P<d>\d{1,2})\s*日"),  # 2018年6月13日
    re.compile(r"(?<![\d.])(?P<y>\d{4})(?P<sep>[-/.])(?P<m>\d{1,2})(?P=sep)(?P<d>\d{1,2})(?![\d.])"),  # 2018-06-13
    re.compile(rf"\b{_MONTH_NAME}\s+(?P<d>\d{{1,2}}){_ORDINAL},?\s+(?P<y>\d{{4}})\b", re.IGNORECASE),  # June 13, 2018
    re.compile(rf"\b(?P<d>\d{{1,2}}){_ORDINAL}\s+{_MONTH_NAME},?\s+(?P<y>\d{{4}})\b", re.IGNORECASE),  # 13 June 2018
)
"""The ways a question writes a day: year, month (a number or a name) and day."""
_DAY = re.compile(r"(?:19|20)\d\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])")
"""A day as a file's name writes it (``20180613``): a question that gives it names the file in full."""
_CUT = re.compile(r"[_\-.\s]+|(?<=[a-z])(?=[A-Z])")
_TOO_SHORT = re.compile(r"[A-Za-z]{1,2}|\d{1,2}")  # "v2", "report_3": words a question uses for other reasons


class SourceNames:
    """The name words of every indexed source, and which sources a question names; rebuilt when the index changes.

    A source has up to two names: its file's, and the title its document gives itself (an HTML page's <title>, a
    PDF's title property: "OSSライセンス関連でよくある誤解", "簡便な行組版ルール(案)"), by which a person names a
    file called ``20231012.pdf`` as well. Each is weighed on its own (a title's words against the other titles'), and
    the one the question covers more counts (a title only when the question writes it about whole)."""

    def __init__(self, tokenize: Callable[[str], list[str]]) -> None:
        self._tokenize = tokenize
        self._lock = threading.Lock()
        self._version = ""
        self._weights: dict[str, list[dict[str, float]]] = {}
        self._single: frozenset[str] = frozenset()

    def named(
        self,
        version: str,
        sources: Callable[[], Sequence[str]],
        query_tokens: Sequence[str],
        titles: Callable[[], dict[str, str]] = dict,
        abbreviations: Sequence[str] = (),
        numbers: Sequence[str] = (),
    ) -> dict[str, float]:
        """Sources ``query_tokens`` name, with the share of the weight of the name they cover best: its file's, when
        that is ``NAMED_SHARE`` or more, or its title's, when ``TITLE_SHARE`` or more.

        Args:
            version: the index version the source list belongs to (the words are recomputed when it changes).
            sources: the indexed sources (called only when the version changed).
            query_tokens: the question's BM25 tokens.
            titles: each source's document title, where it has one (called only when the version changed).
            abbreviations: the question's abbreviations (``abbreviations``): one that is a word of one file's name
                alone names that file in full.
            numbers: the question's numbers of three digits or more (``numbers``): one that is a piece of one file's
                name alone names that file in full ("チャット00004" is ``ja_chat_realpersonachat_00004.json``).
        """
        weights, single = self._weights_for(version, sources, titles)
        asked = set(query_tokens)
        named = {}
        for source, (by_name, *by_title) in weights.items():
            share = _share(by_name, asked)
            titled = max((_share(words, asked) for words in by_title), default=0.0)
            share = max(share, titled if titled >= TITLE_SHARE else 0.0)
            if any(_DAY.fullmatch(word) for word in by_name if word in asked):
                share = 1.0  # the day a file's name gives: "the 2018年6月13日 meeting" is its minutes
            if any(word in single for word in (*abbreviations, *numbers) if word in by_name):
                share = 1.0  # an abbreviation only its name holds: "the MHLW court cases" are ja_mhlw_….pdf
            if share >= NAMED_SHARE:
                named[source] = share
        return named

    def _weights_for(
        self, version: str, sources: Callable[[], Sequence[str]], titles: Callable[[], dict[str, str]]
    ) -> tuple[dict[str, list[dict[str, float]]], frozenset[str]]:
        """The weights of every source's name and title words, and the name words one file's name alone holds."""
        with self._lock:
            if version != self._version:
                self._weights = self._compute(list(sources()), titles())
                used_by = Counter(word for by_name, *_titles in self._weights.values() for word in by_name)
                self._single = frozenset(word for word, count in used_by.items() if count == 1)
                self._version = version
            return self._weights, self._single

    def _compute(self, sources: list[str], titles: dict[str, str]) -> dict[str, list[dict[str, float]]]:
        n = len(sources)
        by_name = _weighted({source: set(self._name_words(source)) for source in sources}, n)
        # a title's words as a question's search terms keep them ("有る" of "よくある誤解" never reaches a search)
        titled = {source: set(search_terms(self._words(titles[source]))) for source in sources if titles.get(source)}
        by_title = _weighted(titled, n)
        return {source: [by_name[source], *([by_title[source]] if source in by_title else [])] for source in sources}

    def _name_words(self, source: str) -> list[str]:
        pieces = name_pieces(source)
        # a number is a word of the name as a whole ("00004"): the tokenizer cuts it into digits
        numbered = [piece for piece in pieces if _NUMBER.fullmatch(piece)]
        return [*self._words(" ".join(pieces)), *numbered] if pieces else []

    def _words(self, text: str) -> list[str]:
        # the tokenizer also cuts "w3c" into "w", "3", "c": a single letter or digit never reaches a question's search
        # terms, so it would only dilute the share the question's words can cover
        return [w for w in self._tokenize(text) if not (len(w) == 1 and w.isascii() and w.isalnum())]


def _weighted(words: dict[str, set[str]], n: int) -> dict[str, dict[str, float]]:
    """Each source's words weighted by how few of the ``n`` sources' names of this kind use them (none in all)."""
    used_by = Counter(word for found in words.values() for word in found)
    return {
        source: {word: math.log(n / used_by[word]) for word in found if used_by[word] < n}
        for source, found in words.items()
    }


def _share(words: dict[str, float], asked: set[str]) -> float:
    total = sum(words.values())
    return sum(w for word, w in words.items() if word in asked) / total if total else 0.0


def name_pieces(source: str) -> list[str]:
    """The words a file's name is made of: its stem cut at ``_``, ``-``, ``.``, spaces and camelCase, without pieces
    of one or two letters or digits ("en", "v2"), which a question uses for other reasons."""
    stem = PurePosixPath(source).stem
    return [p for p in _CUT.split(stem) if p and not _TOO_SHORT.fullmatch(p)]


def designations(query: str) -> list[str]:
    """The words a file's name would write for the designations in ``query``: "H.R. 815" is ``hr815`` and ``hr``
    (a file is named ``bill_hr815.pdf``, not ``bill_h.r._815.pdf``), "RFC 7231" is ``rfc7231`` and ``rfc``."""
    words: list[str] = []
    for letters, number in _DESIGNATION.findall(query):
        letters = letters.replace(".", "").lower()
        words.extend((letters + number, letters))
    return words


_ABBREVIATION = re.compile(r"(?<![A-Za-z0-9])[A-Z][A-Z0-9]{2,}(?![A-Za-z0-9])")
"""A word of three or more capitals (digits allowed after the first): "MHLW", "W3C"."""


def abbreviations(query: str) -> list[str]:
    """The abbreviations ``query`` writes in capitals ("MHLW", "W3C"), as a file's name writes them (lower case). An
    English question names a Japanese ministry's document by its abbreviation and shares no other word with it:
    "which magazines were the MHLW court cases drawn from?" asks of ``ja_mhlw_worker_status_caselaw_method.pdf``."""
    return [word.lower() for word in _ABBREVIATION.findall(unicodedata.normalize("NFKC", query))]


_NUMBER = re.compile(r"\d{3,}")
"""A number of three digits or more, as a file's name numbers a log, a report or a case ("00004")."""


def numbers(query: str) -> list[str]:
    """The numbers of three digits or more ``query`` writes ("チャット00004の会話"), as a file's name would."""
    return _NUMBER.findall(unicodedata.normalize("NFKC", query))


def dated_names(query: str) -> list[str]:
    """The words a file's name would write for the dates in ``query``: "2018年6月13日", "2018-06-13", "June 13,
    2018" and "13 June 2018" are all ``20180613``, as minutes are named (``ja_openchain_jwg_minutes_20180613.pdf``).
    A question dates a meeting or a report by its day far more often than it repeats its file's name."""
    text = unicodedata.normalize("NFKC", query)
    words: list[str] = []
    for pattern in _DATES:
        for match in pattern.finditer(text):
            named_month = match.groupdict().get("mon")
            month = _MONTHS.index(named_month.lower()) + 1 if named_month else int(match["m"])
            year, day = int(match["y"]), int(match["d"])
            if 1 <= month <= 12 and 1 <= day <= 31:
                words.append(f"{year:04d}{month:02d}{day:02d}")
    return list(dict.fromkeys(words))
