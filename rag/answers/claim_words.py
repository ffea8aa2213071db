"""What a claim's words must find in its evidence besides its facts: the words it takes from the question (what it is
about), the purpose it asks an amount for, and, across languages, one fact distinctive enough to tie it to a sentence
it shares no word with (or a name written in the other script beside another it states: ``names_together``), and a
fact in every part of it (``every_part_tied``). The Japanese words it adds to the question (its answer) are counted
in ``rag.answers.added_words``.

``rag.answers.claims`` asks these of the window a claim is checked against; each gives the reason a claim fails, or
"" when it holds.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence, Set

from rag.answers.added_words import word_count
from rag.answers.fact_matching import fact_found, significant_digits
from rag.answers.facts import Fact, facts_of, plain_text, words_besides
from rag.answers.faithfulness import (
    content_tokens,
    latin_part,
    quoted_phrases,
    script_runs,
    sentence_spans,
    token_words,
)
from rag.answers.loanwords import heard_in
from rag.answers.polarity import word_stem
from rag.answers.prompts import Language, script_language
from rag.ingest.chunking import document_title
from rag.records import Chunk
from rag.retrieval.named_sources import name_pieces

TOPIC_SHARE = 1 / 3
"""Share of the words a claim takes from the question that its evidence must hold at least: a sentence about case
changing does not support "\\MakeUppercase changes the page margins", however many other words they share. On the
recorded replies of the realdocs golden run (``bench/answers_replay.py``) the two claims shown as verified about
something no document says held 0/7 and 2/7 of them; correct claims held 3/9 (a question naming its document) and
more."""
_FAMILY = re.compile(r"[A-Za-z][A-Za-z.\s-]*?(?=[\s-]?(?:\d|[ivx]+\b))")
"""An identifier's family: the letters before its number ("cl" of cl-30, "L" of L3-01, "H.R." of H.R. 815)."""
TOPIC_MIN_TOKENS = 3
"""Below this many words taken from the question, a claim is too short to say what it is about."""
PROSE_MIN_TOKENS = 3
"""Words besides its facts a text must hold to count as written in a language (``in_prose``)."""
ASKED_MIN_TOKENS = 2
"""Words a claim must take from the clause a question asks in for ``asked_unsaid`` to judge it."""
_EN_ASKING = re.compile(
    r",\s+(?=(?:how|what|which|who|whom|whose|when|where|why|is|are|was|were|does|do|did|can|could|will|would|"
    r"should|shall|may|might|must|has|have|had)\b)",
    re.IGNORECASE,
)
"""Where an English question's asking clause starts after the setting it opens with ("Under H.R. 815, if …, how
long …")."""
_JA_SETTING_END = re.compile(
    r"(?:場合|とき|時|際|なら|ならば|たら|れば)(?:は|には|に|でも)?[、，,]|(?:のです|です|ます|ました|でした)が[、，,]|[。．]"
)
"""Where the setting a Japanese question opens with ends: a condition ("…を貸与する場合、…"), the background it
gives ("…禁止されているのですが、…"), a sentence before the one that asks ("当社は営利企業です。…")."""
_HOW_WORD = re.compile(r"\bhow\s+\w+", re.IGNORECASE)
""""how long", "how many": the words that ask, not what is asked about."""


def is_anchor(fact: Fact) -> bool:
    """Whether a fact is distinctive enough to tie a claim to a sentence in another language: a date, time, version
    or identifier, an amount with its unit, or a number of two digits or more ("32トラック" is "32 simultaneous
    tracks"). A bare single digit is not: "チェック項目は3つ" is not about "3 Open Source Content Review"."""
    if fact.kind != "number":
        return fact.kind in ("date", "time", "version", "identifier")
    return bool(fact.unit) or significant_digits(fact) >= 2


