"""Quiz items worth taking (issue 16): well-formed false statements that change one fact, restated true ones
checked like answers, levels that ask different things, explanations that name the changed fact."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from rag.answers.facts import facts_of
from rag.answers.faithfulness import split_sentences
from rag.llm.base import Message
from rag.quiz.focus import body_of, clean, focus_sentences, usable_statement
from rag.quiz.generation import generate_quiz
from rag.quiz.perturbation import perturb
from rag.quiz.restatement import keeps_terms
from rag.quiz.validation import contradiction, copied_share, is_verbatim, untranslated_words, validate_generated
from rag.quiz.wellformed import malformed_parts
from rag.records import Chunk
from tests.scripted_llm import ScriptedLLM
from tests.unit.test_claims import chunk_with, needs_realdocs
from tests.unit.test_quiz_generation import Catalog

BACKUPS = [
    "Backup overview. Snapshots older than 45 days are pruned automatically at 03:00 local time.",
    "Restore procedure. If a restore fails, the operator must open a ticket within 2 hours.",
    "Retention limits. Each project may keep at most 20 snapshots. However, archived projects keep only 5 snapshots.",
    "Storage. Backups are written to the Kestrel Systems vault before they are copied to tape.",
    "API. Restores are started with restore_snapshot() and listed with list_snapshots(). Old snapshots are removed"
    " with prune_snapshots() by the scheduler.",
    "Encryption. Backups are encrypted with AES keys that are rotated every 90 days.",
    "Reporting. A weekly report is sent to the Orion Team every Monday.",
]
PARAPHRASES = dict(  # what a model that restates would write for each focus sentence
    [
        (
            "Snapshots older than 45 days are pruned automatically at 03:00 local time.",
            "At 03:00 local time, snapshots past 45 days of age get removed automatically.",
        ),
        (
            "If a restore fails, the operator must open a ticket within 2 hours.",
            "The operator has 2 hours to open a ticket when a restore fails.",
        ),
        (
            "Each project may keep at most 20 snapshots.",
            "A project is allowed no more than 20 snapshots.",
        ),
        (
            "Backups are written to the Kestrel Systems vault before they are copied to tape.",
            "Before copying to tape, backups go to the Kestrel Systems vault.",
        ),
        (
            "Restores are started with restore_snapshot() and listed with list_snapshots().",
            "You start a restore by calling restore_snapshot() and list them with list_snapshots().",
        ),
        (
            "Backups are encrypted with AES keys that are rotated every 90 days.",
            "The AES keys that encrypt backups get rotated every 90 days.",
        ),
        (
            "A weekly report is sent to the Orion Team every Monday.",
            "Every Monday the Orion Team gets a weekly report.",
        ),
    ]
)


class RestatingLLM(ScriptedLLM):
    """A chat model that restates each passage it is shown, from a table of restatements (the real models cannot
    run in unit tests; this one reads the prompt the way they do, behind the same Protocol)."""

    def __init__(self, restatements: Mapping[str, str], *, copies_first: bool = False) -> None:
        super().__init__(default="")
        self.restatements = restatements
        self.copies_first = copies_first  # copy each passage until told that the reply copies it

    def respond(self, messages: Sequence[Message], schema: dict[str, Any] | None) -> str:
        if schema is None:  # one passage in a conversation: the restatement as text (the passage when unknown)
            for message in reversed(messages):
                known = sorted((s for s in self.restatements if s in message.content), key=len, reverse=True)
                if message.role == "user" and known:
                    told = "copied it" in messages[-1].content
                    return messages[-1].content if self.copies_first and not told else self.restatements[known[0]]
            return messages[-1].content
        items = []
        for n, passage in re.findall(r"^\[(\d+)\] (.+)$", messages[-1].content, re.MULTILINE):
            known = sorted((s for s in self.restatements if s in passage), key=len, reverse=True)
            if known:  # the restatement of the whole passage when there is one
                items.append({"passage": int(n), "statement": self.restatements[known[0]]})
        return json.dumps({"items": items})


def test_a_false_time_is_a_time_that_exists() -> None:
    statement = "Snapshots older than 45 days are pruned automatically at 03:00 local time."
    changes = [perturb(statement, [statement], random.Random(seed)) for seed in range(40)]
    assert all(c is not None for c in changes)
    for change in changes:
        assert change is not None and not malformed_parts(change.statement)
        if change.kind == "time":
            assert re.fullmatch(r"\d\d:00", change.replacement) and change.replacement != "03:00"
    assert {c.kind for c in changes if c} >= {"time", "number"}


@pytest.mark.parametrize(
    ("statement", "kind", "well_formed"),
    [
        ("令和6年4月1日から新しい規程が適用されます。", "date", r"令和[1-9]\d?年"),
        ("The parser requires version 1.2 of the library.", "version", r"1\.[13]"),
        ("About 30 % of the budget goes to licences.", "number", r"(?:[1-9]|[1-9]\d|100) %"),
        ("The grant is capped at $1,200,000 per year.", "number", r"\$\d{1,3}(?:,\d{3})+"),
    ],
)
def test_each_kind_of_fact_changes_within_its_kind(statement: str, kind: str, well_formed: str) -> None:
    made = [perturb(statement, [statement], random.Random(seed)) for seed in range(30)]
    of_kind = [c for c in made if c and c.kind == kind]
    assert of_kind
    for change in of_kind:
        assert re.search(well_formed, change.statement) and not malformed_parts(change.statement)
        assert contradiction(change.statement, statement) is not None  # the source contradicts it in one fact


def test_names_and_identifiers_are_swapped_for_others_from_the_same_document() -> None:
    document = [" ".join(BACKUPS)]
    statement = "A restore is started by calling restore_snapshot()."
    swaps = {perturb(statement, document, random.Random(seed)) for seed in range(30)}
    identifiers = {c.replacement for c in swaps if c and c.kind == "identifier"}
    assert identifiers and identifiers <= {f.text for f in facts_of(document[0]) if f.kind == "identifier"}


def test_a_name_is_swapped_for_a_name_of_its_shape_from_the_text_never_for_a_heading() -> None:
    document = [
        "# Some Words On Spacing\nBackups go to the Kestrel Systems vault. The Orion Team reads the weekly report.",
        "SPACE\nKeys are AES keys. The API lists snapshots. Ask Ada about restores.",
    ]
    names = {perturb("The Kestrel Systems vault holds the backups.", document, random.Random(s)) for s in range(40)}
    assert {c.replacement for c in names if c and c.kind == "name"} == {"The Orion Team"}
    acronyms = {perturb("Keys are AES keys rotated every 90 days.", document, random.Random(s)) for s in range(40)}
    assert {c.replacement for c in acronyms if c and c.kind == "name"} == {"API"}


@pytest.mark.parametrize(
    ("statement", "flipped"),
    [
        ("この機能は管理者だけが利用できる。", "利用できない"),
        ("Receipts must be submitted by the employee.", "must not"),
        ("利用者は18歳以上でなければなりません。", "未満"),
        ("Keys are rotated before the backup starts.", "after"),
    ],
)
def test_polarity_and_comparisons_turn_round(statement: str, flipped: str) -> None:
    changes = [perturb(statement, [statement], random.Random(seed)) for seed in range(30)]
    assert any(c and flipped in c.statement and c.kind in ("polarity", "comparison") for c in changes)


def test_malformed_times_dates_and_eras_are_named_unless_the_document_writes_them() -> None:
    assert malformed_parts("Snapshots are pruned at 03:2 local time.") == ["03:2"]
    assert set(malformed_parts("令和0年2月30日に施行された。")) == {"2月30日", "令和0年"}
    assert malformed_parts("The job runs at 25:00 on 2024-13-01.") == ["25:00", "2024-13-01"]
    assert malformed_parts("The screen ratio is 16:9.", "Use a 16:9 screen ratio.") == []
    assert malformed_parts("令和元年5月1日、10:30に開始。") == []


def test_a_false_statement_must_differ_from_its_sentence_in_exactly_one_fact() -> None:
    sentence = "Snapshots older than 45 days are pruned automatically at 03:00 local time."
    one = contradiction("Snapshots older than 45 days are pruned automatically at 05:00 local time.", sentence)
    assert one is not None and (one.kind, one.original, one.replacement) == ("time", "03:00", "05:00")
    assert contradiction("Snapshots older than 90 days are pruned automatically at 05:00 local time.", sentence) is None
    assert contradiction(sentence, sentence) is None
    assert contradiction("Invoices are paid within 30 days.", sentence) is None  # not about the sentence


def test_intermediate_true_statements_are_restatements_checked_like_answers() -> None:
    catalog = Catalog({"backups.md": BACKUPS})
    llm = RestatingLLM(PARAPHRASES)
    quiz = generate_quiz(llm, catalog, "backups.md", count=5, level="intermediate", seed=3)
    assert "other words" in llm.calls[0][0].content
    truths = [item for item in quiz.items if item.answer_bool]
    assert truths and all(item.statement in PARAPHRASES.values() for item in truths)
    for item in quiz.items:
        evidence = " ".join(c.quote for c in item.citations)
        assert not malformed_parts(item.statement, evidence)
        assert all(c.quote in item.explanation for c in item.citations)
        if item.answer_bool:
            assert not is_verbatim(item.statement, evidence)
        else:
            change = contradiction(item.statement, evidence)
            assert change is not None and f"“{change.replacement}”" in item.explanation


def test_a_restatement_that_loses_a_fact_or_flips_polarity_is_not_a_true_item() -> None:
    wrong = dict(PARAPHRASES)
    wrong["Snapshots older than 45 days are pruned automatically at 03:00 local time."] = (
        "Snapshots older than 30 days are pruned automatically at 03:00 local time."
    )
    wrong["If a restore fails, the operator must open a ticket within 2 hours."] = (
        "If a restore fails, the operator must not open a ticket within 2 hours."
    )
    quiz = generate_quiz(
        RestatingLLM(wrong), Catalog({"backups.md": BACKUPS}), "backups.md", count=5, level="intermediate", seed=3
    )
    truths = {item.statement for item in quiz.items if item.answer_bool}
    assert not truths & {
        "Snapshots older than 30 days are pruned automatically at 03:00 local time.",
        "If a restore fails, the operator must not open a ticket within 2 hours.",
    }


def test_advanced_asks_about_limits_and_relates_two_sentences_with_two_citations() -> None:
    chunk = Chunk(chunk_id="c", source="b.md", text=BACKUPS[2])
    focus = focus_sentences([chunk], "advanced", "en")[0]
    assert focus.sentences == (
        "Each project may keep at most 20 snapshots.",
        "However, archived projects keep only 5 snapshots.",
    )
    relation = {focus.text: "Projects may keep up to 20 snapshots, but archived ones only 5."}
    catalog = Catalog({"backups.md": BACKUPS})
    quiz = generate_quiz(
        RestatingLLM({**PARAPHRASES, **relation}), catalog, "backups.md", count=5, level="advanced", seed=1
    )
    related = [item for item in quiz.items if len(item.citations) == 2]
    assert related and {c.quote for c in related[0].citations} == set(focus.sentences)


def test_beginner_and_advanced_pick_different_sentences() -> None:
    chunks = [Chunk(chunk_id=f"c{i}", source="b.md", text=t) for i, t in enumerate(BACKUPS)]
    beginner = [f.sentences for f in focus_sentences(chunks, "beginner", "en")[:2]]
    advanced = [f.sentences for f in focus_sentences(chunks, "advanced", "en")[:2]]
    assert beginner != advanced


def test_a_copy_is_a_copy_in_any_order_and_a_restatement_is_not() -> None:
    sentence = "If a restore fails, the operator must open a ticket within 2 hours."
    assert is_verbatim(sentence, sentence)
    assert is_verbatim("The operator must open a ticket within 2 hours if a restore fails.", sentence)  # reordered
    assert is_verbatim("The operator must open a ticket within 2 hours.", sentence)  # an excerpt
    assert not is_verbatim("The operator has 2 hours to open a ticket when a restore fails.", sentence)
    ja = "領収書は購入から30日以内に提出しなければならない。"
    assert is_verbatim("領収書は購入から30日以内に提出する必要がある。", ja)  # only the ending changed
    assert not is_verbatim("購入後30日以内に領収書を出す必要がある。", ja)
    assert copied_share("Backups rotate weekly.", sentence) == 0.0


@needs_realdocs
def test_real_faq_copies_and_restatements_are_told_apart() -> None:
    chunk = chunk_with(
        "ja_oss_license_misunderstandings_faq.pdf", "無償でダウンロードできるものがすべてOSSとは限りません"
    )
    sentence = next(s for s in split_sentences(chunk.text) if s.startswith("無償でダウンロード"))
    assert is_verbatim("無償でダウンロードできるものがすべてOSSとは限りません。", sentence)
    assert is_verbatim("すべてOSSとは限りません。無償でダウンロードできるものが。", sentence)
    restated = "タダで入手できるソフトウェアでも、OSSでないことがあります。"
    assert not is_verbatim(restated, sentence)


WRAPPED = (  # the FAQ's sentence as a writer that puts each printed line in a paragraph of its own exports it
    "保管期間の例としては、GNU General Public License version 3 の「最低3 年間」が挙げら\n\n"
    "れますが、注釈にある通り、顧客との契約がそれ以上の期間の保管を求めている"
    "場合などはそれに従う必要があります。"
)


@needs_realdocs
def test_a_heading_line_is_cut_off_the_sentence_it_introduces() -> None:
    chunk = chunk_with("ja_openchain_spec_kaisetsu.pdf", "2.1アクセス", "外部からのOSS ライセンスコンプライアンス")
    glued = next(s for s in split_sentences(chunk.text) if s.startswith("2.1アクセス"))
    body = body_of(glued, chunk.text)
    assert body.startswith("外部からのOSS") and body in chunk.text and usable_statement(body, "ja", chunk.text)
    wrapped = next(s for s in split_sentences(WRAPPED) if "挙げら\n\nれますが" in s)
    assert body_of(wrapped, WRAPPED) == wrapped  # a line wrapped mid-sentence is no heading


@needs_realdocs
def test_contents_entries_capital_headings_and_cut_sentences_are_not_focus_sentences() -> None:
    bill = chunk_with("en_us_bill_hr815_2024.pdf", "Ten-year statute of limitations for violations of sanctions.")
    entry = next(s for s in split_sentences(bill.text) if s.startswith("Ten-year statute of limitations"))
    assert usable_statement(entry, "en", bill.text) == ""
    assert usable_statement("EXCEPTION RELATING TO IMPORTATION OF GOODS AND SERVICES.", "en") == ""
    cut = "Such information may be submitted under title V of the National Security Act of 1947 (50 U.S.C."
    assert usable_statement(cut, "en") == ""
    labelled = "(1) IN GENERAL.—The President shall, not later than 120 days after the date, promulgate regulations."
    assert usable_statement(labelled, "en").startswith("The President shall")


@needs_realdocs
def test_a_sentence_whose_content_is_a_list_elsewhere_is_no_quiz_item() -> None:
    """An advanced TRUE item was "組織において、以下の要件が満たされていること。", copied as is: alone it states
    nothing a reader can judge. A limit written with 以下 is a fact and stays."""
    chunk = chunk_with("ja_openchain_spec_kaisetsu.pdf", "組織において、以下の要件が満たされていること。")
    pointer = next(s for s in split_sentences(chunk.text) if "以下の要件が満たされていること" in s)
    assert usable_statement(body_of(pointer, chunk.text), "ja", chunk.text) == ""
    listed = "The requirements for a conforming program are as follows: a policy and a team."
    assert usable_statement(listed, "en") == ""
    limit = "ファイル名は半角英数字で64文字以下の長さにしなければならない。"
    assert usable_statement(limit, "ja") == limit


def test_sentences_about_the_document_itself_are_no_quiz_items_and_clause_numbers_are_cut() -> None:
    about = "本項目は、OSS コミュニティへのコントリビューション(貢献)について定義されています。"
    assert usable_statement(about, "ja") == ""
    assert usable_statement("This section describes how the backup tool prunes old snapshots.", "en") == ""
    numbered = "2.1.1 第三者がOSS ライセンスコンプライアンスに関する問い合わせを行うための方法が公に示されていること。"
    assert usable_statement(numbered, "ja").startswith("第三者が")
    assert usable_statement("3.2 The scheduler prunes snapshots older than 45 days.", "en").startswith("The scheduler")
    assert usable_statement("1.5 million users signed up for the service in the first year.", "en").startswith("1.5")


def test_markup_and_control_characters_keep_a_sentence_out_of_a_quiz() -> None:
    assert usable_statement("\\kanjiskip\u200cは和文文字の間に入るグルーの量を指定する。", "ja") == ""
    assert usable_statement("The page break\x0c is inserted before every new chapter here.", "en") == ""
    assert usable_statement("The area of the circle is $\\pi r^2$ for every radius given.", "en") == ""
    assert usable_statement("Use \\textbf{bold} for the names of all the commands here.", "en") == ""
    assert usable_statement("The command \\UseName turns a string into a csname and executes it.", "en")


@needs_realdocs
def test_a_japanese_line_wrapped_mid_sentence_is_joined_without_a_space() -> None:
    sentence = next(s for s in split_sentences(WRAPPED) if "挙げら\n\nれますが" in s)
    assert "挙げられますが" in clean(sentence)


def test_a_copied_statement_is_asked_for_again_in_other_words() -> None:
    llm = RestatingLLM(PARAPHRASES, copies_first=True)
    quiz = generate_quiz(llm, Catalog({"backups.md": BACKUPS}), "backups.md", count=3, level="intermediate", seed=1)
    again = [call for call in llm.calls if len(call) > 8]
    assert again and all("copied it" in call[-1].content for call in again)
    assert again[0][-2].content in again[0][-3].content  # the copy is shown back to the model
    # with the sentence itself: the request alone was taken for a sentence to restate ("The sentence is copied.")
    assert again[0][-3].content in again[0][-1].content
    truths = [item for item in quiz.items if item.answer_bool]
    assert truths and all(item.statement in PARAPHRASES.values() for item in truths)
    assert all(isinstance(n, int) and 0 < n <= 100 for n in llm.max_tokens)  # short replies are asked for


def test_when_the_model_keeps_copying_the_copies_become_false_items_first() -> None:
    catalog = Catalog({"backups.md": BACKUPS})
    restating = {s: (p if i % 2 else s) for i, (s, p) in enumerate(PARAPHRASES.items())}  # every other one copies
    quiz = generate_quiz(RestatingLLM(restating), catalog, "backups.md", count=4, level="intermediate", seed=5)
    truths = [item for item in quiz.items if item.answer_bool]
    restated = set(PARAPHRASES.values())
    assert truths and all(item.statement in restated for item in truths)


@pytest.mark.parametrize(
    ("statement", "flipped"),
    [
        ("独自のライセンスが必要な場合は、新たにライセンスを作成するのが望ましいです。", "望ましくありません。"),
        ("ツールのコードが含まれていない限り、OSSのライセンスを適用されることはありません。", "ことがあります。"),
        ("無償でダウンロードできるものがすべてOSSとは限りません。", None),
    ],
)
def test_japanese_endings_flip_to_their_natural_opposite_or_not_at_all(statement: str, flipped: str | None) -> None:
    change = perturb(statement, [statement], random.Random(0))
    if flipped is None:
        assert change is None  # "とは限ります" is no Japanese
    else:
        assert change is not None and change.statement.endswith(flipped)
        assert contradiction(change.statement, statement) is not None


RULES_JA = [
    "経費精算の規程。出張や備品の購入で立て替えた費用の領収書は、購入から30日以内に経理部へ提出しなければならない。",
    "端末とアカウントの管理。社内システムのパスワードを3回続けて間違えると、そのアカウントは10分間ロックされます。",
    "外部記憶媒体の扱い。業務の端末では、USBメモリは情報システム部が貸し出したものだけを使用できます。",
    "出張の手続き。海外出張の申請は、出発の2週間前までに所属する部の部長の承認を得てください。",
    "働き方の選択肢。育児や介護をしていない社員の在宅勤務は、週に2日まで認められています。",
]
PIVOTED_JA = {  # sentence -> (its English translation, a Japanese restatement of that translation, terms kept)
    "出張や備品の購入で立て替えた費用の領収書は、購入から30日以内に経理部へ提出しなければならない。": (
        "Receipts for costs paid for trips or supplies must reach the accounting department within 30 days.",
        "経理部への領収書の提出は、出張や備品で立て替えた費用なら購入から30日以内が期限だ。",
    ),
    "社内システムのパスワードを3回続けて間違えると、そのアカウントは10分間ロックされます。": (
        "After three wrong passwords in a row, the account is locked for 10 minutes.",
        "社内システムでパスワードの間違いが3回続くと、アカウントに10分間のロックがかかる。",
    ),
    "業務の端末では、USBメモリは情報システム部が貸し出したものだけを使用できます。": (
        "On work computers, only USB sticks lent by the IT department may be used.",
        "業務の端末で使用できるUSBメモリは、情報システム部の貸し出したものに限られる。",
    ),
    "海外出張の申請は、出発の2週間前までに所属する部の部長の承認を得てください。": (
        "A request for a trip abroad needs your department manager's approval 2 weeks before departure.",
        "部長の承認は、海外出張なら出発の2週間前までに申請して得る必要がある。",
    ),
    "育児や介護をしていない社員の在宅勤務は、週に2日まで認められています。": (
        "Staff without childcare or nursing duties may work from home up to 2 days a week.",
        "在宅勤務が認められるのは週2日までで、育児や介護をしていない社員の場合だ。",
    ),
}


RULES_JA_TEXT = " ".join(RULES_JA)


class CopyingJapaneseLLM(ScriptedLLM):
    """A chat model that copies every Japanese sentence it is asked to restate, as the embedded 1.5B model mostly
    does, yet translates it into English and restates an English sentence in Japanese (from ``pivots``)."""

    def __init__(self, pivots: Mapping[str, tuple[str, str]]) -> None:
        super().__init__(default="")
        self.pivots = pivots

    def respond(self, messages: Sequence[Message], schema: dict[str, Any] | None) -> str:
        asked = messages[-1].content
        for sentence, (english, restated) in self.pivots.items():
            if asked.startswith("Translate") and sentence in asked:
                return english
            if english in asked:
                return restated
        return asked  # the Japanese passage, copied


def test_a_copied_japanese_sentence_is_restated_from_its_english_translation() -> None:
    llm = CopyingJapaneseLLM(PIVOTED_JA)
    quiz = generate_quiz(llm, Catalog({"rules.md": RULES_JA}), "rules.md", count=4, level="intermediate", seed=2)
    translations = [call for call in llm.calls if call[-1].content.startswith("Translate")]
    assert translations and all(any(s in call[-1].content for s in PIVOTED_JA) for call in translations)
    pivoted = [call for call in llm.calls if any(english in call[-1].content for english, _ in PIVOTED_JA.values())]
    assert pivoted and all("日本語" in call[-1].content for call in pivoted)  # told to answer in Japanese
    assert not any(s in call[-1].content for call in pivoted for s in PIVOTED_JA)  # never shown the original
    # the translation is asked after the restatement's own system prompt and examples (one cached prefix)
    assert all(call[:-1] == pivoted[0][:-1] for call in translations)
    truths = [item for item in quiz.items if item.answer_bool]
    assert truths and all(item.statement in {r for _, r in PIVOTED_JA.values()} for item in truths)
    for item in truths:
        assert not is_verbatim(item.statement, " ".join(c.quote for c in item.citations))


def test_a_round_trip_that_changes_a_number_or_swaps_the_terms_is_no_true_item() -> None:
    changed = {  # what the embedded model may write back from English: another number, loose words for the terms
        s: (e, r.replace("30日以内", "60日以内").replace("情報システム部", "IT担当"))
        for s, (e, r) in PIVOTED_JA.items()
    }
    changed["育児や介護をしていない社員の在宅勤務は、週に2日まで認められています。"] = (
        "Staff without childcare or nursing duties may work from home up to 2 days a week.",
        "子育ても介護もしない社員が家で働ける日数は、1週間につき2日が上限だ。",  # right, but in none of its terms
    )
    llm = CopyingJapaneseLLM(changed)
    quiz = generate_quiz(llm, Catalog({"rules.md": RULES_JA}), "rules.md", count=4, level="intermediate", seed=2)
    translated = [call for call in llm.calls if call[-1].content.startswith("Translate")]
    assert len(translated) >= 4  # the round trips were made
    shown = " ".join(item.statement for item in quiz.items if item.answer_bool)
    assert shown and not any(loose in shown for loose in ("60日以内", "IT担当", "家で働ける"))


@needs_realdocs
def test_a_true_restatement_may_not_add_a_sentence_its_citation_lacks() -> None:
    sentence = "SPDX のフォーマットで作成している企業もあります。"
    chunk = chunk_with("ja_openchain_spec_kaisetsu.pdf", sentence)
    focus = next(f for f in focus_sentences([chunk], "intermediate", "ja") if sentence in f.text)
    added = (  # the embedded model's round trip: the second sentence is its own invention
        "もしあれば、OSSの部品テーブルはソフトウェアの受け入れに必要な関連情報を共有するための方法として使用されるべきです。"
        " SPDX形式で作られたものは例外として扱われるべきです。"
    )
    assert validate_generated({"passage": 1, "statement": added}, [focus], [chunk]) == "true_adds_sentence"
    faithful = (
        "OSS部品表は組織の間でソフトウェアの関連情報をやりとりする方法としても期待され、SPDXの形式で作る企業もある。"
    )
    assert not isinstance(validate_generated({"passage": 1, "statement": faithful}, [focus], [chunk]), str)


@needs_realdocs
def test_a_true_restatement_keeps_the_polarity_of_its_sentence_however_few_words_they_share() -> None:
    sentence = (
        "このような問い合わせを受けた場合の適切な対応方法を理解し実行することができるようにしておくことが重要です。"
    )
    chunk = chunk_with("ja_openchain_spec_kaisetsu.pdf", "各個人が自己判断で不適切な対応をすることが無いよう")
    focus = next(f for f in focus_sentences([chunk], "intermediate", "ja") if sentence in " ".join(f.text.split()))
    # the embedded model's restatement
    flipped = "このような場合、適切な応答を強制的に求めたり、適切な応答を理解して実行する必要はありません。"
    assert isinstance(validate_generated({"passage": 1, "statement": flipped}, [focus], [chunk]), str)
    kept = "問い合わせを受けたときの正しい対応を、関係する全員が理解して実行できるようにしておくことが大切だ。"
    assert not isinstance(validate_generated({"passage": 1, "statement": kept}, [focus], [chunk]), str)


@needs_realdocs
def test_an_english_word_left_in_a_japanese_restatement_is_no_true_item() -> None:
    sentence = "OSSが商標に関するガイドライン(*)を設けている場合は、それに沿った対応が必要です。"
    chunk = chunk_with("ja_oss_license_misunderstandings_faq.pdf", sentence)
    focus = next(f for f in focus_sentences([chunk], "intermediate", "ja") if sentence in f.text)
    left = "OSSは trademarksであるため、その対応の措置を取る必要があります。"  # the model's, after the pivot
    assert untranslated_words(left, sentence) == ["trademarks"]
    assert isinstance(validate_generated({"passage": 1, "statement": left}, [focus], [chunk]), str)
    translated = "商標のガイドラインがあるOSSなら、そのガイドラインに従って対応する必要がある。"
    assert untranslated_words(translated, sentence) == []
    assert not isinstance(validate_generated({"passage": 1, "statement": translated}, [focus], [chunk]), str)


@needs_realdocs
def test_a_restatement_written_back_from_english_must_keep_the_sentences_terms() -> None:
    sentence = (
        "ただし、著作者が著作者名の記述を望まないケースも考えられますので、その場合は、著作者の意向を尊重してください。"
    )
    chunk = chunk_with("ja_oss_license_misunderstandings_faq.pdf", "著作者名の記述を望まない")
    focus = next(f for f in focus_sentences([chunk], "intermediate", "ja") if "著作者名の記述" in f.text)
    drifted = "ただし、名前を代わりに描写しない場合、作者の意図を尊重してください。"  # the embedded model's round trip
    assert not isinstance(validate_generated({"passage": 1, "statement": drifted}, [focus], [chunk]), str)
    assert not keeps_terms(drifted, sentence)  # the fact and polarity checks pass it; its terms are gone
    kept = "著作者名を記述されることを著作者が望まないなら、その意向を尊重するべきだ。"
    assert keeps_terms(kept, sentence) and not is_verbatim(kept, sentence)
