"""BM25 tokenizers: Japanese analyzers, English stemming, mixed text, identifiers, thread safety."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from rag.index.keyword_index import KeywordIndex
from rag.ingest.tokenization import AUTO_TOKENIZER, TOKENIZER_NAMES, Tokenizer, make_tokenizer, search_terms

JAPANESE = ("sudachi", "fugashi", "bigram")
MORPHOLOGICAL = ("sudachi", "fugashi")


@pytest.fixture(scope="module", params=TOKENIZER_NAMES[1:])
def tokenizer(request: pytest.FixtureRequest) -> Tokenizer:
    return make_tokenizer(request.param)


def test_auto_is_the_measured_choice_and_unknown_names_are_refused() -> None:
    assert make_tokenizer("auto").name == AUTO_TOKENIZER
    assert isinstance(make_tokenizer("auto"), Tokenizer)
    with pytest.raises(ValueError, match="allowed: auto, sudachi, fugashi, bigram, english"):
        make_tokenizer("mecab")


@pytest.mark.parametrize("name", MORPHOLOGICAL)
def test_morphological_tokenizers_give_dictionary_forms_without_particles(name: str) -> None:
    tokens = make_tokenizer(name).tokenize("昨日、東京の会社で新しい仕様書を読みました。")
    assert {"東京", "会社", "仕様", "読む"} <= set(tokens) or {"東京", "会社", "仕様書", "読む"} <= set(tokens)
    assert not {"の", "で", "を", "、", "。", "ました"} & set(tokens)


@pytest.mark.parametrize("name", MORPHOLOGICAL)
def test_a_conjugated_query_finds_the_document_with_another_form(name: str) -> None:
    tokenizer = make_tokenizer(name)
    docs = {"run": "毎朝公園を走る人が多い。", "eat": "昼に蕎麦を食べる。", "sleep": "夜は早く寝る。"}
    index = KeywordIndex.build(list(docs), [tokenizer.tokenize(text) for text in docs.values()])
    hits = index.query(tokenizer.tokenize("公園で走った"), 3)
    assert hits[0][0] == "run"


def test_bigrams_overlap_and_single_characters_stay() -> None:
    tokens = make_tokenizer("bigram").tokenize("東京都、は")
    assert tokens == ["東京", "京都", "は"]


@pytest.mark.parametrize("name", TOKENIZER_NAMES[1:])
def test_identifiers_and_versions_are_searchable_whole_and_in_parts(name: str) -> None:
    tokens = make_tokenizer(name).tokenize("TEE_Malloc関数はv1.2.3で追加された")
    assert {"tee_malloc", "tee", "malloc", "v1.2.3", "1.2.3"} <= set(tokens)


def test_latin_words_in_japanese_text_are_lowercased_and_stemmed(tokenizer: Tokenizer) -> None:
    tokens = tokenizer.tokenize("Running Studies をまとめた。getUserName も C++ も使う")
    assert {"run", "studi", "get", "user", "name", "getusername", "c++"} <= set(tokens)
    assert "Running" not in tokens


def test_full_width_text_gives_the_same_tokens_as_half_width(tokenizer: Tokenizer) -> None:
    assert tokenizer.tokenize("ＴＥＥ＿Ｍａｌｌｏｃ　ｖ１．２") == tokenizer.tokenize("TEE_Malloc v1.2")


def test_english_drops_stopwords_and_stems() -> None:
    tokens = make_tokenizer("english").tokenize("The patients were treated with the new drugs in these studies.")
    assert tokens == ["patient", "treat", "new", "drug", "studi"]


def test_a_stopword_in_capitals_names_the_row_a_question_asks_about(tokenizer: Tokenizer) -> None:
    """The "IT" of the training-case sheet's "IT Company", speaker "AS" of the persona records: as stopwords they
    matched nothing, and a question naming them found every company's row alike."""
    rows = {
        "consumer": "| Consumer Electronics Company | 営業、SE | OSSの基礎 | 年1回 |",
        "automotive": "| Automotive Company | 営業、SE | OSSの基礎 | 年1回 |",
        "it": "| IT Company | 営業、SE、開発者、管理職 | OSSの基礎 | 年1回 |",  # longest: BM25 ranks it last otherwise
    }
    index = KeywordIndex.build(list(rows), [tokenizer.tokenize(text) for text in rows.values()])
    hits = index.query(search_terms(tokenizer.tokenize("IT Companyの「OSSの基礎」はどのくらいの頻度ですか？")), 3)
    assert hits[0][0] == "it"
    assert hits[0][1] > hits[1][1]
    assert "it" not in tokenizer.tokenize("it is what it is")  # in lower case it is still a stopword


def test_english_text_gives_the_same_tokens_with_every_tokenizer() -> None:
    text = "Vitamin D deficiency increases the risk of COVID-19 infections (p < 0.05)."
    expected = make_tokenizer("english").tokenize(text)
    assert "covid-19" in expected and "vitamin" in expected
    for name in JAPANESE:
        assert make_tokenizer(name).tokenize(text) == expected, name


def test_empty_and_blank_text_give_no_tokens(tokenizer: Tokenizer) -> None:
    assert tokenizer.tokenize("") == []
    assert tokenizer.tokenize(" \n\t。、") == []


def test_sudachi_reads_text_longer_than_its_input_limit() -> None:
    sentence = "東京の会社で仕様書を読んだ。"  # 14 characters, 42 UTF-8 bytes
    tokens = make_tokenizer("sudachi").tokenize(sentence * 5000)  # 210,000 bytes: Sudachi's limit is 49,149
    assert tokens.count("仕様") + tokens.count("仕様書") == 5000


def test_tokenizers_give_the_same_tokens_from_many_threads(tokenizer: Tokenizer) -> None:
    texts = [f"第{i}章: TEE_Malloc はメモリを確保する。Sample {i} runs quickly." for i in range(200)]
    expected = [tokenizer.tokenize(text) for text in texts]
    with ThreadPoolExecutor(max_workers=4) as pool:
        assert list(pool.map(tokenizer.tokenize, texts)) == expected


def test_a_question_s_accidental_tokens_match_no_document() -> None:
    """The question "H.R. 815で、…何日間ですか？" tokenizes to a "で" (Sudachi reads it as a conjunction after the Latin
    name), "何", "出来る" and the letters "h", "r": a page about TeX engines shares them all and nothing asked."""
    tokenizer = make_tokenizer("sudachi")
    docs = {
        "tex": "pTeXで組版し、upTeXで処理し、LaTeXで書き、XeTeXで出力する。何をどこで使うかは自由である。",
        "bill": "大統領は、制裁の適用を最大180日間免除することができる。",
    }
    index = KeywordIndex.build(list(docs), [tokenizer.tokenize(text) for text in docs.values()])
    asked = tokenizer.tokenize("H.R. 815で、大統領が制裁を免除できるのは何日間ですか？")
    assert {"で", "何", "h", "r"} <= set(asked)
    assert "tex" in dict(index.query(asked, 2))  # as tokenized, the TeX page matches
    terms = search_terms(asked)
    assert [doc for doc, _score in index.query(terms, 2)] == ["bill"]
    assert {"大統領", "制裁", "免除", "日間", "815"} <= set(terms)
    assert search_terms(["何"]) == ["何"]  # a query made only of such words keeps them
