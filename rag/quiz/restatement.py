"""What the LLM is asked for a quiz, and what is made of its reply: TRUE statements about focus sentences.

One call asks for the TRUE statements a quiz still needs (and one spare), one about each numbered passage, under
the reply's JSON schema and a short token cap (a CPU model writes a few tokens a second). The reply is parsed
robustly (code fences, stray text, a reply cut off mid-item) and, once, repaired by showing the model its error.
At intermediate and advanced level a statement must restate its passage, not copy it (``is_verbatim``). A copy
gets one more try. For a passage in the model's strongest language (``PIVOT_LANGUAGE``, English) it is sent back in
the same conversation, the copy named and the sentence sent again. A small model asked again mostly copies a Japanese
passage a second time, so for another language the passage goes through the pivot instead: the model translates
it into English, then restates that translation in the passage's language. It cannot copy what it never sees in
that language; a round trip through translation is the classic way to paraphrase. Every statement is validated
like any other (``validate_generated``): a round trip that lost a number, a name or a negation is no TRUE item,
nor one that swapped the sentence's terms for loose ones (``keeps_terms``).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from rag.answers.context_window import estimate_tokens
from rag.answers.faithfulness import support
from rag.answers.polarity import POLARITY_MIN_SUPPORT
from rag.answers.prompts import Language
from rag.errors import LLMOutputError, LLMUnavailableError
from rag.llm.base import LLMBackend, Message
from rag.quiz.focus import clean
from rag.quiz.models import GenerationReply
from rag.quiz.validation import Candidate, Focus, is_verbatim, validate_generated
from rag.settings import Settings

Progress = Callable[[str], None]

SCHEMA = GenerationReply.model_json_schema()
REPLY_TOKENS_PER_ITEM = 72
"""Cap on reply tokens per statement asked for: 60 Japanese characters or 25 English words, and the JSON around."""
_LEVEL_TASK = {
    "beginner": "a definition or a single fact it states",
    "intermediate": "a procedure step or a condition it sets (what must be done, when or if)",
    "advanced": "an exception or a limit it sets, or how its two sentences relate (one statement using both)",
}
_LEVEL_STYLE = {
    "beginner": "You may keep the passage's wording.",
    "intermediate": "Say it in your own words: other words and another word order. Never copy three or more "
    "words in a row from the passage, except names, numbers and technical terms.",
    "advanced": "Say it in your own words: other words and another word order. Never copy three or more "
    "words in a row from the passage, except names, numbers and technical terms.",
}
_LENGTH = {  # a restatement is shorter than its passage: it cannot be a copy of the whole sentence
    "beginner": "60 characters in Japanese or 25 words in English",
    "intermediate": "40 characters in Japanese or 18 words in English",
    "advanced": "50 characters in Japanese or 22 words in English",
}
RESTATE_TOKENS = 80
"""Cap on a restatement's tokens: about 60 Japanese characters or 40 English words."""
_RESTATE_SYSTEM = {
    "en": "You restate a document's sentence for a true/false quiz as one TRUE sentence in other words: other "
    "words and another word order, never three words in a row from the sentence except names, numbers and "
    "technical terms. Keep its meaning, every number, name and negation; add nothing. For two sentences, state "
    "how they relate in one sentence. Reply with the one sentence only, in English.",
    "ja": "資料の文を、正誤問題の正しい文として一文で言い換えます。別の言葉と別の語順を使い、元の言い回しを写さないこと"
    "（名前・数値・専門用語は除く）。意味・数値・名前・否定は変えず、書かれていないことは足さないこと。二つの文なら、"
    "その関係を一文で述べること。言い換えた一文だけを日本語で答えます。",
}
_SHOTS = {
    "en": (
        (
            "Receipts must be submitted within 30 days of the purchase.",
            "A purchase gives you 30 days to hand in its receipts.",
        ),
        (
            "If a password is entered wrongly 3 times, the account is locked for 10 minutes.",
            "Three wrong passwords in a row keep the user out for 10 minutes.",
        ),
        (
            "External storage media may not be used. However, an administrator can approve an exception.",
            "Only with an administrator's approval is external storage allowed.",
        ),
    ),
    "ja": (
        ("領収書は購入から30日以内に提出しなければならない。", "購入後30日たつ前に領収書を出す必要がある。"),
        (
            "パスワードを3回間違えると、アカウントは10分間ロックされます。",
            "3回続けてパスワードを誤った利用者は10分間ログインできない。",
        ),
        (
            "外部の記憶媒体は使用できません。ただし、管理者が承認した場合は例外とします。",
            "外部メディアを使えるのは管理者の許可があるときだけだ。",
        ),
    ),
}
PIVOT_LANGUAGE: Language = "en"
"""The language a copy of another language's passage is translated into before it is restated again."""
PIVOT_MIN_SHARE = POLARITY_MIN_SUPPORT
"""Share of content words a restatement made through the pivot shares with its sentence, both ways (``keeps_terms``):
the share at which the claim check takes a claim to restate a sentence. At 0.6 the round trips that kept their
meaning were rejected too, and copies were 0.625 of the TRUE statements (``bench/quiz.py``)."""
TRANSLATE_TOKENS = 120
"""Cap on a pivot translation's tokens: a sentence or two of English."""
_TRANSLATE = "Translate into English, nothing else, keeping every number, name and negation: {passage}"
_REWORD = "Your reply copied it. Say this sentence in other words and another word order: {passage}"
"""The second request for a copy in ``PIVOT_LANGUAGE`` (other languages go through the pivot), with the sentence
again: a bare "That copies the sentence." came back as "The sentence is copied."."""
_ANSWER_IN = {"en": "(Answer in English.)", "ja": "（日本語で答えること）"}
_RESTATE_EXAMPLE = {
    "en": " Example: the passage 'Receipts must be submitted within 30 days of the purchase.' becomes "
    "'A purchase gives you 30 days to hand in its receipts.'",
    "ja": " 例：「領収書は購入から30日以内に提出しなければならない。」は"
    "「購入後30日以内に領収書を出す必要がある。」と言い換える。",
}


