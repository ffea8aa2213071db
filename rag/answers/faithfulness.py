"""How well one text is supported by another: content tokens, sentences, citation markers.

Support is lexical on purpose: it runs without a model, is explainable ("these words are not in the passage")
and is the same measure the quiz uses. English text becomes lower-cased content words (stop words dropped,
a plural ``s`` trimmed); Japanese and other CJK text becomes character bigrams, which need no dictionary.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Set

from rag.ingest.lists import is_list_item

SUPPORT_THRESHOLD = 0.4
"""Share of a sentence's content tokens that must appear in a cited passage for the sentence to count as supported."""

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f々〆ヶ"
_CJK_RUN = re.compile(f"[{_CJK}]+")
# one script at a time: kanji, katakana (with ー and half-width forms), hiragana
_KANJI = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff々〆ヶ"
_KATAKANA = "\u30a0-\u30ffー\uff66-\uff9f"
_HIRAGANA = "\u3040-\u309f"
_SCRIPT_RUN = re.compile(f"[{_KANJI}]+|[{_KATAKANA}]+|[{_HIRAGANA}]+")
_HIRAGANA_RUN = re.compile(f"[{_HIRAGANA}]+")
_KATAKANA_RUN = re.compile(f"[{_KATAKANA}]+")
SHORT_KATAKANA_WORD = 4
"""Katakana runs up to this long are one word (モード, コード, ルビ, テーブル): their tokens match only the same
word; longer ones are compounds (ワードスペース, フォントメトリック) and give bigrams."""
_LATIN_WORD = re.compile(r"[a-z0-9]+(?:[.'][a-z0-9]+)*")
_MARKER = re.compile(r"\[\d+\]")
_ABBREVIATION = "".join(
    rf"(?<!(?<![A-Za-z]){a}\.)" for a in ("[A-Za-z]", "pp", "No", "vs", "Mr", "Ms", "Dr", "St", "Fig", "Sec", "Art")
)
"""No sentence ends after an initial or a common abbreviation: "H.R. 815", "U.S. Senate", "e.g. the", "No. 5", nor
after one written straight after Japanese text ("データのp. 70に記載されています", where ``\b`` sees no word start)."""
JA_FULL_STOP = r"(?<=[\u3040-\u30ff\u3400-\u9fff)）」』][.．])(?=[^\s.．)）」』,，])"
"""A period that ends a Japanese sentence with the next one right after it ("…を禁止する.以下の点に注意.",
"…確保しない).“行頭行末そろえ”…": manuals typeset in TeX and W3C's jlreq write . and , for 。 and 、)."""
_ASCII_MARK_END = r"(?<=[!?])(?:(?<=[^\x00-\x7f][!?])|(?![!-Z\\-~]))\s*"
"""Where an ASCII ! or ? ends a sentence: after Japanese text ("です!OSSは"), or before a space, the end, Japanese text
or a citation mark; not inside code, where a Latin letter or a sign follows ("\\NewDocumentCommand\\\\{!s !o}" was cut
into three claims, none of them checked)."""
_SENTENCE_END = re.compile(
    rf"(?<=[。！？])\s*|{_ASCII_MARK_END}|{JA_FULL_STOP}|(?<=[.;]){_ABBREVIATION}\s+(?=[\"'(\[A-Z0-9\u3040-\u9fff])"
    r"|(?<=(?<![A-Za-z])No\.)\s+(?=[\"'(\[A-Z\u3040-\u9fff])"  # "No. It is not" ends a sentence, "No. 5" does not
    r"|[ \t\u3000]*\n\s*(?=[•▪◦●・])"  # a bulleted line is an item of its own ("…types m, r or R.\n\n• The …")
)
_LINE_BREAK = re.compile(r"[ \t\u3000]*\n\s*")
_JA_OPENING = "「『（【〈《"
_FIELD_LINE = re.compile(r"[^\s:：、。「」()（）]{1,8}[ \t]*[:：][ \t\u3000]*[^\s:：]")
"""A line that opens with a field's label and its value ("更新日:2024年5月9日", "場所: トヨタ自動車"): a field of its
own, not the rest of a wrapped sentence. A label alone on its line ("出席者:") heads what follows it."""
_JA_OPEN_ENDING = frozenset("をにへやがのとはもで、，")
"""What no Japanese sentence ends with: a particle or a comma ("…その代わりに\\kanjiskip や⏎\\xkanjiskip が…")."""
_JA_LETTER = re.compile("[\u3041-\u30fa\u30fc-\u30ff\u3400-\u4dbf\u4e00-\u9fff々ー]")
_STOP_WORDS = frozenset(
    "a an the and or but if then than of to in on at by for with from into onto as is are was were be been being "
    "it its this that these those there here which who whom whose what when where why how not no nor so such "
    "do does did done has have had having can could may might must shall should will would i you he she we they "
    "me him her us them my your his our their also only just very more most some any all each both other about "
    "over under after before between during per via vs etc".split()
)
_QUESTION_END = re.compile(r"(\?|？|か。?|ですか|ますか|でしょうか)\s*$")
_QUESTION_START = re.compile(r"^(is|are|does|do|did|can|what|which|who|when|where|why|how)\b", re.IGNORECASE)
_JA_INTERROGATIVE = re.compile(
    "(?:何|なに|なん|いくつ|どこ|どれ|どう|誰|だれ|いつ)(?!か(?![月ヶ]))(?!も)|いくら|どの|どんな|どちら|なぜ|幾"
)
"""Japanese words that ask for a thing rather than a yes; not as indefinites, which take か or も ("いくつか含まれて
おり", "いつも正しい", "使えるかどうか"), while "何か月" asks how many months and "いくらかかりますか" how much."""
_EN_INTERROGATIVE = re.compile(
    r"\b(?:what|which|who|whom|whose|how|(?:when|where|why)(?!\s+(?:i|you|we|they|he|she|it|a|an|the|this|that|my|our|your)\b))\b",
    re.IGNORECASE,
)
_EN_RELATIVE = frozenset({"which", "who", "whom", "whose"})
_EN_PREPOSITIONS = frozenset(
    "about above across after against among at before behind below beside between by during for from in inside into "
    "near of on onto over since through to toward towards under until upon with within without".split()
)
_WORD_BEFORE = re.compile(r"([A-Za-z0-9'’]+)\s+$")
_EN_AUXILIARY_OPENING = re.compile(
    r"(?:^|[,;:]\s*)(?:is|are|was|were|does|do|did|can|could|will|would|should|shall|may|might|must|has|have|had)\b",
    re.IGNORECASE,
)
_DONT_KNOW = re.compile(
    r"(わかりません|分かりません|不明です|見つかりません|記載がありません|記載されていません|書かれていません|"
    r"i (?:do not|don't) know|not (?:stated|mentioned|found|covered) in|no (?:information|basis)|cannot find)",
    re.IGNORECASE,
)


