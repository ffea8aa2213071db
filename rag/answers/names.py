"""Identifiers and names as texts write them, the facts of those kinds ``rag.answers.facts`` compares: TeX commands,
API identifiers, codes and designations ("L3-01", "H.R. 815", "Division R"), acronyms and Latin-script names; and
whether a text holds one (``phrase_found``: as a whole word, its words in order).
"""

from __future__ import annotations

import functools
import re
from typing import Literal

Kind = Literal["identifier", "name"]


def overlaps(span: tuple[int, int], taken: list[tuple[int, int]]) -> bool:
    """Whether ``span`` overlaps one of the ``taken`` spans (a text read as one fact is read as no other)."""
    return any(start < span[1] and span[0] < end for start, end in taken)


CODE = re.compile(
    r"\b(?:[A-Z]{1,2}\.){1,3}\s?\d+(?!\d|\.\d)"  # designations: H.R. 815, S. 1 (also before Japanese: H.R. 815は)
    r"|\b[A-Z]{1,3}\d+(?:-\d+)+(?![\d-])"  # rule and item codes: L3-01, R2-1-4
    r"|\b[A-Za-z]{2,4}-(?:\d{1,4}|[ivx]{1,5})\b(?![-.]?\d)"  # class and encoding codes: cl-03, cl-xii, UTF-8
    r"|\b0[xX][0-9A-Fa-f]+\b|\bU\+[0-9A-Fa-f]{4,6}\b"  # hexadecimal values and code points: 0x2E7F, U+2E80
    r"|\b(?=[A-F]*\d)(?=\d*[A-F])[0-9A-F]{3,8}\b"  # hexadecimal codes without a prefix: JIS "213D, EUC "C6F5
    r"|\b\d+(?:\.\d+)*[a-z]{1,2}\d+\b"  # release codes: 6.1q1, 8q4 (GCC's), 2p1
    r"|\b\d+[A-Z]?(?:\([a-zA-Z0-9]{1,4}\)){1,5}(?![\w(])"  # a statute's sections: 506(a)(1), 2318(a)(2)(B)
    r"|(?<![\w#])#\d+(?![\d.])",  # a numbered mark, no count: TeX's parameter #2, issue #12
    re.ASCII,  # a word boundary against ASCII only: "ルールのL3-09では" holds L3-09 (の and で are letters to Unicode)
)
"""Codes that hold digits: read as one identifier before any number is, so "L3-01" is no count of 1, "cl-11" (a
character class) no count of 11, "0x10FFFF" no 0, and the JIS code "213C no 213 (the pTeX manual's is "213D)."""
LETTER_DESIGNATION = re.compile(
    r"\b((?i:division|subtitle|title|part|appendix|annex|schedule|chapter|exhibit|article))\s+([A-Z]{1,3})\b(?!-)",
    re.ASCII,
)
"""A part of a document designated by letters: "Division R", "DIVISION S.—", "Title II", "Appendix A"; its letter
is what tells it from its siblings, so the two are one identifier ("Division R" is not "DIVISION S")."""
JA_LETTER_DESIGNATION = re.compile(
    r"(状態|付録|別表|別紙|資料|様式|方式|区分|段階|案|表|図|型|類|ケース|パターン|タイプ|グループ|ランク|レベル)"
    r"([A-Z])(?![A-Za-z0-9_])"
)
"""A Japanese label and the letter that designates one of its kind: 状態K and 状態T (the states of pTeX's input
processor), 付録A, 案B. Only labels that designate: the Q of 「長さの単位Q」 names a unit, not the Q-th unit."""
_IDENTIFIER = re.compile(
    r"\\[A-Za-z@]+"  # TeX control sequences
    r"|\b[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+\b"  # snake_case, TEEC_OpenSession
    r"|\b[a-z]+[A-Z][A-Za-z0-9]*\b"  # camelCase
    r"|\b[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*\b"  # OpenChain, PowerPoint
    r"|\b[A-Za-z_][\w-]{1,}\.(?:tex|sty|cls|cfg|pdf|txt|json|yaml|yml|toml|xml|html|md|py|c|h|sh)\b"  # file names
    r"|\b[A-Za-z_]\w*\(\)"  # function()
    r"|\b[A-Z][A-Za-z]*-[A-Z]{2,}\b"  # names with a part in capitals: Shift-JIS, EUC-JP
    r"|\b[A-Z]{2,}v\d+(?:\.\d+)?\b",  # a name with its version: GPLv2, LGPLv2.1
    re.ASCII,  # "mTowerはTEE_GetPropertyAsStringを実装" holds mTower and TEE_GetPropertyAsString
)
_CODE_SPAN = re.compile(r"`([^`\n]{1,40})`")
"""A name an answer writes as code ("use the `hashes` option"): it names an option, a key or a value the text must
give, however plain its words."""
_ACRONYM = re.compile(r"\b[A-Z][A-Z0-9&]{1,}\b", re.ASCII)
LEGEND_MARK = re.compile(r"(?<![^\n])[ \t]*[○◯●◎△▲▽▼□■◇◆☆★](?=[ \t])|(?P<mark>[○◯●◎△▲▽▼□■◇◆☆★])")
"""A mark a legend gives a meaning ("・●:労働者性を否定する方向の事情", "●の記号は…"): one is what tells a row from
its siblings ("・○:…を肯定する方向の事情"), as a code does. A mark opening a line before a space is a bullet, no
name."""
_CAPITALIZED_RUN = re.compile(
    r"\b[A-Z][a-z][A-Za-z'-]*(?:\s+(?:of\s+|for\s+|and\s+|[A-Z]\.\s+)?[A-Z][a-z][A-Za-z'-]*)*", re.ASCII
)
"""Capitalized words in a row, with the connectives a name holds and a middle initial ("Thomas A. Edison")."""
_INITIAL = re.compile(r"[A-Z]\.")
_NOT_NAMES = frozenset(
    "I I'm Yes No Not The This That These Those There It Its In On At For From To With By As An A If When Where "
    "What Which Who Why How However Also And But Or So Then Therefore Thus Both Each Every All Some Any "
    "Section Article Chapter Page Table Figure Note Answer Question Passage".split()
)
_NAME_GAP = r"[\W_]+(?:(?:of|for|and|the|[a-z]\.)[\W_]+){0,2}"
"""What may stand between the words of a name where a text writes it: punctuation, spaces, its connectives and a
middle initial ("Thomas Edison" is found in "Thomas A. Edison")."""
_POSSESSIVE = re.compile(r"['’]s?$")
_SENTENCE_START = re.compile(r"(?:^|[.!?。！？:：\n]\s*|[-*•]\s+)$")


