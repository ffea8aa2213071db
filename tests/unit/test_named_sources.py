"""Questions that name a document, and questions in the other language than the document that answers them.

An English question about a Japanese table shares no word with it: keyword search gives it nothing, and English
pages with a chance word in common came first. A question that names the file ("in the Digital Agency
machine-readability rules") now finds it, and a chunk in the other language is judged by its meaning alone.
"""

from __future__ import annotations

from pathlib import Path

from test_claims import REALDOCS, chunk_with, needs_realdocs

from rag.models.embedding import Embedder
from rag.retrieval.fusion import Fused
from rag.retrieval.named_sources import (
    NAMED_SHARE,
    SourceNames,
    abbreviations,
    dated_names,
    designations,
    numbers,
)
from rag.retrieval.reordering import demote_index_pages, is_index_page
from rag.service import RagService
from rag.settings import Settings
from tests.docmaker import make_csv, make_pdf

SOURCES = [
    "docs/ja_digital_agency_machine_readability_rules.csv",
    "docs/en_us_bill_hr815_2024.pdf",
    "docs/ja_oss_training_case_analysis.xlsx",
    "docs/ja_oss_license_faq.pdf",
]


def _words(text: str) -> list[str]:
    return [w.lower().rstrip("s") for w in text.replace("-", " ").replace("'", " ").split()]


def _indexed(docs: Path, tmp_path: Path, models_dir: Path, embedder: Embedder) -> RagService:
    """A service over a fresh index of ``docs``."""
    service = RagService(Settings(storage_dir=tmp_path / "storage", model_dir=models_dir), embedder=embedder)
    service.index_paths([docs])
    return service


def test_a_question_names_the_file_whose_name_words_it_uses() -> None:
    names = SourceNames(_words)

    named = names.named("v1", lambda: SOURCES, _words("Which rule in the Digital Agency machine-readability rules?"))
    about_training = names.named("v1", lambda: SOURCES, _words("In the training case analysis, which course?"))
    unnamed = names.named("v1", lambda: SOURCES, _words("Which rule says the header row comes first?"))

    assert named == {"docs/ja_digital_agency_machine_readability_rules.csv": 1.0}
    assert list(about_training) == ["docs/ja_oss_training_case_analysis.xlsx"]
    assert about_training["docs/ja_oss_training_case_analysis.xlsx"] >= NAMED_SHARE
    assert unnamed == {}  # "rule" alone is a small share of that name


def test_a_word_every_file_name_uses_names_no_file() -> None:
    names = SourceNames(_words)
    sources = ["ja_manual_install.pdf", "ja_manual_network.pdf", "ja_manual_backup.pdf"]

    assert names.named("v1", lambda: sources, _words("What does the manual say?")) == {}
    assert list(names.named("v1", lambda: sources, _words("the network manual"))) == ["ja_manual_network.pdf"]


def test_letters_the_tokenizer_cuts_from_a_name_do_not_dilute_it() -> None:
    """``ja_w3c_jlreq_line_composition.html``: the tokenizer reads "w3c" as w3c, w, 3 and c. A question's search terms
    never hold a single letter, so "the simplified line composition rules" covered 2 of 7 name words, not 2 of 4,
    and the guide it named was not searched: the pTeX manual answered an English question about bunsetsu."""
    from rag.ingest.tokenization import make_tokenizer

    tokenize = make_tokenizer("sudachi").tokenize
    names = SourceNames(tokenize)
    sources = [*SOURCES, "docs/ja_w3c_jlreq_line_composition.html", "docs/ja_ptex_manual.pdf"]
    question = "According to the simplified line composition rules, who first used the term bunsetsu (文節)?"

    assert {"w", "c"} <= set(tokenize("w3c"))
    assert list(names.named("v1", lambda: sources, tokenize(question))) == ["docs/ja_w3c_jlreq_line_composition.html"]


