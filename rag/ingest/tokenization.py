"""Word tokenizers for BM25: Japanese (Sudachi, MeCab/UniDic, character bigrams), English, and text mixing both.

Every tokenizer first applies NFKC (full-width ``ＡＢＣ１２３`` becomes ``ABC123``), then cuts the text into Latin
runs and the rest. Latin runs go through one English analyzer (lowercase, stopwords, Snowball stemming); an
identifier or version number (``TEE_Malloc``, ``getUserName``, ``v1.2.3``, ``COVID-19``) is also kept whole, so a
query naming it exactly matches it exactly. The rest goes to the tokenizer's own analyzer. A Japanese analyzer
thus never sees Latin words (Sudachi would turn ``CAST`` into ``キャスト``), and English text gives the same tokens
whichever tokenizer reads it.

The measured choice behind ``"auto"`` and the figures are in ``bench/tokenizer_choice.py``. Every tokenizer is safe to
share between threads: the analyzers that keep state (Sudachi, MeCab, the stemmer) live one per thread.
"""

from __future__ import annotations

import functools
import re
import threading
import unicodedata
from collections.abc import Callable, Iterable
from typing import Any, Protocol, runtime_checkable

import Stemmer

from rag.errors import ModelUnavailableError

TOKENIZER_NAMES = ("auto", "sudachi", "fugashi", "bigram", "english")
AUTO_TOKENIZER = "sudachi"
"""What ``"auto"`` resolves to. ``bench/tokenizer_choice.py`` on JSQuAD, BM25 nDCG@10: Sudachi mode A 0.9390, fugashi
0.9394 (paired difference -0.0004 +/- 0.0018 at 95%: a tie), Sudachi mode C 0.9358, character bigrams 0.9351.
Of the tied two, Sudachi is faster (about 550k against 400-500k characters per CPU-second) and takes the tie-break."""

# Latin letters (ASCII and Latin-1/Extended, without × and ÷), digits and underscore.
_LATIN = "0-9A-Za-z_\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f"
# A Latin run: joined inside by . - + # (v1.2.3, COVID-19, e.g), ending in an optional ++ or # (C++, C#).
_LATIN_RUN = re.compile(rf"([{_LATIN}]+(?:[.\-+#][{_LATIN}]+)*(?:\++|#)?)")
_CAMEL_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z]{2})|[A-Z]?[a-z]+|[A-Z]+|\d+|[^\W\d_A-Za-z]+")
_SEPARATORS = re.compile(r"[._\-+#]+")
_DOTTED_NUMBER = re.compile(r"\d+(?:\.\d+)+")
_WORD_RUN = re.compile(r"[^\W_]+")
_HAS_WORD = re.compile(r"[^\W_]")
_SUDACHI_MAX_CHARS = 12_000  # Sudachi refuses inputs over 49,149 UTF-8 bytes; 12k chars stays under even at 4 B/char

_STOPWORDS_TEXT = """
    a about above after again against all am an and any are as at be because been before being below between both
    but by can could did do does doing down during each few for from further had has have having he her here hers
    herself him himself his how i if in into is it its itself just me more most my myself no nor not of off on once
    only or other our ours ourselves out over own s same she should so some such t than that the their theirs them
    themselves then there these they this those through to too under until up very was we were what when where which
    while who whom why will with would you your yours yourself yourselves
"""
ENGLISH_STOPWORDS = frozenset(_STOPWORDS_TEXT.split())
"""A compact English stopword list (NLTK's, without its contractions)."""


@runtime_checkable
class Tokenizer(Protocol):
    """Turns text into the tokens BM25 indexes; the same call serves documents and queries."""

    name: str

    def tokenize(self, text: str) -> list[str]:
        """Return the tokens of ``text`` in reading order (duplicates kept: BM25 counts them)."""
        ...


class _PerThread:
    """One instance of a non-thread-safe analyzer per thread, built on first use in that thread."""

    def __init__(self, factory: Callable[[], Any]) -> None:
        self._factory = factory
        self._local = threading.local()

    def get(self) -> Any:
        value = getattr(self._local, "value", None)
        if value is None:
            value = self._local.value = self._factory()
        return value


def _is_capitalised_code(run: str) -> bool:
    """Whether a stopword written in capitals is a name or code: the "IT" of "IT Company", speaker "AS" of a chat's
    persona records, "OR" of a logic table. Dropped as stopwords, they matched nothing, so a question naming them
    found the rows of every other company or speaker as readily."""
    return len(run) > 1 and run.isupper()


