"""Words written in the other script: a katakana loanword and the Latin-script word it renders.

Japanese writes many English words in katakana (ペルソナ for "persona", チャット for "chat", ライセンス for
"license"), and Japanese text holds English words as they are, so a Japanese claim and its Japanese evidence may
hold one word in two scripts: "ペルソナAQの人は愛媛県松山市出身です" against a record's line "persona:
愛媛県松山市出身です。". ``heard_in`` finds the words of one text that another holds in the other script, by sound:
both are brought to a rough phonetic spelling (katakana romanized; English spelling read as Japanese hears it: l as
r, v as b, a final e silent, an r before a consonant silent or not) and must agree in their consonants and be close
in their whole spelling. Short words and short runs are never matched: two consonants in common say little. The
claim check (``rag.answers.claims``) uses it within one language only: across languages a shared loanword (クラス,
"class") says nothing of whether the claim is what the evidence says.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from functools import lru_cache

MIN_KATAKANA_CHARS = 3
"""Katakana runs shorter than this (ルビ, セル) are not matched: too many English words sound like them."""
MIN_LATIN_CHARS = 4
"""Latin words shorter than this ("AA", "the", "cell") are not matched, for the same reason."""
MIN_SPELLING_SIMILARITY = 0.5
"""How close the two phonetic spellings must be (difflib ratio) once their consonants agree: "itari" (Italy) and
"itaria" (イタリア) are 0.91, "sebe" (server, r silent) and "saba" (サーバー) 0.5."""

_KATAKANA_RUN = re.compile(f"[\u30a1-\u30fa\u30fc]{{{MIN_KATAKANA_CHARS},}}")
_LATIN_WORD = re.compile(f"[A-Za-z]{{{MIN_LATIN_CHARS},}}")

_BASE = dict(
    zip(
        "アイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワヲン"
        "ガギグゲゴザジズゼゾダヂヅデドバビブベボパピプペポヴァィゥェォ",
        "a i u e o ka ki ku ke ko sa shi su se so ta chi tsu te to na ni nu ne no ha hi fu he ho ma mi mu me mo "
        "ya yu yo ra ri ru re ro wa o n ga gi gu ge go za ji zu ze zo da ji zu de do ba bi bu be bo pa pi pu pe po "
        "vu a i u e o".split(),
        strict=True,
    )
)
_SMALL_Y = {"ャ": "a", "ュ": "u", "ョ": "o"}
_SMALL_VOWEL = {"ァ": "a", "ィ": "i", "ゥ": "u", "ェ": "e", "ォ": "o"}
_VOWELS = "aeiouy"


def romanize(katakana: str) -> str:
    """A katakana word in romaji: ニュートン → "nyuton", チャット → "chatto", ウィンドウ → "windou", テンポ → "tempo"
    (long marks dropped)."""
    out = ""
    previous = ""
    double = False
    for char in katakana:
        if char == "ッ":
            double = True
        elif char == "ー":
            pass
        elif char in _SMALL_Y and out:
            # キャ = kya, シャ = sha, チュ = chu, ジョ = jo
            out = out[:-1] + ("" if out[-2:-1] in ("h", "j") else "y") + _SMALL_Y[char]
        elif char in _SMALL_VOWEL and out and out[-1] in _VOWELS:
            # ファ = fa, ティ = ti, ウィ = wi
            out = out[:-1] + ("w" if previous == "ウ" else "") + _SMALL_VOWEL[char]
        else:
            syllable = _BASE.get(char, "")
            if out.endswith("n") and previous == "ン" and syllable[:1] in ("p", "b", "m"):
                out = out[:-1] + "m"  # ン before p, b, m is an m: テンポ = tempo
            if double and syllable:
                out += syllable[0]
            double = False
            out += syllable
        previous = char
    return out


def _phonetic(spelling: str) -> str:
    """A spelling brought to how Japanese renders its sounds (shared steps for romaji and English)."""
    s = spelling.lower()
    s = s.replace("sh", "s").replace("ch", "c").replace("ts", "t").replace("l", "r").replace("v", "b")
    s = s.replace("z", "s").replace("j", "g")
    s = re.sub(r"(.)\1+", r"\1", s)  # doubled letters (ッ, "pp") are one sound
    return re.sub(r"w(?=[^aeiou]|$)", "", s)  # "ew" of "Newton" is a vowel


@lru_cache(maxsize=4096)
def _english(word: str) -> tuple[str, ...]:
    """An English word's phonetic spellings: with its r, and without the r Japanese leaves silent (server, サーバー)."""
    s = word.lower()
    s = s.replace("tion", "shon").replace("sion", "shon")
    s = s.replace("ph", "f").replace("th", "s").replace("ck", "k").replace("qu", "ku").replace("x", "ks")
    s = re.sub(r"c(?=[eiy])", "s", s).replace("ch", "\0").replace("c", "k").replace("\0", "ch")
    s = re.sub(r"(?<=[^aeiou])e$", "", s)  # a final e is silent: "license", "software"
    s = re.sub(r"m(?=[^aeiouybpm])", "n", s)  # an m before a consonant is ン: "pamphlet", パンフレット
    s = re.sub(r"y(?=[^aeiou]|$)", "i", s)
    spoken = _phonetic(s)
    silent_r = re.sub(r"(?<=[aeiou])r(?=[^aeiou]|$)", "", spoken)
    return (spoken,) if silent_r == spoken else (spoken, silent_r)