def test_a_document_s_designation_names_the_file_that_writes_it_without_dots_and_spaces() -> None:
    """A person writes the bill as "H.R. 815"; its file is ``en_us_bill_hr815_2024.pdf``."""
    from rag.ingest.tokenization import make_tokenizer

    tokenize = make_tokenizer("sudachi").tokenize
    names = SourceNames(tokenize)
    question = "H.R. 815で、大統領は制裁の適用を最大何日間免除できますか？"

    assert names.named("v1", lambda: SOURCES, tokenize(question)) == {}  # its tokens alone: h, r, 815, h.r
    named = names.named("v1", lambda: SOURCES, [*tokenize(question), *designations(question)])
    assert list(named) == ["docs/en_us_bill_hr815_2024.pdf"]
    assert designations("What does RFC 7231 say about ISO-9001?") == ["rfc7231", "rfc", "iso9001", "iso"]
    assert designations("version 3 of the manual, the 2023 survey, June 13") == []


def test_the_names_follow_the_index_version() -> None:
    names = SourceNames(_words)
    question = _words("the backup guide")

    assert names.named("v1", lambda: ["install_guide.md", "network_guide.md"], question) == {}
    assert list(names.named("v2", lambda: ["install_guide.md", "backup_guide.md"], question)) == ["backup_guide.md"]


RULES = [
    ["ID", "確認項目", "説明"],
    ["L1-01", "ファイル形式は機械が直接読み取れるExcelやCSV等となっているか", "PDFやWordは人が読むための形式です。"],
    ["L1-02", "1セル1データとなっているか", "一つのセルに複数のデータを入れないこと。"],
    ["L3-01", "表題行が1行目にあり、データが2行目から始まっているか", "見出しを先頭に置き、直後からデータ。"],
    ["L3-02", "セルの結合をしていないか", "結合したセルは機械では正しく読めません。"],
]

ENGLISH = {
    "en_latex_guide.txt": "A LaTeX line break inside a paragraph uses \\\\ and the first line of a paragraph is "
    "indented. The header of each page shows the section title; a rule draws a horizontal line.",
    "en_us_bill.txt": "SEC. 3. The rule applies to each file an agency keeps. Data shall be kept for five years, "
    "and the first report is due right after the date of enactment.",
    "en_mtower_readme.txt": "The header file tee_client_api.h declares every function. Each line of the "
    "log file starts with the time; the first line says which version is running.",
}


