"""Focus sentences: which sentences of the sampled chunks a quiz item is about, picked for its level.

A focus is a whole declarative sentence of a quizzable size, verbatim in its chunk (the citation quotes it). Not
every sentence qualifies: a heading line glued to the sentence it introduces ("2.1アクセス" above a requirement) is
cut off; a sentence whose content is a list elsewhere ("以下の要件が満たされていること"), a table-of-contents entry
("Sec. 3111. Ten-year statute of limitations ..."), an all-capitals heading, a sentence cut where its chunk begins,
one with unbalanced brackets (cut at "U.S.C.") and one with TeX markup or control characters (``{``, ``$``, a
zero-width joiner from a PDF) are skipped. A sentence suits a level by its cues (a definition, a condition, an
exception or a limit) and by holding a fact a FALSE variant can change; at advanced level two neighbouring sentences
whose second continues the first (ただし, However, This...) form one focus.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import Any

from rag.answers.facts import facts_of
from rag.answers.faithfulness import content_tokens, is_question, normalize, split_sentences
from rag.answers.prompts import Language
from rag.quiz.validation import Focus, is_fragment

# what makes a sentence fit a level's question (lower-case; English cues padded to whole words)
LEVEL_CUES: dict[str, tuple[str, ...]] = {
    "beginner": (
        "とは",
        "という",
        "を指す",
        "を意味",
        "目的",
        "定義",
        " is a ",
        " are ",
        " means ",
        " refers to ",
        "defined as",
        "purpose",
    ),
    "intermediate": (
        "場合",
        "とき",
        "手順",
        "まず",
        "次に",
        "必要",
        "しなければ",
        "ください",
        "以内",
        " if ",
        " when ",
        " must ",
        " should ",
        " before ",
        " after ",
        " step",
        " then ",
        " required ",
        " within ",
    ),
    "advanced": (
        "ただし",
        "除",
        "例外",
        "限り",
        "以上",
        "以下",
        "未満",
        "まで",
        "最大",
        "禁止",
        "できない",
        "ません",
        " unless ",
        " except",
        " only ",
        " at least ",
        " at most ",
        " no more than ",
        " up to ",
        " limit",
        " not ",
        " prohibited ",
        " maximum ",
        " never ",
    ),
}

# a second sentence that opens like this continues the first: the pair states a relation
RELATION_OPENERS = re.compile(
    r"^(ただし|しかし|なお|また|このため|そのため|したがって|この場合|その場合|However|Therefore|Thus|In this case|"
    r"Otherwise|Unless|Except|If so|This|These|It )"
)
_SENTENCE_CHARS = {"ja": (15, 120), "en": (40, 240)}
# bullets, list numbers and letters, all-caps labels ("OBJECTIVE The purpose ...", "(1) IN GENERAL.—The ...")
_LEADING_NOISE = re.compile(
    r"^\s*(?:(?:[#>*・•⚫●■◆□○◎\-]+|\d+[.)．](?!\d)|\d+(?:\.\d+){2,}\.?(?=\s)|\d+\.\d+(?=\s+[A-Z])|[（(](?:\d+|[A-Za-z]{1,4})[)）]|"
    r"(?:[A-Z]{4,}:?\s+)+(?=[A-Z][a-z])|[A-Z][A-Z ,'-]{3,}\.?—)\s*)+"
)
# a sentence cut after an abbreviation ("... the Commander, U.S.", "50 U.S.C.")
_ABBREVIATION_END = re.compile(r"(?:\b(?:[A-Z]\.){2,}|\b(?:e\.g|i\.e|etc|No|Sec|Inc|Co|Mr|Ms|Dr|vs)\.)$")
# a sentence about the document itself ("本項目は…について定義されています", "This section describes ..."): what
# the document is about, not a fact in it, so no quiz item
_ABOUT_THE_DOCUMENT = re.compile(
    r"^(?:本|この|当)(?:項目|章|節|書|文書|資料|ガイド|ガイドライン|仕様書?)(?:は|では|で|に)"
    r"|^(?:This|The following|The present) (?:section|chapter|document|guide|item|part|appendix)\b",
    re.IGNORECASE,
)
# a sentence whose content is a list or text elsewhere ("組織において、以下の要件が満たされていること。", "The
# requirements are as follows:"): alone it states nothing a reader can judge true or false. 以下 after a quantity
# ("10文字以下の") is a limit, not a pointer: only one opening the sentence or after a particle points elsewhere.
_POINTS_ELSEWHERE = re.compile(
    r"(?:^|[、，,はがをにでもと])(?:以下|下記|上記)(?:の|に|のとおり|の通り)"
    r"|\b(?:the following|as follows|listed below|shown below|described below|the above)\b",
    re.IGNORECASE,
)
_HEADING_LINE_CHARS = 25
_TOC_ENTRY = re.compile(r"(?:\b(?:Sec|SEC|Section|SECTION|Article|Chapter)\.?|§)\s*\d+[A-Za-z]?\.\s*$")
_MARKUP = re.compile(r"[{}$^]|\\[\[\]()]|\\[A-Za-z@]+\{")
_PAIRS: tuple[tuple[str, str], ...] = (("(", ")"), ("（", "）"), ("[", "]"), ("「", "」"), ("『", "』"), ("“", "”"))
_CJK_GAP = re.compile(r"(?<=[\u3001\u3040-\u30ff\u3400-\u9fff])\s+(?=[\u3040-\u30ff\u3400-\u9fff])")


def focus_sentences(sample: Sequence[Any], level: str, language: Language) -> list[Focus]:
    """The sentences each sampled chunk offers ``level``'s question, best suited first (one focus a chunk).

    Args:
        sample: chunks (anything with ``text`` and ``chunk_id``), best suited first.
        level: beginner, intermediate or advanced.
        language: the document's language.

    Returns:
        One focus a chunk (a whole chunk, last, where no sentence qualifies), each sentence once.
    """
    scored: list[tuple[float, int, Focus]] = []
    for order, chunk in enumerate(sample):
        usable = []
        for raw in split_sentences(chunk.text):
            sentence = body_of(raw, chunk.text)
            if statement := usable_statement(sentence, language, chunk.text):
                usable.append((sentence, statement))
        best: tuple[float, Focus] | None = None
        for i, (sentence, statement) in enumerate(usable):
            option = (_suitability(statement, level), Focus(chunk, (sentence,)))
            if level == "advanced" and i + 1 < len(usable) and RELATION_OPENERS.match(usable[i + 1][1]):
                pair = f"{statement} {usable[i + 1][1]}"
                option = (_suitability(pair, level) + 2.0, Focus(chunk, (sentence, usable[i + 1][0])))
            if best is None or option[0] > best[0]:
                best = option
        if best is None:  # a table or a list: the model may still state one of its facts (never copied as is)
            best = (-10.0, Focus.whole(chunk))
        scored.append((best[0], order, best[1]))
    scored.sort(key=lambda item: (-item[0], item[1]))
    seen: set[str] = set()
    focuses: list[Focus] = []
    for _score, _order, focus in scored:  # chunks overlap: one sentence is one focus
        if (key := normalize(focus.text)) not in seen:
            seen.add(key)
            focuses.append(focus)
    return focuses


def body_of(sentence: str, text: str) -> str:
    """``sentence`` without the heading lines glued to its start (a verbatim part of ``text``).

    A heading is a short first line (``_HEADING_LINE_CHARS``, numbering aside) without punctuation that starts a
    line of ``text`` and has more lines after it: "2.1アクセス" above the requirement it names. A Japanese line
    wrapped mid-sentence is longer, or starts where the previous sentence ended.
    """
    while "\n" in sentence:
        start = text.find(sentence)
        head, rest = sentence.split("\n", 1)
        bare = _LEADING_NOISE.sub("", re.sub(r"^\s*\d+(?:\.\d+)*", "", head)).strip()
        at_line_start = start <= 0 or text[start - 1] == "\n"
        if not (at_line_start and len(bare) <= _HEADING_LINE_CHARS and not re.search(r"[、。，,．.:：]", bare)):
            break
        sentence = rest.strip()
    return sentence


def usable_statement(sentence: str, language: Language, text: str = "") -> str:
    """The sentence cleaned of bullets, labels and line wraps when it can be a quiz statement, else "".

    Args:
        sentence: a sentence of a chunk.
        language: the document's language (sets the size limits and the closing punctuation).
        text: the chunk's text, to recognise a table-of-contents entry by what precedes the sentence.
    """
    low, high = _SENTENCE_CHARS[language]
    statement = clean(sentence)
    fits = (
        low <= len(statement) <= high
        and not is_fragment(statement)
        and sentence.rstrip()[-1:] in ("。" if language == "ja" else ".")
        and "|" not in statement
        and not is_question(statement)
        and len(content_tokens(statement)) >= 4
        and not has_markup(sentence)
        and brackets_balanced(statement)
        and not _shouts(statement)
        and not _ABBREVIATION_END.search(statement)
        and not _ABOUT_THE_DOCUMENT.match(statement)
        and not _POINTS_ELSEWHERE.search(statement)
        and not (text and _is_toc_entry(sentence, text))
    )
    return statement if fits else ""


def clean(sentence: str) -> str:
    """The sentence as a statement: no leading bullet or label, whitespace folded, Japanese wraps joined."""
    return _CJK_GAP.sub("", normalize(_LEADING_NOISE.sub("", sentence)))


def has_markup(text: str) -> bool:
    """Whether ``text`` holds TeX markup (braces, ``$``, ``\\(``) or control and zero-width characters."""
    if _MARKUP.search(text):
        return True
    return any(unicodedata.category(ch) in ("Cc", "Cf", "Co") for ch in text if ch not in "\n\t\r")


def brackets_balanced(text: str) -> bool:
    """Whether every opening bracket or quotation mark is closed (a sentence cut at "U.S.C." is not)."""
    return all(text.count(a) == text.count(b) for a, b in _PAIRS)


def _shouts(statement: str) -> bool:
    """Whether most words are in capitals: a heading ("EXCEPTION RELATING TO IMPORTATION OF GOODS.")."""
    words = re.findall(r"[A-Za-z]{2,}", statement)
    return len(words) >= 3 and sum(w.isupper() for w in words) > len(words) / 2


def _is_toc_entry(sentence: str, text: str) -> bool:
    start = text.find(sentence)
    line_start = text.rfind("\n", 0, max(start, 0)) + 1
    return start > 0 and bool(_TOC_ENTRY.search(text[line_start:start]))


def _suitability(statement: str, level: str) -> float:
    padded = f" {statement.lower()} "
    cues = sum(1 for cue in LEVEL_CUES[level] if cue in padded)
    return 2.0 * min(cues, 2) + (1.5 if facts_of(statement) else 0.0)
