"""Prompt texts for grounded answers, the language they are written in, and the follow-up section they ask for.

The answer is asked for in the question's language. The model is asked to end its reply with a ``FOLLOWUPS:``
section; :func:`split_followups` parses it off so follow-up questions never appear in the answer text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from rag.answers.citations import Passage
from rag.llm.base import Message

Language = Literal["ja", "en"]

FOLLOWUPS_MARKER = re.compile(r"[*#\s]*(?:FOLLOW[- ]?UPS?|フォローアップ|追加の質問|関連質問)\s*[:：]", re.IGNORECASE)

# follow-ups written without the marker: bullet lines ending in a question mark at the very end of the reply
_TRAILING_QUESTIONS = re.compile(r"(?:\n[ \t]*(?:[-*・•]|\d+[.)．])[ \t]*[^\n]*[?？][^\n]*)+\s*$")
JA_SCRIPT_SHARE = 0.2
"""Share of a text's letters written in kana or Han from which ``script_language`` takes it for Japanese."""
_KANA = re.compile(r"[\u3040-\u30ff]")
_HAN = re.compile(r"[\u4e00-\u9fff]")
_LATIN = re.compile(r"[A-Za-z]")

SYSTEM_PROMPT: dict[Language, str] = {
    "ja": (
        "あなたは、与えられた番号付きの資料だけを根拠に質問に答えるアシスタントです。\n"
        "規則:\n"
        "1. 資料に書かれている事実だけを使い、資料にない知識は使わない。\n"
        "2. 資料を使った文の末尾に、その資料の番号を [1] のように付ける。存在する番号だけを使う。\n"
        "3. 資料に答えがなければ「資料からは分かりません。」とだけ答える。\n"
        "4. 日本語で、簡潔に（6文程度まで）答える。\n"
        "5. 回答の後に「FOLLOWUPS:」という行を書き、資料で答えられる短い追加質問を2〜3個、"
        "1行に1つ「- 」で始めて書く。"
    ),
    "en": (
        "You are an assistant that answers questions using only the numbered passages you are given.\n"
        "Rules:\n"
        "1. Use only facts stated in the passages; never add outside knowledge.\n"
        "2. End every sentence that uses a passage with its number in brackets, e.g. [1]. "
        "Cite only numbers that exist.\n"
        '3. If the passages do not contain the answer, reply only: "I don\'t know based on the documents."\n'
        "4. Answer in English, concisely (at most about six sentences).\n"
        '5. After the answer, write a line "FOLLOWUPS:" followed by 2-3 short follow-up questions the passages '
        'could answer, one per line, each starting with "- ".'
    ),
}

_USER_TEMPLATE: dict[Language, str] = {
    "ja": "資料（{numbers}）:\n{passages}\n\n質問: {question}",
    "en": "Passages ({numbers}):\n{passages}\n\nQuestion: {question}",
}
_NUMBERS: dict[Language, tuple[str, str]] = {"ja": ("[1] のみ", "[1]〜[{n}]"), "en": ("only [1]", "[1] to [{n}]")}


def detect_language(text: str) -> Language:
    """``ja`` when the text has kana, or more Han characters than Latin letters; else ``en``."""
    if _KANA.search(text):
        return "ja"
    return "ja" if len(_HAN.findall(text)) > len(_LATIN.findall(text)) else "en"


def script_language(text: str) -> Language:
    """``ja`` when kana and Han characters make up at least ``JA_SCRIPT_SHARE`` of the text's letters; else ``en``.
    For evidence and bare answers, where a single kana says little: an OCR'd English page with a stray "づつも" is
    English, and "\\kansujichar の引数に許される値は0–9 に限られ" (as many Latin letters as Japanese) is Japanese."""
    japanese = len(_KANA.findall(text)) + len(_HAN.findall(text))
    letters = japanese + len(_LATIN.findall(text))
    return "ja" if letters and japanese >= JA_SCRIPT_SHARE * letters else "en"


def format_passage(passage: Passage) -> str:
    """``[n] (source, p. N — section)`` followed by the passage text."""
    section = f" — {passage.chunk.section}" if passage.chunk.section else ""
    return f"{_header_opening(passage)}{section})\n{passage.text}"


def _header_opening(passage: Passage) -> str:
    """How ``format_passage`` opens the passage's header: ``[n] (source, p. N``."""
    return f"[{passage.n}] ({passage.label}"


def echoes_passages(reply: str, passages: Sequence[Passage]) -> bool:
    """Whether ``reply`` copies a passage header the prompt gave (``format_passage``: "[2] (docs/faq.pdf, p. 18 — …)"):
    a small model that writes out its context instead of answering. Its sentences are the passages' own words, each
    verified where it stands, and none of them need answer the question."""
    return any(_header_opening(p) in reply for p in passages)


def answer_messages(question: str, passages: Sequence[Passage]) -> list[Message]:
    """System and user messages asking for a cited answer to ``question`` from ``passages``."""
    language = detect_language(question)
    body = "\n\n".join(format_passage(p) for p in passages)
    one, many = _NUMBERS[language]
    numbers = one if len(passages) == 1 else many.format(n=len(passages))
    return [
        Message("system", SYSTEM_PROMPT[language]),
        Message("user", _USER_TEMPLATE[language].format(numbers=numbers, passages=body, question=question.strip())),
    ]


def split_followups(text: str) -> tuple[str, tuple[str, ...]]:
    """Separate the answer from its trailing ``FOLLOWUPS:`` section (or trailing bullet questions without one).

    Returns:
        The answer text (stripped) and up to three follow-up questions (markers and bullets removed).
    """
    if marker := FOLLOWUPS_MARKER.search(text):
        start, section = marker.start(), text[marker.end() :]
    elif bullets := _TRAILING_QUESTIONS.search(text):
        start, section = bullets.start(), bullets.group()
    else:
        return text.strip(), ()
    questions: list[str] = []
    for line in section.splitlines():
        line = re.sub(r"^\s*(?:[-*・•]|\d+[.)．])\s*", "", line)
        line = re.sub(r"\[\d+\]", "", line).strip().strip("*").strip()
        if 3 <= len(line) <= 160 and line not in questions:
            questions.append(line)
    return text[:start].strip(), tuple(questions[:3])


def heading_followups(question: str, passages: Sequence[Passage], language: Language) -> tuple[str, ...]:
    """Up to three follow-up questions from the passages' section headings (when the model gave none)."""
    followups: list[str] = []
    for passage in passages:
        section = passage.chunk.section.strip().lstrip("#").strip()
        if not section or section in question or len(section) > 60:
            continue
        text = f"「{section}」には何が書かれていますか？" if language == "ja" else f"What does “{section}” cover?"
        if text not in followups:
            followups.append(text)
    return tuple(followups[:3])
