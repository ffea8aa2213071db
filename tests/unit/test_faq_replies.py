"""A FAQ's own yes or no decides a yes/no question about it, in the language it is asked in: on the real FAQ slides
of ``ja_oss_license_misunderstandings_faq.pdf``, read with the product's parser and the packaged embedding model."""

from __future__ import annotations

from test_claims import chunk_with, embedding_relevance, needs_realdocs

from rag.answers.citations import Passage
from rag.answers.draft import AnswerDraft
from rag.answers.faithfulness import is_yes_no_question
from rag.answers.faq_replies import faq_decision, faq_replies
from rag.answers.polarity import asks_negatively
from rag.answers.verification import check_answer
from rag.models.embedding import Embedder
from rag.records import Hit
from rag.settings import Settings
from tests.scripted_llm import ScriptedLLM

FAQ = "ja_oss_license_misunderstandings_faq.pdf"
SPDX_ASKED = (
    "Can I delete the full license text from an OSS source file and just put an SPDX-License-Identifier line there "
    "instead before redistributing it?"
)
DUAL_ASKED = (
    "When I ship a dual-licensed OSS component as a binary, is it enough to include only the text of the license I "
    "chose?"
)
SPDX_SLIDE = "このため、ライセンス文を削除することはできません"
DUAL_SLIDE = "選択したライセンス文書のみを添付すればよいですか"


def _passages(*needles: str) -> list[Passage]:
    chunks = [chunk_with(FAQ, needle) for needle in needles]
    return [Passage(n, chunk, chunk.text) for n, chunk in enumerate(chunks, start=1)]


@needs_realdocs
def test_a_reply_line_answers_the_question_above_it_past_a_footnote_and_a_link() -> None:
    """The SPDX slide asks "…このライセンス文を削除し、代わりに ”SPDX-License- Identifier: …” を追記して配布しよう
    と思いますが、良いですか。", then a note, a footnote and a link, then "いいえ"."""
    (reply,) = faq_replies(chunk_with(FAQ, SPDX_SLIDE).text)
    assert reply.question.endswith("良いですか。") and reply.word == "いいえ" and not reply.affirms
    assert reply.quote.startswith(reply.question) and reply.quote.endswith("いいえ")


def test_a_survey_charts_answer_options_are_no_reply() -> None:
    """The 2023 survey's slides ask "あなたの組織(会社) は上場していますか" and chart "はい" and "いいえ", each beside
    its share (read by OCR): that question is not answered yes."""
    chart = "あなたの組織(会社) は上場していますか\nはい\n45.9%\nいいえ\n54.1%\n"
    assert faq_replies(chart) == []
    assert faq_replies("あなたの組織(会社) は上場していますか\nはい\nいいえ\n") == []
    assert [r.word for r in faq_replies("あなたの組織(会社) は上場していますか\n\nはい\n")] == ["はい"]


@needs_realdocs
def test_an_english_yes_the_japanese_faq_answers_no_is_answered_no_with_that_slide(e5_embedder: Embedder) -> None:
    """Asked in English whether the licence text may be replaced by an SPDX-License-Identifier line, the model said
    "Yes": no English word is on the Japanese slide, so nothing refuted it, and the evidence shown never said no.
    The slide's own "いいえ" now decides, and the answer leads with "No." and that slide."""
    passages = _passages(SPDX_SLIDE, DUAL_SLIDE)
    relevance = embedding_relevance(e5_embedder)
    decision = faq_decision(SPDX_ASKED, passages, relevance)
    assert decision is not None and decision.n == 1 and not decision.reply.affirms
    reply = "Yes, you can replace the license text with an SPDX-License-Identifier line [1]."
    hits = [Hit(p.chunk, 1.0 - p.n / 10) for p in passages]
    draft = AnswerDraft(ScriptedLLM([reply]), SPDX_ASKED, hits, Settings(), relevance=relevance)
    list(draft.stream())
    answer = draft.finish()
    assert answer.model_answer == reply
    first_line, shown = answer.answer.split("\n", 1)
    assert first_line.startswith("No. The passage below says the opposite")
    assert shown.startswith(decision.reply.quote) and decision.reply.quote.endswith("いいえ")
    assert answer.citations[0].quote == decision.reply.quote and answer.citations[0].quote in passages[0].chunk.text