def parse_reply(reply: str) -> list[Any]:
    """The list of items in an LLM reply, tolerating code fences, stray text, a bare item or list, and a reply cut
    off mid-item (its complete items are kept).

    Raises:
        LLMOutputError: no JSON object or list with items could be found.
    """
    text = _escape_commands(re.sub(r"```(?:json)?", "", reply).strip())
    data: Any = None
    for candidate in (text, text[text.find("{") : text.rfind("}") + 1], text[text.find("[") : text.rfind("]") + 1]):
        try:
            data = json.loads(candidate)
            break
        except json.JSONDecodeError:
            continue
    if isinstance(data, dict) and isinstance(data.get("items"), list):
        return list(data["items"])
    if isinstance(data, dict) and "statement" in data:
        return [data]
    if isinstance(data, list):
        return data
    if salvaged := _complete_items(text):  # a reply cut off at the token limit: keep the items it finished
        return salvaged
    raise LLMOutputError(
        'The reply is not a JSON object of the form {"items": [...]}'
        + (f"; got: {reply.strip()[:120]!r}" if reply.strip() else "; it was empty")
    )


def _escape_commands(text: str) -> str:
    """``text`` with TeX-like commands in JSON strings escaped: ``\\let`` is no JSON escape and ``\\newcommand``
    no newline (a backslash before a letter that starts a word of two or more letters is a command)."""
    return re.sub(r'(?<!\\)\\(?=[a-zA-Z@]{2,}|[^"\\/bfnrtu])', r"\\\\", text)


def _complete_items(text: str) -> list[dict[str, Any]]:
    """Every complete ``{"statement": ...}`` object in ``text``, even when the JSON around them is unfinished."""
    decoder = json.JSONDecoder()
    items: list[dict[str, Any]] = []
    for match in re.finditer(r'\{\s*"statement"', text):
        try:
            item, _end = decoder.raw_decode(text, match.start())
        except json.JSONDecodeError:
            continue
        if isinstance(item, dict):
            items.append(item)
    return items


def quiz_messages(passages: Sequence[Focus], need: int, level: str, language: Language) -> list[Message]:
    """The messages asking for ``need`` TRUE statements, one about each numbered focus passage."""
    body = "\n".join(f"[{i}] {passage_text(focus)}" for i, focus in enumerate(passages, 1))
    lang = "Japanese" if language == "ja" else "English"
    system = (
        "You write TRUE statements for a true/false quiz, one about each numbered passage: "
        f"{_LEVEL_TASK[level]}. {_LEVEL_STYLE[level]} Keep every number, date, time, name and negation exactly "
        "as the passage has it, and add nothing the passage does not say. Each statement is one short declarative "
        f"sentence (never a question): at most {_LENGTH[level]}, in "
        f'{lang}. Reply with JSON only: {{"items": [{{"passage": 1, "statement": "..."}}]}}.'
        + (_RESTATE_EXAMPLE[language] if level != "beginner" else "")
    )
    user = f"Passages:\n{body}\n\nWrite {need} statements, each about a different passage."
    return [Message("system", system), Message("user", user)]


