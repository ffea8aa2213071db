"""Why a claim is not supported by the evidence window it was read against, in one line for a person.

``claims.check_claim`` picks the window of the cited text that best holds a claim; this module says what is wrong
with that reading, first reason first: a fact missing, the polarity flipped, too few of its words (``basic_reason``);
the window being about something else than what the question asks (``off_topic_reason``); then what the evidence
says of the claim's facts and names (``unsupported_because``: the opposite term, a figure given for something else,
another doer, a sibling's row, another step or alternative, one side of a pair, a former state). Each check lives in
the module its docstring names; here is only their order and the words of each verdict.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rag.answers.added_words import added_words_unsaid, clause_unsaid
from rag.answers.bindings import (
    bound_elsewhere,
    paired_respectively,
    row_without_its_subject,
    said_of_sibling,
)
from rag.answers.choices import chose_elsewhere, done_by_another, ordered_elsewhere
from rag.answers.claim_words import about_elsewhere, asked_unsaid, purpose_unsaid, said_of_names
from rag.answers.contrast import (
    alone_among_others,
    any_against_exclusive,
    difference_denied,
    one_side_only,
    other_kind_named,
    set_aside,
)
from rag.answers.defaults import default_elsewhere, default_unsaid
from rag.answers.facts import Fact
from rag.answers.faithfulness import content_tokens
from rag.answers.item_labels import under_another_item, under_another_label
from rag.answers.pairings import (
    counted_elsewhere,
    mapped_respectively_elsewhere,
    record_value_of_another,
    values_swapped,
)
from rag.answers.quantifiers import widened_unsaid
from rag.answers.quotations import misquoted
from rag.answers.scope import former_state
from rag.answers.speakers import said_by_another

ONLY_ASKS = "the cited text only asks this as a question; it does not state it"


@dataclass(frozen=True, slots=True)
class ClaimReading:
    """A claim as read against the evidence window that holds it best.

    Attributes:
        claim: the claim's text.
        topic: the question it answers ("" when none).
        facts: the claim's facts the evidence must hold (the question's premises left out).
        stated: every fact the claim states.
        premised: identifiers and names the claim takes from its question.
        named: the words of the cited file's name and title (what every passage is about, not what it says).
        evidence: the whole cited text.
        window: the window's verbatim text.
        reading: the window's statements (questions left out, list items with their lead-in).
        held: ``reading`` with the claim's words it writes in the other script.
        read_with: the claim with the words of its question this reading could hold.
        across: the window is in another language than the claim.
    """

    claim: str
    topic: str
    facts: tuple[Fact, ...]
    stated: tuple[Fact, ...]
    premised: tuple[Fact, ...]
    named: set[str]
    evidence: str
    window: str
    reading: str
    held: str
    read_with: str
    across: bool


def basic_reason(missing: tuple[Fact, ...], conflict: bool, share: float, threshold: float) -> str:
    """A fact not found, a flipped polarity, or too small a share of words ("" when none)."""
    if missing:
        return "not in the cited text: " + ", ".join(f.text for f in missing)
    if conflict:
        return "the cited text says the opposite (negation differs)"
    if share < threshold:
        return f"only {share:.0%} of its words are in the cited text"
    return ""


def off_topic_reason(read: ClaimReading, about: str, worded: str, source: str, title: str) -> str:
    """Why the evidence, in the question's language, is about something else than what the question asks ("" when
    it is not): the claim's topic words are not in it, nor the words of the clause the question asks in, nor the
    purpose it asks an amount for (``claim_words``)."""
    topic, held, premised = read.topic, read.held, read.premised
    if reason := about_elsewhere(about, topic, held, source, premised, title):
        return reason
    if unasked := asked_unsaid(worded, topic, held, source, premised, title):
        return f"the cited text does not speak of what the question asks ({unasked})"
    if purpose := purpose_unsaid(read.claim, topic, held, source, premised, title):
        return f"the cited text does not give it for {purpose}"
    return ""


def unsupported_because(read: ClaimReading, contrasted: Sequence[tuple[str, str]]) -> str:
    """The first thing the evidence says of the claim's facts and names that the claim does not ("" when none).

    ``contrasted``: (claimed, stated) pairs of terms whose opposite the evidence names ("unsafe" against "may safely
    be nested").
    """
    claim, topic, reading = read.claim, read.topic, read.reading
    if contrasted:
        return "; ".join(f"the cited text speaks of {stated}, not {claimed}" for claimed, stated in contrasted)
    if misquote := misquoted(claim, topic, read.evidence):
        return f"the cited text does not say 「{misquote}」 word for word"
    if topic and not read.across and (unsaid := added_words_unsaid(claim, topic, read.held, read.premised)):
        return "the cited text does not say " + unsaid
    if topic and not read.across and (unsaid := clause_unsaid(claim, topic, read.window, read.evidence, read.premised)):
        return "the cited text does not say " + unsaid
    if said := said_of_names(claim, read.stated, reading, read.named):
        return f"the cited text only names them; it does not say {', '.join(said[:4])}"
    if topic and default_unsaid(claim, topic, read.evidence):
        return "the cited text does not say which value is the default"
    if topic and (other := default_elsewhere(claim, topic, reading)):
        return f"the cited text does not give this as the default; it gives it in: {other}"
    if bound := bound_elsewhere(read.facts, read.read_with, reading):
        return f"the cited text gives {bound[0].text} for something else; what the claim says has {bound[1].text}"
    if speaker := said_by_another(claim, reading, read.evidence):
        return f"the cited text gives this line to {speaker[1]}, not {speaker[0]}"
    if not read.across and (doer := done_by_another(claim, reading)):
        return f"the cited text says {doer[0]} does this, not {doer[1]}"
    if swapped := said_of_sibling(read.stated, claim, reading):
        return f"the cited text says this of {swapped[1].text}, not {swapped[0].text}"
    if topic and (chosen := chose_elsewhere(claim, topic, reading)):
        if chosen[1]:
            return f"the cited text gives {chosen[1]}, not {chosen[0]}, for what the claim is about"
        return f"the cited text does not say {chosen[0]}, the alternative the claim picks"
    if topic and (step := ordered_elsewhere(claim, topic, reading, read.named)):
        return f"the cited text names another {step[0]} step: {step[1]}"
    if side := one_side_only(claim, reading):
        return f"the cited text speaks of {side[0]} without {side[1]}; the claim of both"
    if alone := alone_among_others(claim, reading):
        return f"the cited text gives {alone} together with others, not alone"
    if anyone := any_against_exclusive(claim, reading):
        return f"the cited text gives one alone where the claim says {anyone}"
    if widened := widened_unsaid(claim, topic, reading, read.evidence):
        return f"the cited text does not say '{widened}'"
    if not read.across and (kinds := other_kind_named(claim, reading)):
        return f"the cited text speaks of {kinds[1]}, not {kinds[0]}"
    if aside := set_aside(claim, reading):
        return f"the cited text sets {aside} aside for another"
    if moot := difference_denied(claim, reading):
        return f"the cited text says it holds irrespective of {moot}"
    if swapped_pair := values_swapped(read.facts, claim, reading):
        return f"the cited text gives {swapped_pair[0].text} and {swapped_pair[1].text} the other way round"
    if topic and (item := under_another_item(topic, read.window, read.evidence)):
        return f"the cited text says this under item {item[1]}, not {item[0]}"
    if topic and (entry := under_another_label(topic, read.window, read.evidence)):
        return f"the cited text says this of {entry[1]}, not {entry[0]}"
    if record := record_value_of_another(claim, reading, topic) or record_value_of_another(claim, read.evidence, topic):
        return f"the cited text gives {record[1]} to another entry; {record[0]}'s is {record[2]}"
    if counted := counted_elsewhere(claim, reading):
        return f"the cited text counts the {counted[1]} as {counted[2]}; it gives {counted[0]} for something else"
    if mapped := mapped_respectively_elsewhere(claim, read.evidence):  # the whole sentence, past a line break
        return f"the cited text gives {mapped[1]} to another item than {mapped[0]} ('respectively')"
    if paired := paired_respectively(read.facts, reading):
        return (
            f"the cited text pairs {paired[0].text} and {paired[1].text} with things it lists elsewhere "
            "('respectively', or a table row without its columns); it does not say which is which here"
        )
    # the file's own name ("pTeX" of ja_ptex_manual.pdf) is what every line is about, not a column
    subjects = [f for f in read.premised if not content_tokens(f.text) <= read.named]
    if subject := row_without_its_subject(subjects, reading, read.evidence):
        return (
            f"the cited text is a table row read without its columns: it does not say which value is {subject.text}'s"
        )
    if past := former_state(claim, read.window, topic):
        return f"the cited text describes a former state ({past}); the claim states it as current"
    return ""