class _LatinAnalyzer:
    """Lowercase, stopword and Snowball-stem Latin runs (a stopword in capitals is a code and stays); keep identifiers
    and version numbers whole too."""

    def __init__(self, *, stem: bool = True, stopwords: bool = True, whole: bool = True) -> None:
        self._stemmer = _PerThread(lambda: Stemmer.Stemmer("english")) if stem else None
        self._stopwords = ENGLISH_STOPWORDS if stopwords else frozenset()
        self._whole = whole

    def analyze(self, runs: Iterable[str]) -> list[str]:
        words: list[str] = []
        wholes: list[str] = []
        stop = self._stopwords
        for run in runs:
            if run.isalpha() and (run.islower() or run.isupper() or run[1:].islower()):
                lowered = run.lower()  # plain word: the common case, kept fast
                if lowered not in stop or _is_capitalised_code(run):
                    words.append(lowered)
                continue
            parts = [p.lower() for seg in _SEPARATORS.split(run) for p in _CAMEL_PART.findall(seg)]
            words.extend(p for p in parts if p not in stop)
            whole = run.lower()
            if self._whole and (len(parts) > 1 or whole not in parts):  # TEE_Malloc, p53, C++
                wholes.append(whole)
                wholes.extend(m for m in _DOTTED_NUMBER.findall(run) if m != run)
        if self._stemmer is not None and words:
            words = self._stemmer.get().stemWords(words)
        return words + wholes


class _MixedTokenizer:
    """Split text into Latin runs (English analyzer) and the rest (``_analyze_rest``, per subclass)."""

    name = "mixed"

    def __init__(self, latin: _LatinAnalyzer | None = None) -> None:
        self._latin = latin or _LatinAnalyzer()

    def tokenize(self, text: str) -> list[str]:
        pieces = _LATIN_RUN.split(unicodedata.normalize("NFKC", text))
        latin = self._latin.analyze(pieces[1::2])
        rest = " ".join(p for p in pieces[0::2] if _HAS_WORD.search(p))  # skip pure punctuation and spaces
        return (self._analyze_rest(rest) if rest else []) + latin

    def _analyze_rest(self, text: str) -> list[str]:
        raise NotImplementedError


class EnglishTokenizer(_MixedTokenizer):
    """English: lowercase, stopwords, Snowball stemming; other scripts become lowercased word runs."""

    def __init__(self, *, stem: bool = True, stopwords: bool = True, whole: bool = True, name: str = "english"):
        super().__init__(_LatinAnalyzer(stem=stem, stopwords=stopwords, whole=whole))
        self.name = name

    def _analyze_rest(self, text: str) -> list[str]:
        return [w.lower() for w in _WORD_RUN.findall(text)]


class BigramTokenizer(_MixedTokenizer):
    """Overlapping character bigrams of each non-Latin word run (a one-character run stays a unigram)."""

    name = "bigram"

    def _analyze_rest(self, text: str) -> list[str]:
        tokens: list[str] = []
        for run in _WORD_RUN.findall(text):
            run = run.lower()
            tokens.extend([run[i : i + 2] for i in range(len(run) - 1)] if len(run) > 1 else [run])
        return tokens


_DROP_POS = ("助詞", "助動詞", "補助記号", "記号", "空白")  # particles, auxiliaries, symbols, spaces


class SudachiTokenizer(_MixedTokenizer):
    """Sudachi (sudachidict-core) morphemes in their normalized form, without particles and symbols.

    Args:
        mode: Sudachi split mode, ``"A"`` (short units), ``"B"`` or ``"C"`` (long units, named entities whole).
            A measured best on JSQuAD (nDCG@10 0.939 against 0.936 for C, a significant paired difference).
        drop_function_words: leave out particles, auxiliary verbs, symbols and spaces.
    """

    def __init__(self, mode: str = "A", *, drop_function_words: bool = True, name: str = "sudachi") -> None:
        if mode not in ("A", "B", "C"):
            raise ValueError(f"Sudachi mode {mode!r}; allowed: A, B, C")
        super().__init__()
        self.name = name
        dictionary = _sudachi_dictionary()
        dropped = _DROP_POS if drop_function_words else ("空白",)
        pos_ids = range(_count_pos(dictionary))
        self._drop = frozenset(i for i in pos_ids if dictionary.pos_of(i)[0] in dropped)
        fields = {"pos", "normalized_form"}
        self._tokenizer = _PerThread(lambda: dictionary.tokenizer(mode, fields=fields))

    def _analyze_rest(self, text: str) -> list[str]:
        tokenizer, drop = self._tokenizer.get(), self._drop
        tokens: list[str] = []
        for piece in _pieces(text, _SUDACHI_MAX_CHARS):
            tokens.extend(
                m.normalized_form().lower() for m in tokenizer.tokenize(piece) if m.part_of_speech_id() not in drop
            )
        return tokens


class FugashiTokenizer(_MixedTokenizer):
    """MeCab through fugashi with UniDic-lite: dictionary forms, without particles and symbols."""

    name = "fugashi"

    def __init__(self) -> None:
        super().__init__()
        self._tagger = _PerThread(_fugashi_tagger)

    def _analyze_rest(self, text: str) -> list[str]:
        tokens: list[str] = []
        for node in self._tagger.get()(text):
            fields = node.feature_raw.split(",", 11)
            if fields[0] in _DROP_POS:
                continue
            # orthBase (field 10): the dictionary form as written (読み -> 読む). UniDic's lemma field would turn
            # proper nouns into katakana (東京 -> トウキョウ). Unknown words have 6 fields and keep their surface.
            base = fields[10] if len(fields) > 10 and fields[10] not in ("", "*") else node.surface
            tokens.append(base.lower())
        return tokens