def passage_text(focus: Focus) -> str:
    """The focus sentences as the model reads them: cleaned of bullets and line wraps."""
    return " ".join(clean(sentence) for sentence in focus.sentences)


def ask_statements(
    backend: LLMBackend,
    focuses: Sequence[Focus],
    need: int,
    level: str,
    language: Language,
    document: Sequence[Any],
    settings: Settings,
    reasons: Counter[str],
    notify: Progress,
) -> list[Candidate]:
    """Ask for ``need`` TRUE statements about the first focus passages; the valid ones, restatements first.

    The batch keeps to the answer context budget (``context_budget_chars``, and for the embedded model its fixed
    token cap: a CPU reads ~1,000 Japanese characters of passages in ~9 s before it starts writing). At
    intermediate and advanced level the copies are asked for once more in other words; a copy that stays one is
    still a valid TRUE candidate, placed last (the quiz prefers to turn it into a FALSE item).

    Raises:
        LLMUnavailableError: the backend failed on both attempts (down, timed out, broke off).
    """
    batch: list[Focus] = []
    used_chars = used_tokens = 0
    token_cap = settings.context_token_budget(backend.name)
    for focus in focuses:
        tokens = estimate_tokens(focus.text)
        over_chars = used_chars + len(focus.text) > settings.context_budget_chars
        over_tokens = token_cap is not None and used_tokens + tokens > token_cap
        if len(batch) > need or (batch and (over_chars or over_tokens)):
            break
        batch.append(focus)
        used_chars += len(focus.text)
        used_tokens += tokens
    if level != "beginner":
        return restate_each(backend, batch, need, language, document, reasons, notify)
    _reply, items = _call(backend, quiz_messages(batch, need, level, language), need, reasons, notify)
    return [c for _n, c in _validated(items, batch, document, reasons)]


def restate_messages(focus: Focus, language: Language) -> list[Message]:
    """A conversation that shows the model three restatements, then asks for one of ``focus``.

    Every request starts with the same system prompt and examples, so a llama.cpp backend reads them once and
    keeps them cached; only the passage is new.
    """
    messages = [Message("system", _RESTATE_SYSTEM[language])]
    for passage, restated in _SHOTS[language]:
        messages += [Message("user", passage), Message("assistant", restated)]
    return [*messages, Message("user", passage_text(focus))]


def restate_each(
    backend: LLMBackend,
    focuses: Sequence[Focus],
    need: int,
    language: Language,
    document: Sequence[Any],
    reasons: Counter[str],
    notify: Progress,
) -> list[Candidate]:
    """Restatements of the focus passages one by one until ``need`` pass, then the copies met on the way.

    A reply is one sentence of text (a few-shot conversation asks for nothing else; JSON framing would cost a CPU
    model time on every token). It is validated like any model statement. A copy gets one more try
    (``_ask_again``); a copy that stays one, or whose second try failed, is still a valid TRUE candidate, placed
    last (the quiz prefers to turn it into a FALSE item). At most ``need + 2`` passages are asked about.

    Raises:
        LLMUnavailableError: the backend failed twice in a row.
    """
    restated: list[Candidate] = []
    copies: list[Candidate] = []
    failures = 0
    for focus in focuses[: need + 2]:
        if len(restated) >= need:
            break
        messages = restate_messages(focus, language)
        copy: tuple[str, Candidate] | None = None  # the reply that copied the passage, and its candidate
        for _attempt in (1, 2):
            pivoted = copy is not None and language != PIVOT_LANGUAGE  # this try restates the passage's translation
            # asked again in the same words, the model samples further from its copy
            temperature = 1.0 if copy is not None and not pivoted else 0.5
            try:
                if copy:
                    messages = _ask_again(backend, focus, language, messages, copy[0])
                reply = backend.chat(messages, temperature=temperature, max_tokens=RESTATE_TOKENS)
                failures = 0
            except LLMUnavailableError as err:
                reasons["llm_failed"] += 1
                failures += 1
                if failures == 2:
                    raise
                notify(f"The LLM failed ({err}); trying once more")
                continue
            result = validate_generated({"passage": 1, "statement": _first_sentence(reply)}, [focus], document)
            if isinstance(result, str):
                reasons[result] += 1
                break
            if pivoted and not keeps_terms(result.statement, result.evidence):
                reasons["pivot_drifted"] += 1
                break
            if not is_verbatim(result.statement, result.evidence):
                restated.append(result)
                copy = None
                break
            reasons["copied_passage"] += 1
            if copy:
                break
            copy = (reply, result)
        if copy:
            copies.append(copy[1])
    if copies:
        notify(f"{len(copies)} statements copied their passage even when asked again")
    return restated + copies