def has_sibling(fact: Fact, facts: Sequence[Fact]) -> bool:
    """Whether ``facts`` hold another identifier of ``fact``'s family (its letters before the first digit): in
    "“始め括弧類”の cl-1 から“縦中横中の文字”の cl-30 まで" each class code is bound to its own name, so cl-30 alone
    does not tie "cl-30 is the opening brackets" to the sentence across languages."""
    if fact.kind != "identifier" or not (family := _FAMILY.match(fact.value)):
        return False
    return any(
        f.kind == "identifier" and f.value != fact.value and (m := _FAMILY.match(f.value)) and m[0] == family[0]
        for f in facts
    )


def in_prose(reading: str, facts: Sequence[Fact]) -> bool:
    """Whether a text says something in words besides its facts: a line of code (")\\inhibitglue\\relax(") is in
    no language, so it cannot stand for an English page under a Japanese claim."""
    return len(words_besides(reading, facts)) >= PROSE_MIN_TOKENS


def said_of_names(claim: str, stated: Sequence[Fact], reading: str, named: set[str]) -> list[str]:
    """The words a claim says of its names when the evidence only names them (a list entry, a heading: no word
    besides its names and codes, the file name's words aside); [] otherwise.

    Asked who chaired a meeting whose minutes name no chair, the model answered "Shane Coughlan chaired the
    meeting", and the attendee list's line "Shane Coughlan – LF" held its name and half its words: verified. A line
    that only names someone says nothing of what they did."""
    found = facts_of(reading)
    if reading.lstrip().startswith("|") or not any(f.kind == "name" for f in found):
        return []  # a table row says what its header's columns say of the name in its first cell
    if words_besides(reading, found) - named:
        return []
    said = words_besides(claim, stated) - named - content_tokens(" ".join(f.text for f in found))
    if POSTAL_ADDRESS.search(reading):
        said -= _WHERE_WORDS  # a letterhead's name over its street address says where it is
    return sorted(said)


POSTAL_ADDRESS = re.compile(
    r"\b\d{1,6}\s+(?:[A-Z][a-z]+\s+){1,3}(?:Street|St\.|Avenue|Ave\.|Road|Rd\.|Boulevard|Blvd\.|Drive|Lane|Way)"
    r"|\b[A-Z]{2}\s\d{5}(?:-\d{4})?\b|〒\s?\d{3}-\d{4}"
)
"""A street address ("18720 Oxnard Street"), a US state and ZIP code ("CA 91356"), a Japanese postcode (〒100-0013)."""
_WHERE_WORDS = content_tokens("located location based address 所在地 住所 所在")
"""What a claim says of a name a street address follows: where it is, and nothing else."""


def readable_in(context: str, language: Language, named: Set[str]) -> str:
    """The words of ``context`` (the question a short claim leans on) that a text in ``language`` could hold: all of
    them when the question is in that language; in the other, those it writes in that language's script, or ""
    when they are only the words of the file's name (``named``).

    Asked in Japanese what H.R. 815 gives
    "イスラエル政府がアイアンドームとダビデスリング（David's Sling）を調達するため", the bare reply "$4,000,000,000"
    leans on the question, and an English page can hold none of its Japanese words: counted, they left it 29% of its
    words in the proviso that grants it. "David's Sling" it can hold, and does."""
    if script_language(context) == language:
        return context
    written = " ".join(script_runs(context)) if language == "ja" else latin_part(context)
    return written if content_tokens(written) - named else ""


def name_tokens(source: str, title: str = "", said: str = "") -> set[str]:
    """The content tokens of a file's name ("ptex", "manual" of ``ja_ptex_manual.pdf``), of the document's ``title``
    when given (``title_named``), and of the katakana words in ``said`` that render a word of the file's name: a
    claim about ``ja_oss_compliance_pamphlet.docx`` that calls it 「OSSコンプライアンスのパンフレット」 names the
    document by those words, and they are no more what it says than "pamphlet" would be."""
    pieces = name_pieces(source) if source else []
    named = content_tokens(" ".join(pieces))
    if said and pieces:
        rendered = [word for word in heard_in(said, " ".join(pieces)) if not word.isascii()]
        named |= content_tokens(" ".join(rendered))
    return named | content_tokens(title) if title else named