@needs_realdocs
def test_an_english_yes_the_japanese_faq_answers_yes_is_verified_on_that_slide(e5_embedder: Embedder) -> None:
    """Asked whether only the chosen licence of a dual-licensed binary must be included, the model's right "Yes"
    was never verified (a claim in another language than its evidence with nothing to tie it): the slide replies
    "はい" to that very question, and its question and reply are the quote."""
    passages = _passages(DUAL_SLIDE, SPDX_SLIDE)
    relevance = embedding_relevance(e5_embedder)
    checked = check_answer("Yes [1].", DUAL_ASKED, passages, relevance)
    assert checked.claims[0].status == "verified" and not checked.main_claim_failed
    (citation,) = checked.citations
    assert citation.quote.startswith("デュアルライセンスのOSSをバイナリーで配布する場合")
    assert citation.quote.endswith("はい")
    # the question restated with a denial is a "no" the slide's "はい" refutes (a live reply to this question)
    denied = check_answer(
        "When you ship a dual-licensed OSS component as a binary, it is not enough to include only the text of the "
        "license you chose [1].",
        DUAL_ASKED,
        passages,
        relevance,
    )
    assert denied.main_claim_failed and denied.contradiction is not None and denied.contradiction.affirms
    # saying more than the question asked, the rest is checked as any claim: the slide's reply does not vouch for it
    more = check_answer("Yes, but you must also publish the source code [1].", DUAL_ASKED, passages, relevance)
    assert more.claims[0].status == "unsupported"


@needs_realdocs
def test_two_slides_on_neighbouring_cases_replying_each_way_decide_nothing(e5_embedder: Embedder) -> None:
    """ "OSSが異なる2種類のライセンス…の元で配布されている場合、両方のライセンスに従う必要がありますか?" (いいえ)
    and "…両方のライセンスを遵守できる場合、デュアルライセンスのまま配布することができますか?" (はい) are as close
    in meaning to "may I redistribute it under both?" by the embedding model's cosine; the closer one is the wrong
    slide. Neither decides."""
    passages = _passages("両方のライセンスに従う必要がありますか", "デュアルライセンスのまま配布することができますか")
    asked = "If I can comply with both licenses, may I redistribute a dual-licensed OSS under both of them?"
    assert faq_decision(asked, passages, embedding_relevance(e5_embedder)) is None


@needs_realdocs
def test_a_faq_far_from_the_question_decides_nothing(e5_embedder: Embedder) -> None:
    """A yes/no question the passages' FAQ slides do not ask is left to the other checks: the slides on other cases
    reply too, and a sentence of the passages is closer to the question than their questions are."""
    passages = _passages(SPDX_SLIDE, DUAL_SLIDE)
    asked = "Is my company free of liability to its users for defects the OSS causes, if the license disclaims it?"
    assert faq_decision(asked, passages, embedding_relevance(e5_embedder)) is None


@needs_realdocs
def test_a_faq_question_that_sets_its_scene_first_is_answered_by_its_reply(e5_embedder: Embedder) -> None:
    """The slide asks "ダウンロードして取得したOSSには、他者のOSSがいくつか含まれており、その中にはライセンス条件を遵守
    できていないものがありました。このOSSを製品に組み込んで販売した場合、当社はライセンス違反になりますか?" and replies
    "はい". Its "いくつか" (some) was read as "how many", and the whole line, scene included, as the question: it asked
    no yes or no, its "はい" answered nothing, and a right "はい、…違反になります" was refused as restating the
    question. Only the sentence that asks is read, and an interrogative with か or も is an indefinite."""
    chunk = chunk_with(FAQ, "他者のOSSがいくつか含まれており")
    (reply,) = faq_replies(chunk.text)
    assert reply.word == "はい" and reply.question.endswith("当社はライセンス違反になりますか?")
    passages = [Passage(1, chunk, chunk.text)]
    relevance = embedding_relevance(e5_embedder)
    asked = (
        "ダウンロードしたOSSに他者のOSSがいくつか入っていて、その中にライセンス条件を守れていないものがありました。"
        "これを製品に組み込んで売ると、当社もライセンス違反になりますか？"
    )
    right = check_answer("はい、当社もライセンス違反になります[1]。", asked, passages, relevance)
    assert right.claims[0].status == "verified" and not right.main_claim_failed
    wrong = check_answer("いいえ、当社はライセンス違反にはなりません[1]。", asked, passages, relevance)
    assert wrong.main_claim_failed and wrong.contradiction is not None and wrong.contradiction.affirms


def test_what_a_yes_no_question_asks_is_read_in_the_clause_that_asks() -> None:
    """A condition's negation or a relative "whose" before the clause that asks does not make a question ask "what"
    or ask in the negative; "何か月" and "いくら" still ask for an amount, and "使えませんか" asks negatively."""
    scene = (
        "According to the FAQ, if downloaded OSS contains other people's OSS whose licence conditions are not being "
        "met and you sell a product with it, are you in violation?"
    )
    assert is_yes_no_question(scene) and not asks_negatively(scene)
    assert not is_yes_no_question("Whose licence applies to the bundled OSS?")
    assert is_yes_no_question("pTeXの起動時に表示されるバナーは、いつも正しいと考えてよいですか？")
    assert not is_yes_no_question("認証の有効期間は何か月ですか？")
    assert not is_yes_no_question("自己認証を取得するには、費用はいくらかかりますか？")
    assert is_yes_no_question("このOSSは製品に使えませんか？") and asks_negatively("このOSSは製品に使えませんか？")
    condition = "ソースコードを公開しない場合、バイナリだけで配布してもよいですか？"
    assert is_yes_no_question(condition) and not asks_negatively(condition)