def normalize(text: str) -> str:
    """NFKC-normalize and collapse whitespace (the form every comparison uses)."""
    return " ".join(unicodedata.normalize("NFKC", text).split())


_QUOTED = re.compile(r"「([^「」]+)」|『([^『』]+)』|“([^“”]+)”|\"([^\"]+)\"")
_GLOSS = re.compile(r"[(（][^()（）]*[)）]$")
"""A reading or translation the asker adds after a quoted term: 「Individual（個人）」 quotes "Individual"."""


def quoted_phrases(text: str) -> list[str]:
    """The phrases ``text`` quotes (「…」, 『…』, “…”, "…"), as written, in order."""
    return [next(group for group in found.groups() if group) for found in _QUOTED.finditer(text)]


def holds_phrase(text: str, phrase: str) -> bool:
    """Whether ``text`` holds a quoted ``phrase`` whole (widths, case and spaces aside), or the phrase without the gloss
    the asker added after it."""
    held = "".join(normalize(text).casefold().split())
    whole = "".join(normalize(phrase).casefold().split())
    bare = _GLOSS.sub("", whole)
    return bool(whole) and (whole in held or (bool(bare) and bare in held))


def latin_part(text: str) -> str:
    """``text`` with its runs of Japanese script blanked: what it writes in Latin letters (and digits)."""
    return _CJK_RUN.sub(" ", text)


