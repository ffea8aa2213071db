"""Evidence sentences: the line shown first must be the one that answers, also across languages and in tables."""

from __future__ import annotations

from collections.abc import Sequence

from rag.answers.asked_values import asks_when, asks_where, gives_date, gives_place
from rag.answers.citations import Passage
from rag.answers.evidence import SentenceRelevance, asked_identifiers, evidence_answer, rank_sentences, strongest
from rag.models.embedding import Embedder
from rag.records import Chunk
from tests.unit.test_claims import chunk_with, chunks_of, needs_realdocs

CHAT = (
    "AA: はじめまして、よろしくお願いいたします。\n"
    "AB: よろしくお願いします!最近はどこかに行かれましたか?\n"
    "AB: 夫がイギリスに駐在していたので、会いに行きました。\n"
    "AA: いいですね、ヨーロッパは憧れます。\n"
    "AA: ですね!"
)


def answer_sentence(question: str, text: str, relevance: SentenceRelevance | None = None) -> str:
    """The sentence of ``text`` ranked first as the answer to ``question`` (the evidence shown first)."""
    ranked = rank_sentences(question, [Passage(1, Chunk("c1", text, "doc.txt"), text)], relevance)
    return ranked[0][1].sentence


def _relevance(embedder: Embedder):  # type: ignore[no-untyped-def]
    def score(question: str, sentences: Sequence[str]) -> list[float]:
        return [float(v) for v in embedder.embed_passages(list(sentences)) @ embedder.embed_queries([question])[0]]

    return score


def test_an_english_question_about_a_japanese_chat_gets_the_turn_that_answers(e5_embedder: Embedder) -> None:
    question = "Whose husband was posted to the United Kingdom?"
    # no word in common: word overlap alone cannot tell the turns apart
    assert "イギリス" not in answer_sentence(question, CHAT)
    sentence = answer_sentence(question, CHAT, _relevance(e5_embedder))
    assert sentence == "AB: 夫がイギリスに駐在していたので、会いに行きました。"


def test_meaning_never_outweighs_a_row_that_holds_the_asked_words(e5_embedder: Embedder) -> None:
    table = (
        "| rule | check |\n| --- | --- |\n"
        "| L1-01 | The file format can be read by machines (Excel, CSV) |\n"
        "| L3-01 | The header row is the first line and data starts on the next line |\n"
        "|  | notes |"
    )
    question = "Which rule says the header row is the first line, with data starting on the next line?"
    sentence = answer_sentence(question, table, _relevance(e5_embedder))
    assert sentence.startswith("| L3-01 |")


def test_a_question_in_the_document_is_not_taken_for_its_answer() -> None:
    """A FAQ repeats the asker's words in its own question line; the sentence that answers is the one to show."""
    faq = (
        "OSSの貸与も配布になる?\n\n"
        "原則として、組み込み機器を譲渡するケースだけでなく、貸与する場合もOSSを配布していることになります。\n\n"
        "OSSを組み込んだ機器を貸与した場合、OSSを配布したことになりますか?"
    )  # a page of ja_oss_license_misunderstandings_faq.pdf as the index holds it
    question = "OSSが入った機器を売るのではなく貸し出すだけの場合でも、OSSを配布したことになりますか？"
    assert answer_sentence(question, faq).startswith("原則として、組み込み機器を譲渡するケースだけでなく")


def test_the_answer_after_a_question_is_preferred_to_a_sentence_elsewhere_that_shares_as_many_words() -> None:
    text = (
        "Can I ship the binary without the licence text?\n"
        "No. Every copy must carry the licence text.\n"
        "The licence text is in the file COPYING of the binary package."
    )
    assert answer_sentence("Can I ship the binary without the licence text?", text) == (
        "Every copy must carry the licence text."
    )