MIN_TITLE_CHARS = 4
"""Word characters a title needs to name its document in a question ("H.R. 815" has 5; "FAQ" names nothing)."""


def title_named(chunk: Chunk, question: str) -> str:
    """The title of ``chunk``'s document when ``question`` names the document by it, written whole (widths, brackets,
    punctuation and spaces aside: "W3Cの「簡便な行組版ルール（案）」では…" names "簡便な行組版ルール(案)"); ""
    otherwise.

    Like the words of a file's name, the title's words then say which document the question is about, not what of
    it it asks: a claim restating them ("「簡便な行組版ルール（案）」では…最終的に12の文字クラスにしています") rests
    on the sentence that gives the number, which never repeats the title."""
    title = document_title(chunk)
    key = _bare(title)
    return title if len(key) >= MIN_TITLE_CHARS and key in _bare(question) else ""


def about_elsewhere(
    claim: str, topic: str, reading: str, source: str = "", premised: Sequence[Fact] = (), title: str = ""
) -> str:
    """Why the evidence is not about what the claim answers ("" when it is): fewer than ``TOPIC_SHARE`` of the
    words the claim takes from the question (``topic``; single CJK characters, the words of the ``source`` file's
    name and those of the names it restates as the asker's premises aside) are in it.

    A premise names what the whole passage set is about, as a file name does: "the ban on ByteDance/TikTok apps
    starts 270 days after enactment" rests on the section that defines the banned applications by a subsection
    number, and the passage naming ByteDance and TikTok is another."""
    named = _named_words(source, premised, title, topic)
    asked = {word for word in token_words(content_tokens(claim) & content_tokens(topic)) if len(word) > 1} - named
    if len(asked) < TOPIC_MIN_TOKENS:
        return ""
    unnamed = _names_not_held(topic, claim, reading)
    held = token_words(content_tokens(reading)) - {word for words in unnamed.values() for word in words}
    # an English word is held in another of its forms: "print" in "printed", "option" in "optional"
    absent = {word for word in asked - held if not (word.isascii() and _held_as_form(word, held))}
    if len(asked) - len(absent) >= TOPIC_SHARE * len(asked) - 1e-9:
        return ""
    if names := [name for name, words in unnamed.items() if words & asked]:
        return "the cited text does not name " + ", ".join(f"「{name}」" for name in names)
    return "the cited text is not about " + ", ".join(sorted(absent)[:4])


FORM_SUFFIX_CHARS = 4
"""Letters a word's other form may add after its stem ("print" → "printed", "option" → "optional"); a longer tail
makes another word ("work" → "workgroup")."""


def _held_as_form(word: str, held: set[str]) -> bool:
    """Whether an English ``word`` is among the ``held`` words in another of its forms: the two share its stem
    (``polarity.word_stem``) and the other adds at most ``FORM_SUFFIX_CHARS`` letters to it."""
    stem = word_stem(word)
    return len(word) >= 4 and any(
        other.isascii() and other.startswith(stem) and len(other) - len(stem) <= FORM_SUFFIX_CHARS for other in held
    )


QUOTED_NAME_MIN_WORDS = 3
"""Words from which a quoted phrase of the question is a name, held by a text only whole."""


def _names_not_held(topic: str, claim: str, reading: str) -> dict[str, set[str]]:
    """The words of the question's quoted names (「労働基準法における『労働者』に関する研究会」, of at least
    ``QUOTED_NAME_MIN_WORDS`` words) that the claim restates and ``reading`` does not hold whole: there its words
    speak of other things. Asked when that study group first met, "…研究会は、昭和60年1月1日から令和6年12月31日までの
    期間に開催されました" was verified on the period in which the court cases it collects were decided, a sentence
    that names the Labour Standards Act and workers and no study group."""
    whole = _bare(reading)
    claimed = content_tokens(claim)
    unnamed: dict[str, set[str]] = {}
    for name in quoted_phrases(topic):
        tokens = content_tokens(name)
        if len({w for w in token_words(tokens) if len(w) > 1}) < QUOTED_NAME_MIN_WORDS or not tokens <= claimed:
            continue
        if _bare(name) not in whole:
            unnamed[name] = token_words(tokens)
    return unnamed