def content_tokens(text: str) -> set[str]:
    """Content tokens of ``text``: English words (no stop words) and CJK character bigrams.

    Bigrams stay within one script (kanji, katakana), so "オーストラリアのものです" gives the bigrams of
    オーストラリア and none of the particles and endings around it; hiragana counts only when nothing else does. A
    short katakana word is one token: the bigram ード made "内部コード" hold half of "数式モード". The pairs of an
    interrogative (何年, 何件) are left out.

    Args:
        text: any text; citation markers like ``[2]`` are ignored.

    Returns:
        The set of tokens; a lone CJK character counts as its own token.
    """
    text = _comparable(text)
    tokens: set[str] = set()
    hiragana: set[str] = set()
    for run in _SCRIPT_RUN.findall(text):
        # an interrogative (何年, 何件, 何月何日) asks: no evidence holds it, so it is no word to find there
        found = [token for token in run_tokens(run) if "何" not in token]
        (hiragana if _HIRAGANA_RUN.fullmatch(run) else tokens).update(found)
    for word in _LATIN_WORD.findall(latin_part(text)):
        word = word.removesuffix("'s")  # "the bill's enactment" is about the bill
        if word in _STOP_WORDS or (len(word) < 2 and not word.isdigit()):
            continue
        tokens.add(word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word)
    return tokens or hiragana  # particles and endings count only in a text that has nothing else


def script_runs(text: str) -> list[str]:
    """The runs of one CJK script (kanji, katakana, hiragana) in ``text``, in order, as ``content_tokens`` reads
    them (normalized, citation markers left out)."""
    return _SCRIPT_RUN.findall(_comparable(text))


def _comparable(text: str) -> str:
    """``text`` as tokens are read from it: normalized, lower-cased, citation markers left out."""
    return _MARKER.sub(" ", normalize(text).lower())


def run_tokens(run: str) -> list[str]:
    """The content tokens of one script run, in order: its character bigrams (a lone character is its own token);
    a short katakana word is one word, so its tokens match only the same word (モード and コード share no part)
    while weighing what its bigrams did."""
    if len(run) == 1:
        return [run]
    if len(run) <= SHORT_KATAKANA_WORD and _KATAKANA_RUN.fullmatch(run):
        return [f"{run}#{i}" for i in range(len(run) - 1)]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def token_words(tokens: Set[str]) -> set[str]:
    """``tokens`` with a short katakana word's tokens ("チャット#0", "チャット#1", …) counted as the one word they
    are: how many of a question's words a text holds, not how many characters."""
    return {token.split("#", 1)[0] for token in tokens}


def is_katakana(run: str) -> bool:
    """Whether a script run (``script_runs``) is katakana."""
    return bool(_KATAKANA_RUN.fullmatch(run))


def support(claim: str, evidence: str, *, ignored: Set[str] = frozenset()) -> float:
    """Share of ``claim``'s content tokens found in ``evidence`` (0.0 when the claim has none), not counting the
    ``ignored`` tokens unless the claim has no others."""
    claim_tokens = content_tokens(claim)
    claim_tokens = (claim_tokens - ignored) or claim_tokens
    if not claim_tokens:
        return 0.0
    return len(claim_tokens & content_tokens(evidence)) / len(claim_tokens)


def similarity(a: str, b: str) -> float:
    """Symmetric token overlap (Dice coefficient) of two texts."""
    ta, tb = content_tokens(a), content_tokens(b)
    if not ta or not tb:
        return 0.0
    return 2 * len(ta & tb) / (len(ta) + len(tb))