def test_a_merged_header_row_with_few_filled_cells_is_not_the_evidence() -> None:
    """An Excel sheet's merged header becomes a row of empty cells around two labels (the training-case sheet)."""
    table = (
        "| company | course | format | material | revised | audience | hours |\n"
        "| --- | --- | --- | --- | --- | --- | --- |\n"
        "|  | OSS検出ツール研修 |  | 教材 |  |  |  |\n"
        "| 精密機械 | OSS検出ツール研修 | 集合研修 | スライド | 未改定 | 開発者 | 2 |"
    )
    assert answer_sentence("OSS検出ツール研修の教材は改定済みですか？", table).startswith("| 精密機械 |")


@needs_realdocs
def test_a_sentence_a_pdf_wraps_before_a_bracket_is_quoted_whole(e5_embedder: Embedder) -> None:
    """The MHLW paper, exported with each printed line as a paragraph, says "自らを労働者であると主張する者を「X」、
    Xにより使用者であると主張される者を\\n\\n「Y」としており、…". Cut at that break, the evidence for "who is the party
    labelled 'Y'?" quoted "「Y」としており、固有名詞を抽象化する…" without the words that say who Y is."""
    chunk = chunk_with("ja_mhlw_worker_status_caselaw_method.pdf", "使用者であると主張される者を")
    passage = Passage(1, chunk, chunk.text)
    question = "In the MHLW material on worker-status court cases, who is the party labelled 'Y'?"
    shown = [e.sentence for _score, e in rank_sentences(question, [passage], _relevance(e5_embedder))[:5]]
    assert any("使用者であると主張される者を" in s and "「Y」としており" in s for s in shown), shown


@needs_realdocs
def test_a_field_of_the_minutes_outranks_a_mailing_list_address(e5_embedder: Embedder) -> None:
    """Asked when the 2018-06-13 meeting ended, the evidence led with "japan-wg+subscribe@lists.openchainproject.org"
    (from the spec guide's contact page, it shares "OpenChain Japan WG") and never showed the minutes' "日時:" line,
    which a title's weight had halved for being short and unpunctuated."""
    minutes = chunk_with("ja_openchain_jwg_minutes_20180613.pdf", "日時:")
    contacts = chunk_with("ja_openchain_spec_kaisetsu.pdf", "japan-wg+subscribe@lists.openchainproject.org")
    passages = [Passage(1, contacts, contacts.text), Passage(2, minutes, minutes.text)]
    question = "What time did the OpenChain Japan WG meeting on June 13, 2018 finish?"
    ranked = rank_sentences(question, passages, _relevance(e5_embedder))
    assert ranked[0][1].sentence.startswith("日時: 2018 年6 月13 日13:30-17:00"), [e.sentence for _s, e in ranked[:3]]


@needs_realdocs
def test_a_line_of_a_record_is_shown_with_the_line_naming_its_record() -> None:
    """Asked for AA's favourite food (no profile gives it), the best line is one of AP's profile: shown alone as the
    answer, "persona: 好きな食べ物はチョコレートやケーキで…" reads as AA's."""
    chunk = chunk_with("ja_realpersonachat_interlocutors_sample.jsonl", "好きな食べ物はチョコレート")
    question = "ペルソナデータで、話者AAの好きな食べ物は何と書かれていますか？"
    shown = evidence_answer(strongest(rank_sentences(question, [Passage(1, chunk, chunk.text)]), 2))
    first, second = shown.split("\n")
    assert first == "interlocutor_id: AP persona: 好きな食べ物はチョコレートやケーキで、かなり甘党である。 [1]"
    assert second.startswith("interlocutor_id: AP persona: ")
    # a chat turn says who speaks itself: nothing is put before it
    chat = Chunk("c1", CHAT, "chat.json")
    turn = strongest(rank_sentences("イギリスに駐在していたのは誰の夫？", [Passage(1, chat, CHAT)]), 1)
    assert evidence_answer(turn) == "AB: 夫がイギリスに駐在していたので、会いに行きました。 [1]"


