"""The asker's premises: facts a question states that the documents state too (or that name the document asked
about), which an answer may restate without its cited sentence holding them. ``claims.check_claim`` takes them as
``given``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import PurePosixPath

from rag.answers.fact_matching import fact_found
from rag.answers.facts import Fact, facts_of, plain_text
from rag.answers.faithfulness import is_yes_no_question
from rag.answers.prompts import detect_language, script_language
from rag.ingest.chunking import document_title
from rag.records import Chunk
from rag.retrieval.named_sources import name_pieces


def premises(
    question: str, texts: Sequence[str], sources: Sequence[str] = (), *, denial: bool = False
) -> tuple[Fact, ...]:
    """Facts the question states that the documents state too: the asker's premises, not the answer's claims.

    "OpenChain仕様2.0の認証は何か月有効？" answered "仕様2.0の認証は18か月有効です [1]" restates "2.0" from the
    question; the passage on duration never repeats it, yet the model invented nothing. A premise counts only when
    one of ``texts`` (the passages the model read) holds it as well, so a question's wrong number ("is the limit 10
    seconds?") confirmed by the answer is still caught. An identifier, name or number that names a document the
    passages come from is a premise too: "H.R. 815" asked about the passages of ``bill_hr815.pdf`` (letters and
    digits of its file name in ``sources``), whose sections never repeat the bill's number; so is a shorter one
    that is a whole word of the name ("W3C" of ``w3c_jlreq_line_composition.html``). Asked in one language of
    passages all in the other, the question's Latin-script names are premises: they are its framing ("the W3C
    draft of simplified Japanese line composition rules"), which the passages cannot repeat.

    A question asking for a yes or a no ("Can a command defined with \\NewExpandableDocumentCommand take a v-type
    argument?") is about its identifiers and names: the answer's "yes" holds only where the evidence speaks of them,
    so there they are premises only when they name a document (mTower of ``mtower_description.md``). Otherwise a
    description of v-type arguments in general verified "Yes, it can".

    ``denial``: the premises for finding the answer's opposite, where a rule the passages state for a whole class
    denies a yes about one member the passages name: "Nothing in this division may be construed … to authorize the
    Attorney General to pursue enforcement … against an individual user of a foreign adversary controlled
    application" says no to "Can the Attorney General go after individual TikTok users?" (TikTok is one such
    application, the passages say). There a yes/no question's identifiers and names of several words are premises
    too; ``rag.answers.verification`` still refuses a denial whose sentence names another identifier.
    """
    read = [(facts_of(text), plain_text(text)) for text in texts]
    names = [PurePosixPath(source).name.casefold() for source in sources]
    pieces = {piece.casefold() for source in sources for piece in name_pieces(source)}
    yes_no = is_yes_no_question(question)
    # asked in English of Japanese passages (or the reverse), the question's Latin-script names are its framing:
    # "the W3C draft of simplified Japanese line composition rules" is not something a Japanese page repeats
    across = bool(texts) and all(script_language(text) != detect_language(question) for text in texts)

    def subject(fact: Fact) -> bool:
        if not yes_no or fact.kind not in ("identifier", "name"):
            return False
        return not denial or (fact.kind == "name" and " " not in fact.value)  # one word: no siblings to tell apart

    return tuple(
        fact
        for fact in facts_of(question)
        if (not subject(fact) and any(fact_found(fact, facts, plain) for facts, plain in read))
        or _names_a_source(fact, names)
        or (fact.kind in ("identifier", "name") and _letters_and_digits(fact.value) in pieces)
        or (across and fact.kind == "name" and not subject(fact))
    )


_FORMAT_NAMES = {
    "excel": ("xlsx", "xlsm", "xls"), "word": ("docx", "doc"), "powerpoint": ("pptx", "ppt"), "pdf": ("pdf",),
    "csv": ("csv",), "html": ("html", "htm"), "markdown": ("md",), "json": ("json", "jsonl"),
}  # fmt: skip
"""A file format a question names a document by ("the Excel that sorts each company's training"), by extension."""


def _names_a_source(fact: Fact, names: Sequence[str]) -> bool:
    """Whether an identifier or a name (4 letters and digits or more: "hr815", "MHLW"), or a number written with 3
    digits or more ("dialogue 00004" of ``chat_00004.json``), is part of one of the file ``names``; or the name of a
    format one of the files is in ("Excel" of ``case_analysis.xlsx``: no sheet says it is a spreadsheet)."""
    if fact.kind in ("identifier", "name") and (extensions := _FORMAT_NAMES.get(fact.value.casefold())):
        return any(name.endswith(extensions) for name in names)
    if fact.kind == "number":
        # a number of the name's own, between separators: 2024 of ``bill_hr815_2024.pdf``, not of "hr8152024"
        digits = re.sub(r"\D", "", fact.text)
        return len(digits) >= 3 and any(re.search(rf"(?<!\d){digits}(?!\d)", name) for name in names)
    key = _letters_and_digits(fact.value)
    return (
        fact.kind in ("identifier", "name")
        and len(key) >= 4
        and any(key in _letters_and_digits(name) for name in names)
    )


def _letters_and_digits(text: str) -> str:
    return re.sub(r"[^0-9a-z]", "", plain_text(text).casefold())


_CODE = re.compile(r"^\\|_|[A-Za-z]\d*[-.]\d")
"""An identifier written as code: a TeX command (``\\expandableinput``), a name with an underscore (``TEE_Malloc``),
a rule or clause code (``L3-01``). A product or brand name in camel case (mTower, TikTok) frames a question about its
document instead, and its passages seldom repeat it."""


def written_as_code(identifier: str) -> bool:
    """Whether an identifier is written as code (``_CODE``): what a question asks about, not the product it frames the
    question with."""
    return _CODE.search(identifier) is not None


def premises_for(chunk: Chunk, given: Sequence[Fact], question: str) -> tuple[Fact, ...]:
    """The premises a claim may rest on in ``chunk``: a name of several words the question gives (the act, chapter
    or part it asks about) or an identifier written as code (the command, function or rule it asks about,
    ``_CODE``) only when the chunk holds it, in its text, its section heading or its document's title, or names its
    file by it; every other premise as it is. A yes/no question's identifiers are left as they are (``premises``:
    they are premises only of a denial).

    Such a name says where in a document the question asks, and such an identifier what it asks about. Asked the
    maximum civil penalty for a data broker under H.R. 815's "Protecting Americans' Data from Foreign Adversaries
    Act" (the bill's Division I, which sets none), the model gave "$500 multiplied by the number of users…" from the
    penalties of Division H, restating the act's name, which the passage opening Division I holds: verified, and
    wrong. Asked in which release ``\\expandableinput`` was added (the guide gives no date), "\\expandableinput was
    added to the kernel in 1994" was verified on "LaTeX2ε was released in 1994…", a page that never names the
    command. A question in one language about a chunk in the other keeps its names as framing (``premises``)."""
    names = [PurePosixPath(chunk.source).name.casefold()]
    asks_about_code = not is_yes_no_question(question)  # a yes/no question's identifiers are premises only of a denial
    scoping = [
        f
        for f in given
        if (
            (f.kind == "name" and " " in f.value)
            or (asks_about_code and f.kind == "identifier" and written_as_code(f.value))
        )
        and not _names_a_source(f, names)
    ]
    if not scoping or script_language(chunk.text) != detect_language(question):
        return tuple(given)  # most questions give no such name: the chunk is not read for one
    held = [(facts_of(text), plain_text(text)) for text in (chunk.text, chunk.section, document_title(chunk)) if text]
    return tuple(
        fact for fact in given if fact not in scoping or any(fact_found(fact, facts, plain) for facts, plain in held)
    )