def identifiers_and_names(text: str, taken: list[tuple[int, int]]) -> list[tuple[Kind, str, str]]:
    """``(kind, value, as written)`` of each identifier and name of ``text`` outside the ``taken`` spans, which it
    extends: identifiers first (code spans in backticks, TeX commands, snake_case, camelCase, file names), then
    acronyms, then runs of capitalized words that are no sentence's first word alone."""
    facts: list[tuple[Kind, str, str]] = []
    for match in _CODE_SPAN.finditer(text):
        if not overlaps(match.span(), taken) and re.search("[A-Za-z]", match[1]):
            facts.append(("identifier", " ".join(match[1].split()), match.group()))
            taken.append(match.span())
    for match in _IDENTIFIER.finditer(text):
        if not overlaps(match.span(), taken):
            facts.append(("identifier", match.group(), match.group()))
            taken.append(match.span())
    for match in LEGEND_MARK.finditer(text):
        if match["mark"] and not overlaps(match.span(), taken):
            facts.append(("identifier", match["mark"], match["mark"]))
            taken.append(match.span())
    for match in _ACRONYM.finditer(text):
        if not overlaps(match.span(), taken) and not match.group().isdigit():
            facts.append(("name", match.group(), match.group()))
            taken.append(match.span())
    for match in _CAPITALIZED_RUN.finditer(text):
        if overlaps(match.span(), taken):
            continue
        words = [w for w in match.group().split() if w not in ("of", "for", "and") and not _INITIAL.fullmatch(w)]
        at_start = bool(_SENTENCE_START.search(text[: match.start()]))
        if at_start and len(words) == 1 or all(w in _NOT_NAMES for w in words):
            continue
        if at_start and words[0] in _NOT_NAMES:
            words = words[1:]
        name = " ".join(_POSSESSIVE.sub("", w) for w in words if w not in _NOT_NAMES)
        if name:
            facts.append(("name", name, match.group()))
    return facts