@needs_realdocs
def test_a_long_definition_is_shown_to_its_last_words() -> None:
    """H.R. 815 defines precise geolocation information in one sentence of 330 characters whose last words are the
    answer: "… or the location of an individual or device within a range of 1,850 feet or less". Shown cut at a
    claim quote's 240 characters, the evidence stopped at "street level location information of an"."""
    chunk = chunk_with("en_us_bill_hr815_2024.pdf", "PRECISE GEOLOCATION INFORMATION", "1,850 feet")
    question = "In H.R. 815, how precisely must information reveal a location to be precise geolocation information?"
    ranked = rank_sentences(question, [Passage(1, chunk, chunk.text)])
    (definition,) = [e.sentence for _score, e in ranked if e.sentence.startswith("(B) reveals the past or present")]
    assert definition.endswith("within a range of 1,850 feet or less.")


@needs_realdocs
def test_the_line_holding_a_term_the_question_quotes_is_shown(e5_embedder: Embedder) -> None:
    """Asked who the minutes' attendee list gives as 「Individual（個人）」 rather than a company, the five sentences
    shown held the meeting's date and agenda: the line "Tomo Dote – Individual" is short and has no closing mark, so
    it counted as a title. The asker quotes the document's own word; the line holding it is the one asked about."""
    minutes = chunk_with("ja_openchain_jwg_minutes_20180613.pdf", "Tomo Dote – Individual")
    question = "2018年6月13日のOpenChain Japan WG会合の議事録の出席者一覧で、「Individual（個人）」とあるのは誰ですか？"
    ranked = rank_sentences(question, [Passage(1, minutes, minutes.text)], _relevance(e5_embedder))
    shown = [e.sentence for e in strongest(ranked, 5)]
    assert "Tomo Dote – Individual" in shown


@needs_realdocs
def test_the_row_of_what_a_question_asks_after_setting_the_scene_is_shown(e5_embedder: Embedder) -> None:
    """mTower's tables: TEE_CipherInit and TEE_CipherUpdate are "Partially covered in test suite", TEE_CipherDoFinal is
    "Not tested". Asked whether TEE_CipherDoFinal is covered too, after a sentence naming the other two, the rows of the
    scene and a dozen other "Partially covered" rows of the passages shared more of the question's words, and the asked
    row was not among the five shown."""
    name = "en_mtower_functionality_description.md"
    by_index = {c.chunk_index: c for c in chunks_of(name)}
    tables = [by_index[i] for i in (11, 8, 10, 3)]  # the passages the question was answered from, in their order
    assert "| TEE_CipherDoFinal |" in tables[0].text and all("| **GP TEE" in c.text for c in tables)
    question = (
        "In mTower, TEE_CipherInit and TEE_CipherUpdate are partially covered by the test suite. "
        "Is TEE_CipherDoFinal covered too?"
    )
    passages = [Passage(n, chunk, chunk.text) for n, chunk in enumerate(tables, 1)]
    shown = [e.sentence for e in strongest(rank_sentences(question, passages, _relevance(e5_embedder)), 5)]
    assert "| TEE_CipherDoFinal | Yes | Supports AES only. Not tested |" in shown
    # a question of one sentence singles out none of its identifiers: they are all it is about
    assert asked_identifiers("Is TEE_CipherDoFinal covered by mTower's test suite?") == []


@needs_realdocs
def test_asked_who_came_from_a_company_the_lines_naming_it_are_shown(e5_embedder: Embedder) -> None:
    """The 2018 minutes list "Satoru Ueda – Sony" and "Hiroyuki Fukuchi – Sony". Asked who attended from Sony, after a
    sentence saying Sony raised a supply-chain problem, the five lines shown were agenda items, none of them a name:
    the scene named Sony too, so the asking sentence singled out nothing. A who-question's names single out their
    lines whether or not the scene gives them."""
    minutes = chunk_with("ja_openchain_jwg_minutes_20180613.pdf", "Satoru Ueda – Sony")
    question = (
        "At the OpenChain Japan WG meeting of 13 June 2018, Sony raised a problem in the supply chain. "
        "Who attended from Sony, according to the attendee list in the minutes?"
    )
    ranked = rank_sentences(question, [Passage(1, minutes, minutes.text)], _relevance(e5_embedder))
    shown = [e.sentence for e in strongest(ranked, 5)]
    assert "Satoru Ueda – Sony" in shown and "Hiroyuki Fukuchi – Sony" in shown