def keeps_terms(statement: str, sentence: str) -> bool:
    """Whether a restatement written from a translation names what its sentence names: ``PIVOT_MIN_SHARE`` of its
    content words are the sentence's, and of the sentence's content words it keeps as many.

    Written back from English, a small model's Japanese swaps the document's terms for loose ones (著作者名 ->
    名前, 輸出 -> 出口) and drifts in meaning past what the fact and polarity checks see; a restatement that keeps
    the terms and changes the wording around them is what was asked for.
    """
    return min(support(statement, sentence), support(sentence, statement)) >= PIVOT_MIN_SHARE


def _ask_again(
    backend: LLMBackend, focus: Focus, language: Language, messages: list[Message], copy: str
) -> list[Message]:
    """The conversation that asks once more for a restatement of ``focus`` after ``copy``.

    In ``PIVOT_LANGUAGE`` the copy is shown back and named, and the sentence sent again with the request (the
    examples taught the model that every user turn is a sentence to restate: the request alone was restated as "The
    sentence is copied."; on 16 English focus sentences this gave 6 restatements against 4). In another language
    the model is given ``focus`` translated into ``PIVOT_LANGUAGE`` in place of the passage, and told to answer in
    ``language``: it restates a meaning it read in other words. The translation is asked for after the same system
    prompt and examples, so a llama.cpp backend reads only the passage (a separate prompt would evict the cached
    prefix, about 4 s a statement on 2 cores); the restatement request leaves the translation turn out and never
    shows the passage.

    Raises:
        LLMUnavailableError: the translation failed.
    """
    if language == PIVOT_LANGUAGE:
        again = _REWORD.format(passage=passage_text(focus))
        return [*messages, Message("assistant", copy), Message("user", again)]
    prefix = messages[:-1]
    ask = Message("user", _TRANSLATE.format(passage=passage_text(focus)))
    translated = _first_sentence(backend.chat([*prefix, ask], temperature=0.2, max_tokens=TRANSLATE_TOKENS))
    return [*prefix, Message("user", f"{translated}\n{_ANSWER_IN[language]}")]


_LEAD_IN = re.compile(
    r"^(?:statement|言い換え(?:ると)?|文|[^:：]{0,40}\b(?:restated|rephrased|paraphrased|in other words)\b[^:：]{0,20})"
    r"\s*[:：]\s*",
    re.IGNORECASE,
)


def _first_sentence(reply: str) -> str:
    """The reply's first line, without quotation marks or a label the model put around it ("statement:", "The
    sentence can be restated as:")."""
    line = next((line for line in reply.strip().splitlines() if line.strip()), "")
    return _LEAD_IN.sub("", line.strip()).strip("「」『』\"'“” ")


def _call(
    backend: LLMBackend, messages: list[Message], need: int, reasons: Counter[str], notify: Progress
) -> tuple[str, list[Any]]:
    """One request and at most one retry (a repair request after an unusable reply, the same request after a failed
    one): the reply and its items (none when the repaired reply is unusable too).

    Raises:
        LLMUnavailableError: the backend failed on both attempts.
    """
    reply = ""
    max_tokens = REPLY_TOKENS_PER_ITEM * need + 16
    for attempt in (1, 2):
        try:
            reply = backend.chat(messages, schema=SCHEMA, temperature=0.4, max_tokens=max_tokens)
            return reply, parse_reply(reply)
        except LLMUnavailableError as err:
            reasons["llm_failed"] += 1
            if attempt == 2:
                raise
            notify(f"The LLM failed ({err}); trying once more")
        except LLMOutputError as err:
            reasons["unparseable_reply"] += 1
            if attempt == 2:
                break
            messages = [
                *messages,
                Message("assistant", reply),
                Message("user", f"That reply could not be used: {err}. Reply again with only the JSON object."),
            ]
    return reply, []


def _validated(
    items: Sequence[Any], batch: Sequence[Focus], document: Sequence[Any], reasons: Counter[str]
) -> list[tuple[int, Candidate]]:
    """(passage number, candidate) for each item that passes validation; the others counted by reason."""
    candidates: list[tuple[int, Candidate]] = []
    for raw in items:
        result = validate_generated(raw, batch, document)
        if isinstance(result, str):
            reasons[result] += 1
        else:
            candidates.append((raw.get("passage", 0) if isinstance(raw, dict) else 0, result))
    return candidates