def _bare(text: str) -> str:
    """``text`` as its word characters alone, so a name matches across brackets, spaces and widths."""
    return "".join(ch for ch in plain_text(text).casefold() if ch.isalnum())


def _named_words(source: str, premised: Sequence[Fact], title: str, topic: str) -> set[str]:
    """The words that say which document and which premises a question is about, not what of them it asks: those of
    the ``source`` file's name (as the question ``topic`` may write them in katakana), of the ``title`` the question
    names it by, and of the names the claim restates as the asker's ``premised`` facts."""
    return token_words(name_tokens(source, title, topic) | content_tokens(" ".join(f.text for f in premised)))


def asked_clause(question: str) -> str:
    """The clause a question asks in, after the setting it opens with ("how long does someone have to file a
    constitutional challenge to it?" of "Under H.R. 815, if the government takes an action to seize Russian sovereign
    assets, how long …"); "" when it opens with what it asks."""
    if script_language(question) == "ja":
        settings = [m for m in _JA_SETTING_END.finditer(question) if question[m.end() :].strip()]
        return question[settings[-1].end() :] if settings else ""
    found = _EN_ASKING.search(question)
    return _HOW_WORD.sub(" ", question[found.end() :]) if found else ""


def asked_unsaid(
    worded: str, topic: str, reading: str, source: str = "", premised: Sequence[Fact] = (), title: str = ""
) -> str:
    """The clause a claim's question asks in, when the claim takes words from it and the evidence holds none of them
    ("" when it holds one, or the question opens with what it asks).

    A question's setting is shared by every passage about it; what it asks is what ties an answer to one of them.
    Asked how long one has to file a constitutional challenge to the seizure of Russian sovereign assets, "someone
    has 30 days to file…" was verified on "Not later than 30 days before the release … of a Russian sovereign asset
    …, the President shall submit … a notification": the setting's words (action, Russian, sovereign, asset) made
    the topic share (``about_elsewhere``), and nothing in it speaks of filing or a challenge."""
    clause = asked_clause(topic) if topic else ""
    if not clause:
        return ""
    named = _named_words(source, premised, title, topic)
    asked = {word for word in token_words(content_tokens(worded) & content_tokens(clause)) if len(word) > 1} - named
    if len(asked) < ASKED_MIN_TOKENS or asked & token_words(content_tokens(reading)):
        return ""
    return " ".join(clause.split()).rstrip("?？")


_PURPOSE = re.compile(
    r"\b(?:how (?:much|many|long)|what (?:[\w-]+\s+){0,2}?(?:amount|sum|share|percentage)|what (?:is|was|are|were) the "
    r"(?:maximum|minimum|limit|amount|size|timeout|cap|penalty|fine|fee|budget))\b[^?]*?\bfor\s+(?P<purpose>[^?,;]+)",
    re.IGNORECASE,
)
"""An English question asking for an amount given for something: "How much does H.R. 815 appropriate for wildfire
recovery?" (what it is for: "wildfire recovery"), "What dollar amount of civil penalty … does H.R. 815 set for a
data broker that sells …?" ("a data broker that sells …")."""
PURPOSE_WHOLE_WORDS = 2
"""A purpose named in this many words or fewer must be in the evidence whole; a longer one, at least half of it."""
_PURPOSE_HEAD_END = re.compile(
    r"\b(?:that|which|who|whose|where|when|if|to|in|under|from|by|of|with|on|at|per)\b|['’]s\b", re.IGNORECASE
)
"""Where the name of what an amount is for ends and what is said of it begins ("a data broker | that sells …")."""