@needs_realdocs
def test_a_field_on_its_own_line_is_quoted_alone() -> None:
    """The license FAQ's title page ends with three fields, one a line: "※提供元:OpenChain Japan WG(FAQ
    Subgroup)", "※協力 :オープンソースライセンス研究所" and "更新日:2024年5月9日". A break between two kanji read as
    a sentence a PDF wraps, so the last two were one sentence, and the date was quoted with the name of an institute."""
    title_page = chunk_with("ja_oss_license_misunderstandings_faq.pdf", "更新日:2024年5月9日")
    question = "「OSSライセンス関連でよくある誤解」のFAQ資料は、いつ更新された版ですか？"
    sentences = [e.sentence for _score, e in rank_sentences(question, [Passage(1, title_page, title_page.text)])]
    assert "更新日:2024年5月9日" in sentences and "※協力 :オープンソースライセンス研究所" in sentences


@needs_realdocs
def test_asked_when_the_line_giving_a_date_is_shown(e5_embedder: Embedder) -> None:
    """Asked when the license FAQ was updated, the five sentences of its title page shown were the lines naming the
    FAQ and its version, which share the question's words; "更新日:2024年5月9日" shares one. A when-question asks
    for a date, and a year or a day is what a line must give to answer it."""
    title_page = chunk_with("ja_oss_license_misunderstandings_faq.pdf", "更新日:2024年5月9日")
    question = "「OSSライセンス関連でよくある誤解」のFAQ資料は、いつ更新された版ですか？"
    ranked = rank_sentences(question, [Passage(1, title_page, title_page.text)], _relevance(e5_embedder))
    assert "更新日:2024年5月9日" in [e.sentence for e in strongest(ranked, 5)]
    assert asks_when("On what date was Edison's electric lamp patent granted?") and asks_when("何年に署名されましたか")
    assert not asks_when("When I ship a dual-licensed OSS component as a binary, is it enough to include one?")
    assert not asks_when("何年間保存しますか") and not gives_date("a 1-time extension of not more than 90 days")


@needs_realdocs
def test_asked_where_the_line_giving_a_place_is_shown(e5_embedder: Embedder) -> None:
    """Asked where the OpenChain Japan WG meeting of June 13, 2018 was held, the five sentences shown from the minutes
    were its date, its title and agenda items, which share the question's words; "場所: トヨタ自動車 名古屋オフィス"
    shares none. A where-question asks for a place, and a field giving one is what answers it."""
    minutes = chunk_with("ja_openchain_jwg_minutes_20180613.pdf", "場所: トヨタ自動車 名古屋オフィス")
    question = "Where was the OpenChain Japan WG meeting of June 13, 2018 held?"
    ranked = rank_sentences(question, [Passage(1, minutes, minutes.text)], _relevance(e5_embedder))
    assert "場所: トヨタ自動車 名古屋オフィス" in [e.sentence for e in strongest(ranked, 5)]
    assert asks_where("2018年6月13日の会合はどこで開かれましたか？") and not asks_where("Where I work, is it allowed?")
    assert gives_place("場所: トヨタ自動車 名古屋オフィス") and not gives_place("日時: 2018 年6 月13 日13:30-17:00")


