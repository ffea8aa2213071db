"""Claim checks: does the cited text say what an answer (or a quiz statement) claims, fact by fact?

A verbatim quote proves only that the quote is in the document, not that the claim beside it is true. A claim is
supported by evidence only when

- every **fact** it states occurs in the evidence (``rag.answers.facts``: numbers with their units, in figures or in
  words (``rag.answers.number_words``), dates, times, versions, API and command identifiers, Latin-script names,
  each compared in canonical form), and the Japanese proper nouns it adds to the question (東京, ソニー: Sudachi's
  固有名詞, ``rag.ingest.tokenization.proper_nouns``);
- its **polarity** agrees with the evidence sentence it restates (``rag.answers.polarity``);
- it keeps the evidence's **time scope**: a sentence about an earlier version or a former rule does not support the
  same statement made about the present (``rag.answers.scope``);
- it names the same side of a **contrasting pair** (和文/欧文, maximum/minimum) as the evidence
  (``rag.answers.contrast``);
- enough of its content words occur there (``rag.answers.faithfulness.support``), among them enough of the words it
  takes from the question (``rag.answers.claim_words``) and of the Japanese words it adds to it, its answer
  (``rag.answers.added_words``: a kanji name is no fact); within one language a word written in the other script
  counts (ペルソナ for "persona", ``rag.answers.loanwords``);
- the evidence says something of the claim's names, not only names them: a list entry or a heading that only names
  someone ("Shane Coughlan – LF") does not say what they did (``claim_words.said_of_names``);
- the one a Japanese claim says does something ("決めるのは…です") is the one the evidence makes the verb's subject
  (``choices.done_by_another``);
- each fact is given there for what the claim says, not for something beside it (``rag.answers.bindings``), and a
  step the question asks for by its place (the first, the last), or the alternative it offers, is the one the
  evidence puts there (``rag.answers.choices``);
- it is about what the question asks, not only about the setting the question opens with ("Under H.R. 815, if the
  government seizes …, how long …": ``claim_words.asked_unsaid``); a bare answer ("アメリカ") is checked in the
  sentence about its question, and that sentence must be about it (``claim_words.about_elsewhere``).

A fact the question itself states and the passages hold is the asker's premise (``rag.answers.premises``), not
something the answer must prove again, unless the evidence names another identifier in its place (a table row about
another function); across languages (a Japanese answer about an English page) no words are shared, so the
claim's quantities and polarity decide, and a claim without a quantity, or with a part between its commas that states
none ("…, who is good at sports, …"), is not verified.

Everything here is lexical and explainable: a failed check names the missing fact or the flipped polarity
(``rag.answers.claim_reasons`` orders the checks and words each verdict). The evidence is compared sentence by
sentence (a window of up to ``WINDOW_SENTENCES`` consecutive sentences, never two list items, a table row together
with its header), so a number elsewhere in a long passage does not vouch for the claim. A question in the evidence
asserts nothing, so it supports nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rag.answers.bindings import about_another
from rag.answers.bounds import bound_reversed
from rag.answers.claim_polarity import polarity_conflict
from rag.answers.claim_reasons import ONLY_ASKS, ClaimReading, basic_reason, off_topic_reason, unsupported_because
from rag.answers.claim_words import (
    every_part_tied,
    has_sibling,
    in_prose,
    is_anchor,
    name_tokens,
    names_together,
    readable_in,
)
from rag.answers.contrast import claimed_terms, contrasted_terms
from rag.answers.denial_scope import denies_what_is_claimed
from rag.answers.fact_matching import fact_found, same_fact
from rag.answers.facts import Fact, facts_of, plain_text, words_besides
from rag.answers.faithfulness import (
    SUPPORT_THRESHOLD,
    content_tokens,
    is_yes_no_question,
    script_runs,
    support,
    token_words,
)
from rag.answers.loanwords import heard_in
from rag.answers.polarity import denied_words, holds_words
from rag.answers.prompts import script_language
from rag.answers.windows import (
    FIELD_NAME,
    WINDOW_SENTENCES,
    holds_question,
    quote_with_lead_in,
    statements_of,
    windows,
    without_link_targets,
)
from rag.ingest.tokenization import proper_nouns

WINDOW_PENALTY = 0.2
"""Score a window loses per sentence beyond the first, so a quote grows only for facts or words it adds."""
BARE_WORDS = 3
"""A claim of fewer words than this that shares none with its question is a bare answer ("アメリカ")."""
CONTRADICTION_MARGIN = 0.1
"""A window whose score is within this of the contradicting one's and that agrees with the claim makes the passage
ambiguous about it: no "No." is drawn from it (a window's score: facts found + share of words - length penalty)."""


@dataclass(frozen=True, slots=True)
class ClaimCheck:
    """The verdict on one claim against one evidence text.

    Attributes:
        supported: every fact found, polarity agrees, enough content words shared.
        evidence: the evidence sentence(s) the claim was compared with, verbatim from the evidence text (a list
            item from the sentence opening its list, when the claim's facts are there).
        missing: the claim's facts not found in ``evidence``.
        polarity_conflict: the claim affirms what the evidence negates, or the other way round.
        support: share of the claim's content words found in ``evidence``.
        reason: one line for a person ("" when supported).
        contradicts: the evidence states the claim's opposite: every fact and enough words found, on the claim's
            topic, and only the polarity differs ("| TEE_GenerateRandom | No |" against "mTower implements
            TEE_GenerateRandom").
        contrasted: ``(claimed, stated)`` for each term of the claim whose opposite the evidence names instead
            ("unsafe" against "may safely be nested").
        denial_on_claim: a denial in the evidence is of what the claim says, not of another predicate beside its
            words (``denial_scope.denies_what_is_claimed``): only then does a polarity conflict oppose the claim.
    """

    supported: bool
    evidence: str
    missing: tuple[Fact, ...] = ()
    polarity_conflict: bool = False
    support: float = 0.0
    reason: str = ""
    contradicts: bool = False
    contrasted: tuple[tuple[str, str], ...] = ()
    denial_on_claim: bool = True

    @property
    def opposes(self) -> bool:
        """The evidence holds the claim's facts and says the opposite: another polarity, of what the claim says
        (``denial_on_claim``), or the opposite term."""
        return ((self.polarity_conflict and self.denial_on_claim) or bool(self.contrasted)) and not self.missing


@dataclass(frozen=True, slots=True)
class _Window:
    """One window of the evidence as read against a claim (``check`` holds its verbatim text, missing facts, share).

    ``holds``: every fact found, no contrasting term, enough words; ``score``: facts found + share - length penalty;
    ``needed``: the share of words it had to reach; ``reading``: its statements (questions left out), table rows with
    their header, list items with the sentence introducing the list (``lead_in``); ``contrasted``: (claimed, stated)
    pairs of contrasting terms; ``held``: the reading with the claim's words it writes in the other script
    (``loanwords.heard_in``), what the claim's words and names are looked up in; ``read_with``: the claim with the
    words of its question (``context``) this reading could hold (``claim_words.readable_in``)."""

    holds: bool
    score: float
    needed: float
    check: ClaimCheck
    reading: str
    contrasted: list[tuple[str, str]]
    lead_in: str = ""
    held: str = ""
    read_with: str = ""

    @property
    def said(self) -> str:
        """What the window asserts, for its polarity: a list item with the sentence that introduces its list."""
        return f"{self.lead_in}\n{self.check.evidence}" if self.lead_in else self.check.evidence


# ---- the check ---------------------------------------------------------------------------------------------


def check_claim(
    claim: str,
    evidence: str,
    *,
    threshold: float = SUPPORT_THRESHOLD,
    context: str = "",
    given: Sequence[Fact] = (),
    topic: str = "",
    source: str = "",
    lead_in: str = "",
    title: str = "",
) -> ClaimCheck:
    """Check one claim (an answer sentence, a quiz statement) against the text it cites.

    The evidence is cut into sentences (table rows read with their header row); the window of at most
    ``WINDOW_SENTENCES`` consecutive sentences that holds most of the claim's facts and words is the claim's
    evidence. The claim is supported when all its facts occur there, its content words reach ``threshold``, and its
    polarity agrees with the window's sentence it restates most closely.

    Args:
        claim: the claim, citation markers allowed.
        evidence: the cited text (a chunk's text).
        threshold: minimum share of content words.
        context: words the claim leans on without repeating them (the question, for a bare "1954年"): they count
            towards its content words, never towards its facts or polarity.
        given: facts the claim may restate without the evidence holding them (``premises`` of the question).
        topic: the question the claim answers: the words the claim takes from it are what the claim is about, and
            at least ``claim_words.TOPIC_SHARE`` of them must be in the evidence (same language only).
        source: the cited text's file: the words of its name say which document the question is about, not what
            about, so they do not count as the claim's topic ("the LaTeX guide" of ``en_latex_usrguide.pdf``).
        lead_in: the sentence introducing a list the evidence starts in, when it stands before the evidence (a chunk
            that begins at item (2) of "Nothing in this division may be construed—").
        title: the cited document's title when the question names the document by it
            (``claim_words.title_named``): its words, like those of the file's name, do not count as the claim's.

    Returns:
        The verdict, with the verbatim evidence sentence(s) to quote.
    """
    stated = facts_of(without_link_targets(claim))  # a copied link's path is no more a fact here than there
    facts = tuple(f for f in stated if not any(same_fact(f, g) for g in given))
    premised = tuple(f for f in stated if f.kind in ("identifier", "name") and f not in facts)
    picks = topic and not is_yes_no_question(topic) and not words_besides(claim, stated) - content_tokens(topic)
    if picks or (topic and not any(f.kind == "identifier" for f in stated)):
        # a bare pick ("Hamas and Other … Act") answers for what the question names ("Division L"), and a claim
        # naming no identifier ("This function is implemented") speaks of the one its question names
        # (TEE_GenerateRandom): the evidence must not give it for a sibling ("(13) DIVISION M.—Hamas …",
        # "| TEE_Malloc | Yes | Covered in test suite |")
        asked = (f for f in facts_of(topic) if f.kind == "identifier")
        premised += tuple(f for f in asked if not any(same_fact(f, s) for s in stated))
    distinctive = [f for f in facts if is_anchor(f)]
    worded = f"{context} {claim}" if context else claim
    names_said = " ".join(f.text for f in facts if f.kind == "name")
    language = script_language(claim)
    claimed = claimed_terms(claim)
    # the words of the file's name say which document, not what of it: every passage of ptex_manual.pdf has "pTeX"
    named = name_tokens(source, title, said=f"{topic} {claim}")
    # a Japanese name in kanji or katakana is no fact ``facts`` reads: "会合はトヨタ自動車の東京オフィスで開かれました"
    # held every word but 東京 of "場所: トヨタ自動車 名古屋オフィス". One the question does not give is the claim's
    # and must be in the evidence, as a Latin-script name must
    japanese_names = tuple(
        Fact("name", name, name) for name in proper_nouns(claim) if name not in topic and name not in context
    )
    # the question's premises (its date, the meeting it names) frame a claim read with it: the one line that gives
    # the answer need not repeat them ("(4) サプライチェーンにおける問題提起(ソニー)" under the minutes' date), nor
    # does their absence lend it the share of words it must reach by what it says. Lines joined to reach that share
    # are read whole: "…の内容を共有(トヨタ)" above that line is no answer to who raised the problem.
    framed = content_tokens(" ".join(f.text for f in given)) - content_tokens(claim) if context else set()
    # a bare answer ("アメリカ") says what it is about through its question, all of whose words it takes: among the
    # windows holding it, the one about the question is its evidence, and must be
    words = token_words(content_tokens(claim))
    bare = bool(topic) and not context and len(words) < BARE_WORDS and not words & token_words(content_tokens(topic))
    about = f"{topic} {claim}" if bare else claim
    # a claim that is nothing but its facts ("2022年8月6日") is checked on them, read with its question: once found,
    # their pieces (年, 8) are words held, however the evidence writes them ("2022-08-06")
    only_facts = " ".join(f.text for f in facts) if facts and not words_besides(claim, stated) else ""
    # across languages, the words a claim copies in the evidence's script are the names it quotes (an English claim
    # about "OSSコンプライアンス教育"), and its Latin names are facts found there ("A Consumer Electronics Company" of
    # a sheet's row): what it says of them is in its own language, and shares nothing. Its facts written in the
    # evidence's script (一九七八年) are found as facts
    copied_names = (
        [run for run in script_runs(claim) if not any(run in f.text for f in stated)] if language == "en" else []
    ) + [f.text for f in stated if f.kind == "name"]
    copied_tokens = content_tokens(" ".join(copied_names))
    ranked: list[_Window] = []
    for window, full_reading, size, window_lead_in in windows(evidence, WINDOW_SENTENCES, lead_in):
        # a question asserts nothing: a FAQ's "…読まなければいけないでしょうか?" holds the claim's words, not its truth
        reading = statements_of(full_reading)
        window_facts = facts_of(reading)
        # in one language, a word the reading writes in the other script (ペルソナ / "persona") is a word it holds;
        # across languages words do not carry a check (a katakana クラス is no evidence of "class" being said), but
        # a name does: "AA names Italy" is checked on "AA: 私はイタリアとかに行ってました"
        said_in_fields = FIELD_NAME.sub(" ", reading)  # a record's language is its values', not its field names'
        reading_language = script_language(said_in_fields)
        # a line of names alone ("interlocutor_id: AQ") is in no language
        across_scripts = reading_language != language and in_prose(said_in_fields, window_facts)
        heard = heard_in(names_said if across_scripts else worded, reading)
        held = "\n".join([reading, *heard])
        missing = tuple(f for f in facts if not fact_found(f, window_facts, plain_text(held)))
        missing += tuple(f for f in premised if about_another(f, window_facts, reading))
        if not across_scripts:
            missing += tuple(f for f in japanese_names if f.value not in held)
        # a question in the other language lends the claim the words this reading could hold; with none, all of
        # them, which it cannot
        readable = readable_in(context, reading_language, named) if context else ""
        read_with = f"{readable} {claim}" if readable else worded
        # a name heard across languages is a fact found, not a word shared
        unheld = framed - content_tokens(held) if size == 1 else set()
        # across scripts the Latin words of a Japanese reading are its names and field names: "Persona AM is a young
        # man" held "persona" and "AM" of "interlocutor_id: AM\npersona: 中年女性だ。", half its words
        read_for_words = said_in_fields if across_scripts else held
        if only_facts and not missing:
            read_for_words = f"{read_for_words}\n{only_facts}"  # its facts are found, however the reading writes them
        copied = copied_tokens if across_scripts else set()
        share = support(read_with, read_for_words, ignored=named | unheld | copied) if reading else 0.0
        contrasted = contrasted_terms(claimed, reading)
        # an answer in Japanese about an English page (or the reverse) shares no words with it: there its distinctive
        # facts (``claim_words.is_anchor``), or a name it writes in the other script (Italy, イタリア) in a sentence
        # holding another name the claim states, and polarity must carry the check; a claim without one is not
        # verified
        anchored = any(not has_sibling(f, window_facts) for f in distinctive) or (
            across_scripts and bool(heard) and names_together(stated, names_said, reading)
        )
        other_language = anchored and across_scripts and in_prose(reading, window_facts) and every_part_tied(claim)
        needed = 0.0 if other_language else threshold
        # windows that hold every fact and enough words come first; among them a longer window must earn its
        # place, so the quote is the sentence itself rather than its neighbours too
        checked = len(facts) + (0 if across_scripts else len(japanese_names))
        score = (1 - len(missing) / checked if checked else 1.0) + share - WINDOW_PENALTY * (size - 1)
        score += support(about, held, ignored=named) if bare else 0.0
        holds = bool(reading) and not missing and not contrasted and share >= needed
        check = ClaimCheck(False, window, missing, False, share)
        ranked.append(_Window(holds, score, needed, check, reading, contrasted, window_lead_in, held, read_with))
    if not ranked:
        return ClaimCheck(False, "", facts, False, 0.0, "the cited text is empty")
    # a tie goes to the window the claim covers more of: the bullet "The 'verbatim' argument type v is not
    # available" over the long opening sentence sharing as many words with "…v is not available for expandable…"
    ranked.sort(key=lambda w: (w.holds, w.score, support(w.check.evidence, claim)), reverse=True)

    def read_on(window: _Window) -> tuple[ClaimReading, str]:
        """The claim as read on ``window``, and why that window is about something else than asked ("" if not)."""
        across = script_language(window.check.evidence) != language
        read = ClaimReading(
            claim,
            topic,
            facts,
            stated,
            premised,
            named,
            evidence,
            window.check.evidence,
            window.reading,
            window.held,
            window.read_with,
            across,
        )
        return read, off_topic_reason(read, about, worded, source, title) if topic and not across else ""

    top = ranked[0]
    read, off_topic = read_on(top)
    if off_topic and top.holds:
        # the sentence holding the claim may leave what it is about to the one before: "Options are GCC 6.1q1, …"
        # follows "*Toolchain Selection* submenu lets you select toolchain…"; a window holding both is the evidence
        for wider in ranked[1:]:
            if not wider.holds:
                break
            if not (on_wider := read_on(wider))[1]:
                top, (read, off_topic) = wider, on_wider
                break
    best, best_needed, best_reading, best_contrasted = top.check, top.needed, top.reading, top.contrasted
    if flipped := bound_reversed(claim, best_reading):
        best_contrasted = [*best_contrasted, flipped]  # "more than 180 days" against "not more than 180 days"
    across = read.across
    conflict = polarity_conflict(claim, top.said, across=across)
    reason = basic_reason(best.missing, conflict, best.support, best_needed) if best_reading else ONLY_ASKS
    reason = reason or off_topic or unsupported_because(read, best_contrasted)
    # the evidence states the opposite only when it is a statement, not a question, that holds what the claim denies
    # (not "sparingly" against "not … often") or denies what it affirms (not "does not apply to … divestiture"
    # against "requires divestiture"), and no other statement restating the claim about as closely agrees
    # with it: a FAQ quotes the misconception before the answer that corrects it
    denial_on_claim = denies_what_is_claimed(claim, best_reading)
    contradicts = (
        conflict
        and not best.missing
        and best.support >= best_needed
        and not off_topic
        and not best_contrasted
        and not holds_question(best.evidence)
        and holds_words(denied_words(claim), best_reading)
        and denial_on_claim
        and all(
            polarity_conflict(claim, w.said, across=script_language(w.check.evidence) != language)
            for w in ranked[1:]
            if w.holds and w.score >= top.score - CONTRADICTION_MARGIN and not holds_question(w.check.evidence)
        )
    )
    quote = quote_with_lead_in(evidence, best.evidence, top.lead_in, facts)
    return ClaimCheck(
        not reason,
        quote,
        best.missing,
        conflict,
        best.support,
        reason,
        contradicts,
        tuple(best_contrasted),
        denial_on_claim,
    )