@lru_cache(maxsize=4096)
def _heard(katakana: str) -> str:
    """A katakana word's phonetic spelling (``_phonetic`` of its romaji), read once for every word it is compared
    with: each window of each passage is compared with the same claim."""
    return _phonetic(romanize(katakana))


def _consonants(spelling: str) -> str:
    return re.sub(f"[{_VOWELS}]", "", spelling)


def sounds_alike(latin: str, katakana: str) -> bool:
    """Whether a katakana word renders a Latin-script word: persona / ペルソナ, Italy / イタリア, chat / チャット."""
    if len(latin) < MIN_LATIN_CHARS or len(katakana) < MIN_KATAKANA_CHARS:
        return False
    heard = _heard(katakana)
    for spoken in _english(latin):
        if len(_consonants(spoken)) < 2 or _consonants(spoken) != _consonants(heard):
            continue
        if SequenceMatcher(None, spoken, heard).ratio() >= MIN_SPELLING_SIMILARITY:
            return True
    return False


_EXONYMS: dict[str, tuple[str, ...]] = {
    "UK": ("イギリス", "英国"),
    "Britain": ("イギリス", "英国"),
    "British": ("イギリス", "英国"),
    "England": ("イングランド", "イギリス", "英国"),
    "US": ("アメリカ", "米国"),
    "USA": ("アメリカ", "米国"),
    "America": ("アメリカ", "米国"),
    "American": ("アメリカ", "米国"),
    "Americans": ("アメリカ", "米国"),
    "Japan": ("日本",),
    "Japanese": ("日本",),
    "China": ("中国",),
    "Chinese": ("中国",),
    "Korea": ("韓国",),
    "Korean": ("韓国",),
    "Germany": ("ドイツ",),
    "German": ("ドイツ",),
    "Netherlands": ("オランダ",),
    "Dutch": ("オランダ",),
    "Switzerland": ("スイス",),
    "Swiss": ("スイス",),
}
"""Country names that Japanese does not write as they sound in English (UK / イギリス, 英国), matched as written
(capitals and all: "US", not "us"). Names that do sound alike (Italy / イタリア) are ``sounds_alike``'s."""
_EXONYM = re.compile(r"\b(?:" + "|".join(_EXONYMS) + r")\b")


def heard_in(text: str, other: str) -> list[str]:
    """The words of ``text`` that ``other`` holds in the other script (a katakana word of one rendering a Latin word
    of the other, or a country's name in either, ``_EXONYMS``), as ``text`` writes them, each once."""
    katakana_there = set(_KATAKANA_RUN.findall(other))
    latin_there = {w.lower() for w in _LATIN_WORD.findall(other)}
    named_here, named_there = set(_EXONYM.findall(text)), set(_EXONYM.findall(other))
    found = [name for name in _EXONYMS if name in named_here and any(r in other for r in _EXONYMS[name])]
    found += [
        rendering
        for name in _EXONYMS
        if name in named_there
        for rendering in _EXONYMS[name]
        if rendering in text and rendering not in found
    ]
    for word in dict.fromkeys(_KATAKANA_RUN.findall(text)):
        if any(sounds_alike(latin, word) for latin in latin_there):
            found.append(word)
    for word in dict.fromkeys(_LATIN_WORD.findall(text)):
        if word.lower() not in latin_there and any(sounds_alike(word, kana) for kana in katakana_there):
            found.append(word)
    return found