def purpose_unsaid(
    claim: str, topic: str, reading: str, source: str = "", premised: Sequence[Fact] = (), title: str = ""
) -> str:
    """What a question asks an amount for, when the claim gives a number and the evidence does not name that purpose
    ("" otherwise).

    Asked how much H.R. 815 appropriates for wildfire recovery (it appropriates nothing for it), the model answered
    "$10,000,000 for the Federal Emergency Management Agency—Operations and Support" on the line that says so: every
    fact held, and the answer was about another appropriation. The amount must be the one the evidence gives for
    what the question asks it for: every word of the purpose's name (up to what the question says of it,
    ``_PURPOSE_HEAD_END``), besides the document's own name, must be in the evidence (half of a longer one,
    ``PURPOSE_WHOLE_WORDS``). Asked the civil penalty for a data broker that sells Americans' sensitive data to a
    foreign adversary (the bill sets none), "$500 multiplied by the number of users…" was verified on the app-store
    penalty, "An entity that violates subsection (b) shall be subject to pay a civil penalty…", whose "DATA AND
    INFORMATION VIOLATIONS" held one word of the purpose."""
    found = _PURPOSE.search(topic)
    if found is None or not any(f.kind in ("number", "date") for f in facts_of(claim)):
        return ""
    named = _named_words(source, premised, title, topic)
    head = _PURPOSE_HEAD_END.split(found["purpose"], maxsplit=1)[0]
    purpose = {word for word in token_words(content_tokens(head)) if len(word) > 1} - named
    held = purpose & token_words(content_tokens(reading))
    # a name of one or two words is named whole ("data broker" is not "data"); a longer one is paraphrased in part
    # ("administering nonprofit security grants" for "administration of nonprofit security grants")
    if not purpose or len(held) >= (len(purpose) if len(purpose) <= PURPOSE_WHOLE_WORDS else len(purpose) / 2):
        return ""
    return " ".join(found["purpose"].split())


UNTIED_PART_WORDS = 2
"""Words a part of a claim (between commas) may say without a fact of its own and still be checked across languages:
"Yes", "However", "In short" say nothing a check would miss."""
_CLAUSE = re.compile(
    r"(?:,(?!\d{3})|[;、，；])\s*|\s+(?=(?:because|since|so that|although|though|whereas|but)\s)", re.IGNORECASE
)
"""Where a part of a claim ends for ``every_part_tied``: a comma (not inside 1,200), a semicolon, 、 or ，, and before
a reason or a contrast ("…drawn to Europe | because it was a place where she could meet friends and family")."""


@functools.lru_cache(maxsize=1024)
def every_part_tied(claim: str) -> bool:
    """Whether every part of ``claim`` between its commas states a fact, or says too little to need one: across
    languages a claim's facts carry the check, and a part holding none says what no check reads ("Persona AR, who is
    good at sports, has kept up dancing for 11 years" against "ダンスを11年続けています")."""
    return all(facts_of(part) or word_count(part) < UNTIED_PART_WORDS for part in _CLAUSE.split(claim))


def names_together(stated: Sequence[Fact], names_said: str, reading: str) -> bool:
    """Whether one line or sentence of ``reading`` writes a name of ``names_said`` in the other script (Italy,
    イタリア) beside another name ``stated``, when the claim states another: "AA: 私はイタリアとかに行ってました"
    ties "AA names Italy"; "場所: トヨタ自動車" is not where Hiroshi Nozue is from, and in "AB: …どこに行かれたん
    ですか?\nAA: 私はイタリアとかに…" AB is not the one who went to Italy."""
    for start, end in sentence_spans(reading):
        for line in reading[start:end].splitlines():
            heard = heard_in(names_said, line)
            found = plain_text("\n".join([line, *heard]))
            others = [f for f in stated if f.kind == "name" and f.text not in heard]
            if heard and (not others or any(fact_found(f, facts_of(line), found) for f in others)):
                return True
    return False