def test_an_english_question_naming_a_japanese_table_finds_the_row_that_answers_it(
    tmp_path: Path, models_dir: Path, e5_embedder
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    make_csv(docs / "ja_digital_agency_machine_readability_rules.csv", RULES[0], RULES[1:])
    for name, text in ENGLISH.items():  # English pages sharing words, not meaning, with the question
        (docs / name).write_text(text, encoding="utf-8")
    service = _indexed(docs, tmp_path, models_dir, e5_embedder)

    hits = service.search(
        "Which rule ID in the Digital Agency machine-readability rules says the header row should be the very "
        "first line of the file, with the data beginning on the line right after it?"
    )

    assert hits[0].chunk.source == "docs/ja_digital_agency_machine_readability_rules.csv"
    assert "L3-01" in hits[0].chunk.text


def test_a_question_names_a_document_by_the_title_it_gives_itself(
    tmp_path: Path, models_dir: Path, e5_embedder
) -> None:
    """Scanned or exported files are often called ``scan_0412.pdf``; people name them by their title. Asked what
    「社内OSS利用ガイドライン」 requires, the guideline (10 days) comes first, not the outsourcing handbook whose
    sentence shares more of the question's words (30 days)."""
    from rag.ingest.chunking import DOC_TITLE

    docs = tmp_path / "docs"
    docs.mkdir()
    make_pdf(docs / "scan_0412.pdf", ["利用の届出は、開始の10日前までに担当部署へ提出する。"],
             metadata={"title": "社内OSS利用ガイドライン"})  # fmt: skip
    make_pdf(docs / "scan_0413.pdf", ["社内でOSSを利用する申請は、利用開始の30日前までに必要です。"],
             metadata={"title": "外部委託開発の手引き"})  # fmt: skip
    service = _indexed(docs, tmp_path, models_dir, e5_embedder)
    assert service.chunks_of("docs/scan_0412.pdf")[0].extra[DOC_TITLE] == "社内OSS利用ガイドライン"

    hits = service.search(
        "「社内OSS利用ガイドライン」では、OSSを社内で利用する申請は利用開始の何日前までに必要ですか？"
    )

    assert hits[0].chunk.source == "docs/scan_0412.pdf"
    other = service.search("「外部委託開発の手引き」では、OSSを社内で利用する申請は利用開始の何日前までに必要ですか？")
    assert other[0].chunk.source == "docs/scan_0413.pdf"  # the name decides, not the sentence


def test_a_question_dates_minutes_by_the_day_their_file_name_gives() -> None:
    """Minutes are filed as ``wg_minutes_20180613.pdf``; a person asks about "the 2018年6月13日 meeting"."""
    assert dated_names("2018年6月13日の会合と、２０１８年７月１１日の会合") == ["20180613", "20180711"]
    assert dated_names("At the June 13th, 2018 meeting, or on 13 June 2018, or 2018-06-13") == ["20180613"]
    assert dated_names("version 1.2.3.4, the 2023 survey, 2018年13月40日") == []
    names = SourceNames(_words)
    sources = ["docs/wg_minutes_20180613.pdf", "docs/wg_minutes_20180711.pdf", *SOURCES]
    question = "Who attended the meeting on June 13, 2018?"

    assert names.named("v1", lambda: sources, _words(question)) == {}
    assert names.named("v1", lambda: sources, [*_words(question), *dated_names(question)]) == {
        "docs/wg_minutes_20180613.pdf": 1.0  # the day alone names it in full
    }


def test_an_abbreviation_only_one_file_s_name_holds_names_that_file() -> None:
    """Asked in English which magazines "the MHLW court cases" were drawn from, the question shares one word of the
    five of ``ja_mhlw_worker_status_caselaw_method.pdf``'s name, too few to name it, and no word of its Japanese text:
    the search found H.R. 815. An abbreviation written in capitals that one file's name alone holds names that file;
    one that several names hold (OSS) names none of them."""
    assert abbreviations("Which magazines were the MHLW court cases drawn from, says the W3C or OSS guide?") == [
        "mhlw",
        "w3c",
        "oss",
    ]
    assert abbreviations("Is TEE_Panic in mTower? Was it MHLW's?") == ["tee", "mhlw"]
    names = SourceNames(_words)
    sources = ["docs/ja_mhlw_worker_status_caselaw_method.pdf", "docs/ja_oss_pamphlet.docx", *SOURCES]
    question = "Besides the reference case collection, which magazines were the MHLW court cases drawn from?"

    assert names.named("v1", lambda: sources, _words(question)) == {}
    assert names.named("v1", lambda: sources, _words(question), abbreviations=abbreviations(question)) == {
        "docs/ja_mhlw_worker_status_caselaw_method.pdf": 1.0
    }
    shared = "Does the OSS guidance say anything on it?"
    assert names.named("v1", lambda: sources, _words(shared), abbreviations=abbreviations(shared)) == {}


def test_a_number_only_one_file_s_name_holds_names_that_file() -> None:
    """Asked on what date "チャット00004" took place, the search found the persona file (its text says "chat" on
    every record) and not ``ja_chat_realpersonachat_00004.json``: the tokenizer cuts 00004 into digits, which name
    nothing. A number of three digits or more that one file's name alone holds names that file."""
    assert numbers("チャット００００４の会話は、何年何月何日？ 2 or 15 items") == ["00004"]
    names = SourceNames(_words)
    sources = ["docs/ja_chat_realpersonachat_00004.json", "docs/ja_realpersonachat_interlocutors_sample.jsonl"]
    question = "チャット00004の会話は、何年何月何日に行われたものですか？"
    assert names.named("v1", lambda: sources, _words(question)) == {}
    assert names.named("v1", lambda: sources, _words(question), numbers=numbers(question)) == {
        "docs/ja_chat_realpersonachat_00004.json": 1.0
    }
    assert names.named("v1", lambda: sources, _words("チャット00005"), numbers=["00005"]) == {}


MINUTES = {
    "wg_minutes_20180613.pdf": ["出席者: 山田 太郎 (A社)、佐藤 花子 (B社)、渡辺 歩 (C社)。議題: OSS教育の事例共有。"],
    "wg_minutes_20180711.pdf": ["出席者: 鈴木 一郎 (D社)、田中 次郎 (E社)。議題: OSS教育の事例共有。"],
}


def test_a_question_naming_a_guide_and_a_meeting_reads_both(tmp_path: Path, models_dir: Path, e5_embedder) -> None:
    """Asked whether the guide's author attended the 2018年6月13日 meeting, the answer needs the guide and those
    minutes. Named in full alike, the guide's passages (which share the question's words) filled the first places."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, pages in MINUTES.items():
        make_pdf(docs / name, pages)
    guide = [
        "はじめに: 本書は、社内でOSSを利用する際のガイドラインです。作成者は渡辺 歩です。",
        "OSSを利用する会合や申請の前に、作成者が定めた手順を確認してください。",
        "本ガイドラインの作成者は、OSS教育の会合で事例を共有しています。",
    ]
    make_pdf(docs / "scan_0412.pdf", guide, metadata={"title": "社内OSS利用ガイドライン"})
    service = _indexed(docs, tmp_path, models_dir, e5_embedder)

    hits = service.search("「社内OSS利用ガイドライン」の作成者は、2018年6月13日の会合に出席していましたか？", top_k=3)

    assert {hit.chunk.source for hit in hits[:2]} == {"docs/scan_0412.pdf", "docs/wg_minutes_20180613.pdf"}
    assert "docs/wg_minutes_20180711.pdf" not in {hit.chunk.source for hit in hits[:2]}


SURVEY_DECK = [
    "Acme社員アンケート結果\n\nMay 10, 2024 Acme Japan HR team",
    "あなたの職場ではテレワークが認められていますか\n\nはい 61.5%\n\nいいえ 38.5%",
    "Acmeの行動規範を研修で学びましたか\n\nはい 70.0%\n\nいいえ 30.0%",
    "あなたの組織(会社)は上場していますか\n\n17 (45.9%)\n\nはい 45.9%",
    "通勤時間はどれくらいですか\n\n30分未満 22.0%\n\n30分から1時間 59.6%\n\n1時間以上 18.4%",
    "昼食はどこでとりますか\n\n社員食堂 40.2%\n\n自席 35.1%\n\n外食 24.7%",
]


def test_a_question_naming_a_survey_finds_the_slide_that_answers_though_the_slide_never_names_it(
    tmp_path: Path, models_dir: Path, e5_embedder
) -> None:
    """Asked in English what share of the respondents of "the 2024 Acme staff survey" said their company is listed,
    the title page (the survey's name and date) and the slide that shares the brand word ("Acmeの行動規範…") came
    before the slide that answers, which never names the survey. Each slide is now embedded under the deck's title
    (``chunking.embedded_text``): the answer is among the first two passages, ahead of the brand word's slide."""
    docs = tmp_path / "docs"
    docs.mkdir()
    make_pdf(docs / "ja_staff_survey_2024.pdf", SURVEY_DECK, metadata={"title": "Acme社員アンケート結果"})
    service = _indexed(docs, tmp_path, models_dir, e5_embedder)

    hits = service.search(
        "In the 2024 Acme staff survey, what share of respondents said their company is publicly listed?"
    )
    texts = [hit.chunk.text for hit in hits]

    answering = next(i for i, text in enumerate(texts) if "上場" in text)
    assert answering < 2
    assert answering < next(i for i, text in enumerate(texts) if "行動規範" in text)


W3C_GUIDE = "ja_w3c_jlreq_line_composition.html"


@needs_realdocs
def test_an_english_question_quoting_a_japanese_term_finds_the_section_that_defines_it(
    tmp_path: Path, models_dir: Path, e5_embedder
) -> None:
    """Asked "who first used the term bunsetsu (文節)?", the W3C guide's section defining 文節 came third, under two
    sections its cosine is level with, and out of the answer's context: its one matching word weighed against
    English pages matching the question's other words. 文節 is all a Japanese page can match."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / W3C_GUIDE).write_bytes((REALDOCS / W3C_GUIDE).read_bytes())
    (docs / "en_style_notes.txt").write_text(
        "The rules below were first used for the term list. Who used which term first is noted in the rules.",
        encoding="utf-8",
    )
    service = _indexed(docs, tmp_path, models_dir, e5_embedder)

    question = "According to the simplified line composition rules, who first used the term bunsetsu (文節)?"
    hits = service.search(question)

    assert hits[0].chunk.text.startswith("文節とは") and "橋本進吉が最初に使用した" in hits[0].chunk.text


PAMPHLET = [
    "OSSコンプライアンスの手引き\n\nOSSを利用する会社は、ライセンスを守る体制を作りましょう。",
    "ライセンスの確認\n\nOSSを製品に組み込むときは、ライセンスの条件を確認しましょう。ライセンスが分からないときは相談窓口に聞きましょう。",
    "修正したら提供しよう\n\nOSSのバグを修正した場合は、もとのOSSの開発者へ提供することをお勧めします。提供すれば、自社で修正を保守する手間が省けます。",
    "管理の体制\n\nどの製品にどのOSSを使ったかを記録し、会社として一元管理しましょう。",
]
LICENSE_FAQ = [
    "よくある誤解集\n\n本資料は、OSSライセンスについてのよくある誤解をまとめたものです。",
    "改変したら、コミュニティへ提供する必要あり?\n\nライセンスによりますが、多くのライセンス条件では、改変したソースコードの"
    "コミュニティへの提供は任意であり、義務とはされていません。",
    "著作権表示は消してよい?\n\nいいえ。多くのライセンスは、著作権表示を残すことを条件にしています。",
]


def test_a_question_naming_a_document_for_its_scene_still_reads_the_passage_that_answers_it(
    tmp_path: Path, models_dir: Path, e5_embedder
) -> None:
    """The question names the pamphlet to say what it has read, then asks what licences in general require: the
    FAQ's answer, the best passage by meaning, was lifted below every page of the named pamphlet and out of the
    two passages the context had room for."""
    docs = tmp_path / "docs"
    docs.mkdir()
    make_pdf(docs / "oss_compliance_pamphlet.pdf", PAMPHLET)
    make_pdf(docs / "license_misunderstandings.pdf", LICENSE_FAQ)
    service = _indexed(docs, tmp_path, models_dir, e5_embedder)

    hits = service.search(
        "The OSS compliance pamphlet encourages giving bug fixes back to the original OSS developers. Do most OSS "
        "licences actually require you to hand modified source code back to the community?"
    )

    assert hits[0].chunk.source == "docs/oss_compliance_pamphlet.pdf"
    assert any("任意" in hit.chunk.text for hit in hits[:2])


@needs_realdocs
def test_an_index_page_gives_way_to_a_page_that_answers_by_meaning() -> None:
    """Asked in Japanese why Edison's patent uses platinum leading-wires, pages of the pTeX manual's index (a command
    name, dot leaders, a page number), close to every question by meaning, filled four of the five passages."""
    index = chunk_with("ja_ptex_manual.pdf", "\\uptexversion . . .")
    patent = chunk_with("en_scan_edison_patent_us223898.pdf", "Platina can only")
    candidates = [
        Fused(index.chunk_id, 0.30, 0.0, 1, 0.80, None, None),
        Fused(patent.chunk_id, 0.28, 0.0, 2, 0.79, None, None),
    ]

    ranked = demote_index_pages(candidates, {index.chunk_id: index, patent.chunk_id: patent})

    assert is_index_page(index.text)
    assert not is_index_page(patent.text)
    assert [f.chunk_id for f in ranked] == [patent.chunk_id, index.chunk_id]