def designation_label(identifier: str) -> str:
    """The label of a letter designation ("division" of "Division R"), which its siblings share; "" for others."""
    match = LETTER_DESIGNATION.fullmatch(identifier) or JA_LETTER_DESIGNATION.fullmatch(identifier)
    return match[1].casefold() if match else ""


def phrase_found(value: str, haystack: str) -> bool:
    """Whether a name's words occur in ``haystack`` (casefolded) as the name: in order, with only punctuation or the
    connectives a name holds between them (of, for, and, the). "Secretary State" of "the Secretary of State" is not
    found in "the Secretary of the Treasury … Russian aggressor state", whose words it holds, far apart. A name is
    a whole word (a plural "s" aside): "\\kansuji" is not found in "\\kansujichar", nor "TEEC_OpenSession" in
    "TEEC_OpenSessionEx"; against Japanese text only ASCII letters and digits count ("OSSの" names OSS)."""
    words = [re.escape(word.casefold()) for word in value.split()]
    if not words:
        return False
    before = r"(?<![0-9a-z_])" if re.match(r"[0-9a-z_]", words[0]) else ""
    after = r"(?:e?s)?(?![0-9a-z_])" if re.search(r"[a-z_]$", words[-1]) else ""
    if words[-1][-1:].isdigit():
        after = r"(?!\d)"  # a number's letter suffix is read apart from it: "U.S.C. 609" of "(6 U.S.C. 609a)"
    if re.fullmatch(r"\\\\[a-z@]+", words[-1]):
        after = r"(?![a-z@])"  # a TeX control word ends at its last letter: "\kansuji1" names \kansuji
    if re.search(before + _NAME_GAP.join(words) + after, haystack):
        return True
    # "State Department" is "the Department of State", "Defense Department" "the Department of Defense"
    return (
        len(words) >= 2
        and re.search(rf"\b{words[-1]}\s+of\s+(?:the\s+)?{' '.join(words[:-1])}\b", haystack) is not None
    )


_ACRONYM_WITH_VERSION = re.compile(r"(?P<letters>[A-Z]{2,6})(?:v(?P<version>\d+(?:\.\d+)?))?")
_CONNECTIVES = frozenset({"of", "for", "and", "the", "&"})


def abbreviation_found(value: str, text: str) -> bool:
    """Whether ``text`` (as written, not casefolded) writes out the acronym ``value`` or abbreviates the name
    ``value``: "GPLv3" is "GNU General Public License version 3", "LF" is "Linux Foundation", and "Linux
    Foundation" is the "LF" of an attendee list. Initials are those of capitalised words, connectives (of, for,
    and, the) skipped; a version follows as "version 3", "v3" or "3"."""
    pattern = _abbreviation_pattern(value)
    return pattern is not None and pattern.search(text) is not None


@functools.lru_cache(maxsize=4096)
def _abbreviation_pattern(value: str) -> re.Pattern[str] | None:
    """What ``abbreviation_found`` looks for, built once per name (claim checks look a name up in every window)."""
    if found := _ACRONYM_WITH_VERSION.fullmatch(value):
        letters, version = found["letters"], found["version"]
        gap = r"(?:\s+(?:of|for|and|the|&))?\s+"
        words = gap.join(rf"{letter}[a-z]+" for letter in letters)
        after = rf"\s+(?:version\s+|v\.?\s?)?{re.escape(version)}(?![\d.])" if version else r"\b"
        return re.compile(rf"\b{words}{after}")
    named = [word for word in value.split() if word.casefold() not in _CONNECTIVES]
    if len(named) < 2 or not all(word[:1].isupper() for word in named):
        return None
    return re.compile(rf"(?<![A-Za-z0-9]){''.join(word[0] for word in named)}(?![A-Za-z0-9])")
