"""Evidence sentences: the line shown first must be the one that answers, also across languages and in tables."""

from __future__ import annotations

from collections.abc import Sequence

from rag.answers.evidence import answer_sentence, answering_sentences
from rag.models.embedding import Embedder

CHAT = (
    "AA: はじめまして、よろしくお願いいたします。\n"
    "AB: よろしくお願いします!最近はどこかに行かれましたか?\n"
    "AB: 夫がイギリスに駐在していたので、会いに行きました。\n"
    "AA: いいですね、ヨーロッパは憧れます。\n"
    "AA: ですね!"
)


def _relevance(embedder: Embedder):  # type: ignore[no-untyped-def]
    def score(question: str, sentences: Sequence[str]) -> list[float]:
        return [float(v) for v in embedder.embed_passages(list(sentences)) @ embedder.embed_queries([question])[0]]

    return score


def test_an_english_question_about_a_japanese_chat_gets_the_turn_that_answers(e5_embedder: Embedder) -> None:
    question = "Whose husband was posted to the United Kingdom?"
    # no word in common: word overlap alone cannot tell the turns apart
    assert "イギリス" not in answer_sentence(question, CHAT)
    [sentence] = answering_sentences(question, [CHAT], _relevance(e5_embedder))
    assert sentence == "AB: 夫がイギリスに駐在していたので、会いに行きました。"


def test_meaning_never_outweighs_a_row_that_holds_the_asked_words(e5_embedder: Embedder) -> None:
    table = (
        "| rule | check |\n| --- | --- |\n"
        "| L1-01 | The file format can be read by machines (Excel, CSV) |\n"
        "| L3-01 | The header row is the first line and data starts on the next line |\n"
        "|  | notes |"
    )
    question = "Which rule says the header row is the first line, with data starting on the next line?"
    [sentence] = answering_sentences(question, [table], _relevance(e5_embedder))
    assert sentence.startswith("| L3-01 |")