QUESTION_WORDS = frozenset(
    {"何", "誰", "どこ", "いつ", "どう", "なぜ", "何故", "どの", "どれ", "いくつ", "いくら"}
    | {"出来る", "有る", "居る", "為る"}
)
"""Words a question is made of rather than about: interrogatives and the verbs of "…できますか", "…ありますか",
"…していますか". Documents seldom use the interrogatives, so they would weigh most of all in a query."""
_SINGLE_LETTER = re.compile(r"[a-z\u3040-\u30ff]")


def search_terms(tokens: list[str]) -> list[str]:
    """A query's tokens without those that match by accident: ``QUESTION_WORDS``, and single Latin letters or kana
    (the "p", "x" of ``pTeX``, the "h", "r" of ``H.R. 815``, a "で" after a Latin name that Sudachi takes for a
    conjunction). A query made only of such tokens keeps them all."""
    kept = [t for t in tokens if t not in QUESTION_WORDS and not _SINGLE_LETTER.fullmatch(t)]
    return kept or tokens


_proper_noun_tokenizer = _PerThread(lambda: _sudachi_dictionary().tokenizer("C", fields={"pos"}))
_JAPANESE_WORD = re.compile(r"[\u3040-\u30ff\u3400-\u9fff々]{2,}")


@functools.lru_cache(maxsize=4096)
def proper_nouns(text: str) -> tuple[str, ...]:
    """The Japanese proper nouns of ``text`` as written, once each, in order: Sudachi's 固有名詞 in long units
    ("トヨタ自動車", "東京", "愛媛県松山市", "橋本"). Names in Latin letters are left to the caller; () when Sudachi
    cannot load its dictionary."""
    if not _JAPANESE_WORD.search(text):
        return ()
    try:
        tokenizer = _proper_noun_tokenizer.get()
    except ModelUnavailableError:
        return ()
    names = (
        m.surface()
        for piece in _pieces(text, _SUDACHI_MAX_CHARS)
        for m in tokenizer.tokenize(piece)
        if m.part_of_speech()[1] == "固有名詞"
    )
    return tuple(dict.fromkeys(name for name in names if _JAPANESE_WORD.fullmatch(name)))


def make_tokenizer(name: str) -> Tokenizer:
    """Build the tokenizer called ``name``.

    Args:
        name: one of ``TOKENIZER_NAMES``; ``"auto"`` is the best measured for Japanese (``AUTO_TOKENIZER``).

    Returns:
        A thread-safe tokenizer. Its ``name`` is the resolved name (never ``"auto"``).

    Raises:
        ValueError: ``name`` is not a known tokenizer.
        ModelUnavailableError: the tokenizer's analyzer or dictionary is not installed.
    """
    resolved = AUTO_TOKENIZER if name == "auto" else name
    if resolved == "sudachi":
        return SudachiTokenizer()
    if resolved == "fugashi":
        return FugashiTokenizer()
    if resolved == "bigram":
        return BigramTokenizer()
    if resolved == "english":
        return EnglishTokenizer()
    raise ValueError(f"Unknown BM25 tokenizer {name!r}; allowed: {', '.join(TOKENIZER_NAMES)}")


_sudachi_lock = threading.Lock()
_sudachi: Any = None


def _sudachi_dictionary() -> Any:
    """The one sudachidict-core dictionary of the process (loading it takes a while; sharing it is safe)."""
    global _sudachi
    with _sudachi_lock:
        if _sudachi is None:
            try:
                from sudachipy import Dictionary

                _sudachi = Dictionary(dict="core")
            except (ImportError, ModuleNotFoundError, OSError) as err:
                raise ModelUnavailableError(
                    f"Sudachi cannot load its dictionary ({err}). Install sudachipy and sudachidict-core "
                    "(pip install -r requirements.txt) or set RAG_BM25_TOKENIZER=bigram."
                ) from err
        return _sudachi


def _count_pos(dictionary: Any) -> int:
    count = 0
    while dictionary.pos_of(count) is not None:
        count += 1
    return count


def _fugashi_tagger() -> Any:
    try:
        import fugashi

        return fugashi.Tagger()
    except (ImportError, RuntimeError) as err:
        raise ModelUnavailableError(
            f"fugashi cannot start MeCab with UniDic-lite ({err}). Install fugashi and unidic-lite "
            "(pip install -r requirements.txt) or set RAG_BM25_TOKENIZER=sudachi."
        ) from err


def _pieces(text: str, limit: int) -> Iterable[str]:
    """Cut ``text`` into pieces of at most ``limit`` characters, preferring line and sentence ends."""
    while len(text) > limit:
        cut = max(text.rfind(sep, 0, limit) for sep in ("\n", "。", " ")) + 1
        cut = cut if cut > limit // 2 else limit
        yield text[:cut]
        text = text[cut:]
    if text:
        yield text
