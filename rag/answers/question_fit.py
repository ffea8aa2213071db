"""How an answer's sentence stands to the question it answers: whether it states anything, restates the question
(and so leads into the answer or answers nothing), needs the question's words to be read, or says the question's
verb or katakana terms without its evidence doing so. ``rag.answers.verification`` asks these of every sentence.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from rag.answers.added_words import word_count
from rag.answers.citations import Passage
from rag.answers.claim_words import asked_clause, name_tokens, title_named
from rag.answers.claims import ClaimCheck
from rag.answers.fact_matching import same_fact
from rag.answers.facts import facts_of, plain_text, words_besides
from rag.answers.faithfulness import (
    asserts_nothing,
    content_tokens,
    is_yes_no_question,
    marks_a_sentence,
    says_unknown,
    support,
    token_words,
)
from rag.answers.loanwords import heard_in
from rag.answers.polarity import predicate_words, word_stem
from rag.answers.prompts import detect_language, script_language
from rag.answers.replies import GENERIC_PREDICATES, asked_verb, says_word, stance
from rag.retrieval.named_sources import name_pieces

SHORT_CLAIM_TOKENS = 3
"""A claim with fewer content words ("1954年です") is read together with the question for its wording."""

RESTATED_SHARE = 0.6
"""Share of its words a claim takes from a what/which question for it to count as a restatement of the question."""

RESTATES_ONLY_REASON = "it restates the question without answering it"

_KANJI = re.compile("[\u3400-\u9fff々]")
_KATAKANA_WORD = re.compile(r"[\u30a1-\u30fa\u30fc]{2,}")


def verb_unsaid(claim: str, question: str, checks: Sequence[ClaimCheck], *, moved: bool = False) -> str:
    """The verb the question asks about, when the claim says it and none of its evidence does ("" when it holds).

    Japanese yes/no questions: "デュアルライセンスのOSSは、常に両方のライセンスを守らなければなりません" was verified
    by "…両方のライセンス条件が適用される旨を記載していることもあります": the evidence speaks of both licences, not of
    having to keep (守) both. The rule ``check_reply`` applies to a bare yes or no, for a claim that restates.

    Japanese questions that ask of what someone did ("岩波書店がぶら下げ組を最初に採用したのは何年ですか",
    ``cleft_verb``): "岩波書店がぶら下げ組を最初に採用したのは1976年の第22刷です" was verified by "橋本進吉著"国語法
    研究"(岩波書店,1947年,参照したものは1976年の第22刷)", which holds the publisher, the year and 最初 (of the term
    文節 that 橋本進吉 first used), and adopts nothing.

    English questions that put a verb after their subject ("Can the President extend…"), for a claim ``moved`` to a
    passage the model did not cite: "The President can extend the date the TikTok app ban applies by 180 days" was
    moved to a clause that imposes sanctions 180 days after enactment; it shares the president, the date and the days,
    and extends nothing. A claim on the passage the model cited is not held to the question's verb: English
    paraphrases its verbs ("uses" for "utilizes", "raises an error" for "issues an error"); nor is one whose evidence
    is in another language, which cannot say an English verb; nor one that names what the question does not
    (``_names_anew``): the name ties it to its passage ("targets Cortex-M23" on "Cortex-M23 is the only supported
    type"), and a light verb (``_LIGHT_VERBS``) says nothing a passage must repeat.
    """
    said: Callable[[str, str], bool]
    if detect_language(question) == "en":
        verb = _english_asked_verb(question) if moved and not _names_anew(claim, question) else ""
        said = _says_english_word
        # evidence in Japanese ("日時: 2018 年6 月13 日13:30-17:00") says no English verb, yet answers "finish"
        checks = [check for check in checks if detect_language(check.evidence) == "en"]
    elif is_yes_no_question(question):
        verb, said = asked_verb(question), says_word
        # an English row ("| TEEC_PARAM_TYPES | Yes | Not tested |") cannot say 「テスト」 as the question writes it
        checks = [c for c in checks if script_language(c.evidence) == "ja"]
    else:
        verb, said = cleft_verb(question), says_word
        # an English page cannot say a Japanese verb: across languages facts and meaning tie a claim; a field
        # ("場所: トヨタ自動車 名古屋オフィス") names by its label what was done there
        checks = [c for c in checks if script_language(c.evidence) == "ja" and not _is_field(c.evidence)]
    if not verb or not said(claim, verb) or not checks:
        return ""
    return "" if any(said(check.evidence, verb) for check in checks) else verb


def _names_anew(claim: str, question: str) -> bool:
    """Whether ``claim`` names an identifier or a name its question does not: a claim moved to the passage holding
    it is tied there by what it names ("The mTower targets Cortex-M23" on "As of now, Cortex-M23 is the only
    supported type"), not by a figure that recurs across passages (the 180 days of ``verb_unsaid``)."""
    asked = facts_of(question)
    return any(f.kind in ("identifier", "name") and not any(same_fact(f, g) for g in asked) for f in facts_of(claim))


_FIELD = re.compile(r"\s*[^\s:：]{1,12}\s*[:：]")
"""A line that gives a value under its label ("日時: 2018 年6 月13 日", "氏名:渡邊 歩")."""


def _is_field(text: str) -> bool:
    """Whether ``text`` gives values under labels and says no sentence: not a speaker's line in a chat ("AB:
    夫がイギリス駐在してたので、会いに行きました。")."""
    lines = [line for line in text.splitlines() if line.strip()]
    return any(_FIELD.match(line) for line in lines) and not any(marks_a_sentence(line) for line in lines)


_JA_CLEFT = re.compile(r"^(.+?)(?:の|ん)(?:は|が)\s*(?:何|なん|いつ|誰|だれ|どこ|どちら|どの|どれ|いく[つら]|幾)")
"""A Japanese question asking of what someone did: "…を最初に採用したのは何年", "…に出席したのは誰"."""
_COMPOUND_VERB = re.compile(r"[\u3400-\u9fff々]{2,}|[\u30a1-\u30fa\u30fc]{2,}")
"""A verb written as a kanji compound or a katakana word (採用, 開催, 署名; インストール): what is said of it keeps
it when it is said as a noun ("開催日", "署名者"). A verb of one kanji does not ("書いた" of "著者: …")."""


def cleft_verb(question: str) -> str:
    """What a Japanese question asks of its subject when it asks who, when, where or how many did something
    ("…採用したのは何年ですか" asks of 採用): the last word of the clause before のは, when written as a kanji
    compound or in katakana; "" otherwise, and when that word says nothing by itself ("…に必要なのは何ですか")."""
    found = _JA_CLEFT.search(plain_text(question))
    if not found:
        return ""
    words = predicate_words(found.group(1), 1)
    if not words or content_tokens(words[0]) <= GENERIC_PREDICATES:
        return ""
    return words[0] if _COMPOUND_VERB.fullmatch(words[0]) else ""


_EN_ASKED_VERB = re.compile(
    r"\b(?i:can|could|may|might|must|will|would|shall|should|does|do|did)(?:n't|\s+not)?\s+"
    r"(?:(?:the|a|an|this|that|its|their)\s+)?(?:[A-Z\\][\w\\.-]*(?:\s+[A-Z][\w-]*)*|[a-z]+[A-Z][\w.-]*"
    r"|I|you|we|they|it|he|she)(?:\s+[a-z]+\s+of\s+(?:the\s+)?[A-Za-z][\w.-]*)?\s+([a-z]{3,})\b"
)
"""An auxiliary, a subject named in one go ("the President", "the Attorney General", "mTower", "I", "the Normal
World part of mTower") and the verb asked about."""
_NOT_VERBS = frozenset("also still ever really actually only always never just even already first".split())
_LIGHT_VERBS = frozenset("use have get do make take need hold contain include come go give put keep run".split())
"""Verbs that say little beyond their object, which the evidence says in its own words as often as in theirs: "What
processor does the LinnSequencer use inside?" is answered by "Utilizes ultra high-speed, 8 MHz 80186 16 bit computer
internally", "What does the kit include?" by "Contents: …"; their absence does not show that the evidence speaks of
something else."""


_NOT_BARE_VERB = re.compile(r"(?:ing|ness|ity|[^s]s)$")
"""Endings a verb after an auxiliary does not have: in "did the OpenChain Japan WG meeting … finish", "meeting" is
still the subject."""


def _english_asked_verb(question: str) -> str:
    found = _EN_ASKED_VERB.search(question)
    verb = found.group(1) if found else ""
    if verb in _NOT_VERBS or verb in _LIGHT_VERBS or (len(verb) > 5 and _NOT_BARE_VERB.search(verb)):
        return ""
    return verb


def _says_english_word(text: str, verb: str) -> bool:
    """Whether ``text`` holds ``verb`` in some form ("extend" in "extension", "implement" in "implemented")."""
    stem = word_stem(verb)  # stop words too: unlike ``holds_words``, over every word of the text
    return any(word.startswith(stem) for word in re.findall(r"[a-z]+", plain_text(text).casefold()))


_PLACEHOLDER = re.compile(r"⟨[^⟩\n]*⟩")
"""A syntax line's placeholder ("\\listfiles [⟨options⟩]"): it stands for a value and names none. (Japanese 〈…〉
quotes a term, which names one.)"""


def adds_nothing(claim: str, question: str) -> bool:
    """Whether a claim holds no fact and no word the question does not, placeholders aside: a what-question handed
    back. Asked which option of \\listfiles adds MD5 hashes, "\\listfiles [⟨options⟩]" copied from the guide was
    verified on the sentence listing them."""
    if is_yes_no_question(question):
        return False
    claim = _PLACEHOLDER.sub(" ", claim)
    asked = content_tokens(question)
    return adds_no_fact(claim, question) and all(_one_of(word, asked) for word in content_tokens(claim))


def _one_of(word: str, asked: set[str]) -> bool:
    """Whether ``word`` is one of the ``asked`` words or a form of one: "persona AH studies as a student" hands back
    "What subject does persona AH study as a student?"."""
    if word in asked:
        return True
    stem = word_stem(word)
    return (
        word.isascii()
        and word.isalpha()
        and any(
            other.isascii() and (word_stem(other).startswith(stem) or stem.startswith(word_stem(other)))
            for other in asked
        )
    )


def restates(claim: str, question: str) -> bool:
    """Whether a claim only restates a question asking what or which: no fact the question lacks, and at least
    ``RESTATED_SHARE`` of its words the question's. "The GP TEE Client API functions listed in the table are
    implemented in mTower's Normal World implementation." leads into the answer; the sentence naming the missing
    functions is the answer's point, and the answer stands or falls with it."""
    if is_yes_no_question(question):
        return False  # "mTower implements TEE_Panic" restating "Does mTower implement TEE_Panic?" is the answer
    claim = _PLACEHOLDER.sub(" ", claim)
    return adds_no_fact(claim, question) and support(claim, question) >= RESTATED_SHARE


def adds_no_fact(claim: str, question: str) -> bool:
    """Whether every fact of ``claim`` (number, date, name, identifier) is one the question gives."""
    asked = facts_of(question)
    return all(any(same_fact(fact, given) for given in asked) for fact in facts_of(claim))


ASKED_WORDS_MIN = 2
"""Words of what a question asks (``asked_untouched``) below which an answer may well say it in other words."""
NOT_ASKED_REASON = "it does not speak of what the question asks ({})"


def asked_untouched(claim: str, question: str, sources: Sequence[str]) -> str:
    """The words of what ``question`` asks, when ``claim``, the answer's point, takes none of them ("" otherwise).

    What a yes/no question asks is its asking clause (``claim_words.asked_clause``: after the setting it opens with,
    "…禁止されているのですが、社内だけで使うのであれば問題ないですか"); what another question asks is all of it,
    whose predicate an answer giving a value may well paraphrase ("how long does someone have to file a
    constitutional challenge to it?": "a claim must be brought not later than 60 days after the action"). Both less
    their facts other than names, the words of the ``sources``' file names, generic predicates (問題, 必要, できる)
    and single letters and kana (a single kanji is a verb: 勧 of "何を勧めていますか"). A claim of names and codes
    alone is read with its question (``reading_context``) and its evidence checked for what is asked there.
    A true sentence about something else is no answer: asked how much H.R. 815 appropriates for wildfire recovery
    (it appropriates nothing), the model copied "$10,000,000 … for necessary expenses related to the administration
    of nonprofit security grants", verified and shown as the answer; asked whether software whose licence bans
    commercial use may be used in-house, it answered "商用利用を禁止しているソフトウェアはOSIのOSSの定義に合致して
    いません". A claim of fewer than ``SHORT_CLAIM_TOKENS`` words besides its facts, or a yes or no, is read with its
    question instead."""
    if stance(claim, question) is not None:
        return ""
    yes_no = is_yes_no_question(question)
    part = (asked_clause(question) if yes_no else "") or question
    named = set().union(*(name_tokens(source) for source in sources)) if sources else set()
    asked = token_words(_words_and_names(part) - named - GENERIC_PREDICATES)
    asked = {word for word in asked if len(word) > 1 or _KANJI.fullmatch(word)}  # 勧 of "何を勧めていますか"
    if len(asked) < ASKED_WORDS_MIN or word_count(claim) < SHORT_CLAIM_TOKENS or _names_alone(claim):
        return ""  # names and codes alone ("GCC 6.1q1, GCC 6.1q2, GCC 8q4") were checked read with the question
    if asked & token_words(_words_and_names(claim)) or heard_in(claim, part):
        return ""
    return ", ".join(sorted(asked)[:4])


def _words_and_names(text: str) -> set[str]:
    """The content words of ``text`` besides its numbers, codes and dates: who and what it speaks of."""
    return words_besides(text, [fact for fact in facts_of(text) if fact.kind != "name"])


_ASKED_KIND = re.compile(
    r"(?P<ja>(?:どの|どちらの|どんな|何の|なんの))(?P<ja_kind>[\u3400-\u9fff々\u30a1-\u30fa\u30fc]+)"
    r"|(?P<en>\b(?i:which|what)\s+(?:[A-Za-z]+\s+)?)(?P<en_kind>[a-z]+)(?=\s+(?i:do|does|did|is|are|was|were|can|could"
    r"|will|would|has|have|had|should|must)\b)"
)
"""What kind of thing a question asks for ("どの会社", "which company did…"): the answer names one; the evidence
that gives it need not name the kind ("(4) サプライチェーンにおける問題提起(ソニー)" answers "どの会社")."""


def reading_context(claim: str, question: str) -> str:
    """The words a claim is read with: the question's, for a claim too short to say what it is about, or made of
    names and codes alone. Asked who chaired the 2018-06-13 meeting (the minutes name no chair), the model copied the
    attendee line "Shane Coughlan – LF": every word of it is in the line, so read alone it was verified, though all
    it says is the question's "he chaired it". The kind of thing the question asks for (``_ASKED_KIND``) is left out:
    the answer names one of that kind, and its evidence need not name the kind."""
    alone = len(content_tokens(claim)) >= SHORT_CLAIM_TOKENS and not _names_alone(claim)
    return "" if alone else _ASKED_KIND.sub(_without_kind, question)


def _without_kind(found: re.Match[str]) -> str:
    return found["ja"] or found["en"]


_COPULA_END = re.compile(r"(?:です|でした|である|だ|となります|になります)[。．.]?\s*$")
"""The copula a Japanese reply closes a bare value with ("12億ドルです。"): it says nothing of the value."""
_JOINERS = re.compile(r"\b(?:and|or)\b|[\W_]", re.IGNORECASE)
"""What a list of names is joined with: "and", "or", dashes, commas and other punctuation."""


def _names_alone(claim: str) -> bool:
    """Whether a claim is names, codes and values alone ("Shane Coughlan – LF", "12億ドルです。"), with no word that
    says something of them ("Hiroshi Nozue is from Toshiba" says where he is from)."""
    rest = claim
    for fact in facts_of(claim):
        rest = rest.replace(fact.text, " ")
    return not _JOINERS.sub("", _COPULA_END.sub("", rest))


def is_claim(sentence: str, question: str) -> bool:
    """Whether a sentence states something checkable (not "I don't know", not a bare connective, not a line of
    hashtags such as a FAQ's "#組込機器#配布" copied after the answer, not a question: a FAQ's heading copied as
    "両立しないライセンスのOSSを含むOSSを利用できる?" asks, and asserts nothing to verify; a bare "No." to a yes/no
    question is a claim)."""
    if not sentence or says_unknown(sentence) or asserts_nothing(sentence):
        return False
    return bool(content_tokens(sentence)) or bool(facts_of(sentence)) or stance(sentence, question) is not None


def unmentioned(claim: str, question: str, passages: Sequence[Passage]) -> list[str]:
    """Katakana words a Japanese claim takes from the question that no Japanese passage holds. Asked for the
    primitive that adds ruby (ルビ) in pTeX, "…ルビを付けるためのプリミティブは「\\accent」です" cited a sentence on
    \\accent holding enough of the question's other words (文字, プリミティブ), and no passage speaks of ruby. Only
    katakana: a term borrowed in katakana is written the same wherever it is meant, where kanji words and English
    ones are paraphrased ("cuts" for "splits"). A passage may write it in Latin letters (ペルソナ as "persona":
    ``loanwords.heard_in``), or hold it in the title the question names its document by (「簡便な行組版ルール（案）」:
    ``claim_words.title_named``) or in its file's name (パンフレット of ``ja_oss_compliance_pamphlet.docx``)."""
    if detect_language(claim) != "ja":
        return []
    read = [
        f"{chunk.text}\n{title_named(chunk, question)}\n{' '.join(name_pieces(chunk.source))}"
        for p in passages
        for chunk in p.read
        if detect_language(chunk.text) == "ja"
    ]
    if not read:
        return []
    asked = set(_KATAKANA_WORD.findall(claim)) & set(_KATAKANA_WORD.findall(question))
    return sorted(w for w in asked if not any(w in text or heard_in(w, text) for text in read))


ECHOED_NAME_REASON = "it names only {}, whom the question itself names, and the question asks who"
_ASKS_WHO = re.compile(r"(?:^|[,;:]\s*)(?:who|whom|whose)\b", re.IGNORECASE)
"""An English question asking for a person, at its start or after the setting it opens with ("Under the bill,
who…")."""
_NAME_RUN = re.compile(r"(?:[A-Z][\w’'-]*\.?\s+)*[A-Z][\w’'-]*")
"""Capitalised words in a row, initials included: "Thomas A. Edison", "BENJ. BUTTERWORTH"."""
_POSSESSIVE = re.compile(r"[’']s?$")


def names_only_asked(claim: str, question: str) -> str:
    """The name a claim gives for the person an English who-question asks about, when that name is only the
    question's own ("" otherwise).

    Asked who signed as witnesses under Edison's signature on the patent, the model answered "Thomas A. Edison
    witnessed under Edison's signature…", and the specification's heading "THOMAS A. EDISON, OF MENLO PARK…" held
    every word of it but the witnessing. Every word of such a claim is in the question or in any passage about its
    person, so the word checks hold; what it adds is a first name or initials before a name the question gives,
    which names nobody new. A claim that names someone else ("Chas. Batchelor and S. L. Griffin witnessed it"), or
    no one ("the licensee is responsible", "Edison's assistants"), is left to the other checks."""
    if not _ASKS_WHO.search(question) or is_yes_no_question(question):
        return ""
    asked = {_name_word(word) for run in _NAME_RUN.findall(question) for word in run.split()}
    question_words = {_name_word(word) for word in re.findall(r"[\w’'-]+", question)}
    echoed, others = [], []
    for run in _NAME_RUN.findall(claim):
        if _POSSESSIVE.search(run):
            continue  # "Edison's assistants": whose, not who
        words = [_name_word(word) for word in run.split()]
        if words[-1] in asked:
            echoed.append(run)
        elif any(word not in question_words for word in words):
            others.append(run)
    return _POSSESSIVE.sub("", echoed[0]) if echoed and not others else ""


def _name_word(word: str) -> str:
    return _POSSESSIVE.sub("", word.rstrip(".")).lower()