@needs_realdocs
def test_a_label_ending_in_an_aside_is_not_taken_for_a_sentence(e5_embedder: Embedder) -> None:
    """Asked whether one organisation may run several OpenChain Programs, each with its own scope, the model's yes
    failed its check and the evidence shown instead opened with the label "【質問 1.h】 (Spec Ref 1.4.1)": its closing
    parenthesis read as the end of a sentence, so it counted in full. It shares the question's words and says
    nothing; the commentary's "…複数作成することが許容されており…" is on the same page."""
    label = chunk_with("ja_openchain_spec_kaisetsu.pdf", "【質問 1.h】 (Spec Ref 1.4.1)")
    commentary = chunk_with("ja_openchain_spec_kaisetsu.pdf", "複数作成することが許容されており")
    passages = [Passage(1, label, label.text), Passage(2, commentary, commentary.text)]
    question = (
        "Under OpenChain spec 2.0, can one organisation run several compliance Programs, each with its own scope?"
    )
    ranked = rank_sentences(question, passages, _relevance(e5_embedder))
    shown = [e.sentence for e in strongest(ranked, 5)]
    assert shown and not any(sentence.startswith("【質問 1.h】") for sentence in shown)
    assert any("Different Programs" in s or "複数作成" in s for s in shown)
    only_label = Chunk("c1", "【質問 1.h】 (Spec Ref 1.4.1)", "spec.pdf")
    alone = rank_sentences(question, [Passage(1, only_label, only_label.text)])
    assert [e.sentence for e in strongest(alone, 5)] == [only_label.text]  # all there is


@needs_realdocs
def test_asked_which_agency_the_line_naming_one_is_shown_first(e5_embedder: Embedder) -> None:
    """Asked in Japanese which federal agency enforces H.R. 815's ban on data brokers selling Americans' data to
    foreign adversaries, the model wrote nothing usable and the evidence shown in its place was the prohibition itself:
    its words and meaning are nearest the question's setting. "(b) ENFORCEMENT BY FEDERAL TRADE COMMISSION" names
    the agency asked for."""
    from rag.answers.asked_values import asks_which_body, gives_body

    division = chunk_with("en_us_bill_hr815_2024.pdf", "ENFORCEMENT BY FEDERAL TRADE COMMISSION")
    question = (
        "H.R. 815で、データブローカーが米国人の機微な個人データを外国の敵対国に売ることを禁じた規定は、"
        "どの連邦機関が執行しますか？"
    )
    ranked = rank_sentences(question, [Passage(1, division, division.text)], _relevance(e5_embedder))
    assert "FEDERAL TRADE COMMISSION" in ranked[0][1].sentence
    assert asks_which_body("Which agency enforces the ban?") and not asks_which_body("Which rule applies?")
    assert gives_body("The Linux Foundation hosts it.") and gives_body("厚生労働省が公表した。")
    assert not gives_body("It shall be unlawful for a data broker to sell data.")


@needs_realdocs
def test_a_turn_s_second_sentence_is_read_and_shown_with_its_speaker(e5_embedder: Embedder) -> None:
    """Asked in English whether AA has ever been to the UK, the model said yes and the evidence shown in its place
    left out "AA: 正直ですね!イギリスはまだ行ったことなくて": its second sentence, cut from the speaker, counted as a
    title, shared no word with the question (UK is イギリス) and came too late in the passage to be read by meaning."""
    from rag.answers.loanwords import heard_in
    from rag.answers.windows import speaker_of

    chat = chunk_with("ja_chat_realpersonachat_00004.json", "イギリスはまだ行ったことなくて")
    question = "In chat log 00004, has AA ever been to the UK?"
    shown = strongest(rank_sentences(question, [Passage(1, chat, chat.text)], _relevance(e5_embedder)), 5)
    turn = next(e for e in shown if e.sentence == "イギリスはまだ行ったことなくて")
    assert turn.lead_in == "AA:" and "AA: イギリスはまだ行ったことなくて [1]" in evidence_answer(shown)
    assert heard_in(question, "イギリスはまだ") == ["UK"] and heard_in("let us go", "アメリカ") == []
    line = "AA: 正直ですね!イギリスはまだ行ったことなくて"
    assert speaker_of(line, line.index("イギリス")) == "AA:" and speaker_of(line, 0) == ""