def split_sentences(text: str) -> list[str]:
    """Split text into sentences (Japanese 。！？, English . ! ? ; and line breaks), stripped, empties dropped."""
    sentences: list[str] = []
    for piece in _SENTENCE_END.split(text):
        sentences += [s.strip() for s in _split_lines(piece) if s and s.strip()]
    return sentences


def punctuated_sentences(text: str) -> list[str]:
    """``text`` cut where its punctuation ends a sentence, not at its line breaks (a slide or a wrapped PDF line
    breaks mid-sentence), stripped, empties dropped."""
    return [piece.strip() for piece in _SENTENCE_END.split(text) if piece and piece.strip()]


def _split_lines(text: str) -> list[str]:
    """``text`` cut at its line breaks, except a break inside Japanese text.

    A PDF or slide wraps Japanese mid-sentence ("…取\n得する", even "であれ\n\nば、", "主張される者を\n\n「Y」と"): a
    break with a kana or kanji (or 、) before it and a kana, a kanji or an opening bracket after it joins the lines,
    unless the next line opens with a field's label and its value ("更新日:2024年5月9日"); a bullet (・), a field or
    anything else after it starts anew, unless the line ends in a particle no sentence ends with
    ("…その代わりに\\kanjiskip や" goes on with "\\xkanjiskip が挿入されることは禁止していない.").
    """
    pieces: list[str] = []
    start = 0
    for match in _LINE_BREAK.finditer(text):
        before, after = text[match.start() - 1 : match.start()], text[match.end() : match.end() + 1]
        joins = _JA_LETTER.match(after) or after in _JA_OPENING
        if (before == "、" or _JA_LETTER.match(before)) and joins and not _FIELD_LINE.match(text, match.end()):
            continue
        if before in _JA_OPEN_ENDING and after and not is_list_item(text[match.end() :]):
            continue  # a line ending in a particle goes on, whatever starts the next ("\\xkanjiskip が…")
        pieces.append(text[start : match.start()])
        start = match.end()
    pieces.append(text[start:])
    return pieces


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each sentence of :func:`split_sentences` within ``text``, in order."""
    spans: list[tuple[int, int]] = []
    position = 0
    for sentence in split_sentences(text):
        start = text.find(sentence, position)
        if start < 0:
            continue
        spans.append((start, start + len(sentence)))
        position = start + len(sentence)
    return spans


def markers_of(sentence: str) -> list[int]:
    """The citation numbers ``[n]`` in a sentence, in order, without repeats."""
    seen: list[int] = []
    for match in _MARKER.finditer(sentence):
        n = int(match.group()[1:-1])
        if n not in seen:
            seen.append(n)
    return seen


def strip_markers(text: str) -> str:
    """``text`` without citation markers and the spaces they leave."""
    return re.sub(r"\s+([。、.,!?])", r"\1", _MARKER.sub("", text)).strip()


def is_question(text: str) -> bool:
    """Whether ``text`` reads as a question: it ends with ?/？/か (ですか, でしょうか), closing brackets aside, or opens
    like an English question and ends with "?"."""
    line = text.strip().rstrip("」』）)\"'” ")
    return bool(_QUESTION_END.search(line) or (_QUESTION_START.match(line) and line.endswith("?")))


_SENTENCE_MARK = re.compile(r"[。．!?！？]|\.(?:\s|$)")


def marks_a_sentence(text: str) -> bool:
    """Whether ``text`` holds a mark that ends a sentence (。 ． ! ? or a period before a space or the end): a
    table row or a field read out of a document ("日時: 2018 年6 月13 日13:30-17:00", "字送り方向水平右向き(→)…")
    has none."""
    return bool(_SENTENCE_MARK.search(text))


_TAGS_ONLY = re.compile(r"\s*(?:[#＃][^\s#＃]+\s*)+")


def asserts_nothing(text: str) -> bool:
    """Whether ``text`` states nothing that could be true or false: a question (a FAQ's "…読まなければいけない
    でしょうか?" in the evidence, a FAQ heading copied into an answer), or a line of hashtags ("#組込機器#配布", a
    FAQ's topic labels, which say nothing of them)."""
    return is_question(text) or bool(_TAGS_ONLY.fullmatch(text))


def is_yes_no_question(text: str) -> bool:
    """Whether ``text`` asks for a yes or a no: a question without an interrogative word ("…を実装していますか？",
    "When I ship it, is it enough …?"). An English one opens a clause with an auxiliary before any interrogative
    ("Can …, and if so by how long?" still counts: its first answer is a yes or a no); "when I …" is a condition, not
    an interrogative. A text counts as Japanese when its Japanese letters are at least half as many as its Latin ones
    (an API name inside a Japanese question does not make it English); one that ends on its topic ("…値の範囲は？")
    asks what, not whether. Only the sentences that ask are read: those before them set the scene ("…いくつか含まれ
    ており、…ものがありました。このOSSを製品に組み込んで販売した場合、当社はライセンス違反になりますか?")."""
    if not is_question(text):
        return False
    text = _asking_sentences(text)
    if _asked_in_japanese(text):
        # "…に指定できる値の範囲は？" names its topic and leaves out "what": it asks for the range, not for a yes
        elliptical = re.search(r"(?:は|って)\s*[?？]\s*$", text) is not None
        return not elliptical and not _JA_INTERROGATIVE.search(text)
    auxiliary = _EN_AUXILIARY_OPENING.search(text)
    interrogative = next((m for m in _EN_INTERROGATIVE.finditer(text) if not _is_relative(text, m)), None)
    return auxiliary is not None and (interrogative is None or auxiliary.start() < interrogative.start())


def asking_clause(question: str) -> str:
    """The clause of a yes/no question that asks, without the scene and conditions before it: a Japanese question's
    last clause ("…遵守できていないものがありました。このOSSを製品に組み込んで販売した場合、当社はライセンス違反になり
    ますか?" asks "当社はライセンス違反になりますか"), an English one's from the auxiliary opening its clause ("if
    downloaded OSS contains OSS whose licence conditions are not being met …, are you in violation?"); the whole
    question when neither is found."""
    asked = _asking_sentences(question)
    if _asked_in_japanese(asked):
        return re.split(r"[、,，]", asked)[-1]
    opening = _EN_AUXILIARY_OPENING.search(asked)
    return asked[opening.start() :] if opening is not None else asked


def _asked_in_japanese(question: str) -> bool:
    """Whether a question is Japanese: its Japanese letters are at least half as many as its Latin ones (an API name
    inside a Japanese question does not make it English)."""
    return 2 * len(_JA_LETTER.findall(question)) >= len(re.findall(r"[A-Za-z]", question))


def _asking_sentences(text: str) -> str:
    """The sentences of ``text`` that ask (all of it when none does): those before them set the scene and ask
    nothing ("…ものがありました。このOSSを…違反になりますか?")."""
    asked = [text[start:end] for start, end in sentence_spans(text) if is_question(text[start:end])]
    return " ".join(asked) or text


def _is_relative(text: str, word: re.Match[str]) -> bool:
    """Whether an English "which", "who", "whom" or "whose" follows a noun it describes rather than asking ("…
    contains other people's OSS whose licence conditions are not being met, are you in violation?"): it comes right
    after a word that is no preposition ("In which…", "for whom…" ask)."""
    if word[0].casefold() not in _EN_RELATIVE:
        return False
    before = _WORD_BEFORE.search(text[: word.start()])
    return before is not None and before[1].casefold() not in _EN_PREPOSITIONS


def is_table_row(line: str) -> bool:
    """Whether a line is a row of a table as the parsers write it (``| a | b |``); a row cut off at a chunk's end
    keeps its opening ``|`` and at least one more."""
    return line.lstrip().startswith("|") and line.count("|") >= 2


def says_unknown(sentence: str) -> bool:
    """Whether the sentence says the documents do not give the answer (such a sentence needs no support)."""
    return bool(_DONT_KNOW.search(sentence))
