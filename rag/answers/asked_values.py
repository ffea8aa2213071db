"""The kind of value a question asks for, and whether a sentence gives one: asked when a FAQ was updated, the
sentence that answers is the one holding a date ("更新日:2024年5月9日"), whatever words it shares with the question;
asked where a meeting was held, the minutes' field "場所: トヨタ自動車 名古屋オフィス"; asked which agency enforces a
rule, the line naming one ("ENFORCEMENT BY FEDERAL TRADE COMMISSION"). ``rag.answers.evidence``
weighs sentences with it (``gives_asked_value``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rag.answers.defaults import speaks_of_default
from rag.answers.facts import Fact, facts_of

_EN_WHEN = re.compile(
    r"(?:^|[.?!;:]\s+|,\s*)when\s+(?:is|was|were|are|did|does|do|will|would|can|could|should|has|have|had|must)\b"
    r"|\b(?:what|which)\s+(?:year|date|day|month)\b|\bsince when\b|\bhow long ago\b",
    re.IGNORECASE,
)
"""An English question asking for a day or a year: "When was …", "In what year …", "on which date …" (not the "When
I ship …, is it enough …?" that opens a yes/no question)."""
_JA_WHEN = re.compile(
    r"いつ(?!も|でも|か[^らな])|何年(?!間|生|版|分|目|ごと|おき|毎)|何月(?!分)|何日(?!間|分|目)|日付|年月日"
)
"""A Japanese question asking for a day or a year: いつ (not いつも, いつでも), 何年 (not 何年間, how many years, nor
何年ごと, how often), 何月, 何日 (not 何日間), 日付."""
YEAR = re.compile(r"(?:1[6-9]|20)\d\d")
"""A number that reads as a year (1600-2099)."""


def asks_when(question: str) -> bool:
    """Whether ``question`` asks for a day or a year (when something happened or was done)."""
    return bool(_EN_WHEN.search(question) or _JA_WHEN.search(question))


def gives_date(text: str) -> bool:
    """Whether ``text`` gives a day or a year: a date ("January 27, 1880", 昭和60年), or a year written as such
    (2024年) or as a bare number of four digits; a length of time ("90 days", "3か月") is none."""
    return any(_is_date(fact) for fact in facts_of(text))


def _is_date(fact: Fact) -> bool:
    if fact.kind == "date":
        return True
    if fact.kind != "number":
        return False
    number, _, unit = fact.value.partition(" ")
    return unit in ("", "year") and bool(YEAR.fullmatch(number))


_EN_WHERE = re.compile(
    r"(?:^|[.?!;:]\s+|,\s*)where\s+(?:is|was|were|are|did|does|do|will|would|can|could|should|has|have|had)\b"
    r"|\b(?:what|which)\s+(?:place|venue|location|city|town|country|prefecture|address)\b|\bin what place\b",
    re.IGNORECASE,
)
"""An English question asking for a place: "Where was … held?", "In which city …" (not "where" opening a clause)."""
_JA_WHERE = re.compile(r"どこ(?!か|でも|まで|から)|場所|会場|開催地|所在地|どの(?:都市|国|県|町|会場)")
"""A Japanese question asking for a place: どこ (not どこか, どこでも), 場所, 会場."""
_PLACE_FIELD = re.compile(
    r"^\s*[※・]?\s*(?:場所|会場|開催場所|開催地|所在地|住所|出身|(?i:place|venue|location|address))\s*[:：]"
)
"""A field that gives a place: "場所: トヨタ自動車 名古屋オフィス", "Venue: …"."""
_JA_PLACE = re.compile(r"[\u3400-\u9fff]{2,4}(?:都|道|府|県|市|区|町|村)")
"""A Japanese place name by its ending: 愛媛県, 松山市, 港区."""


def asks_where(question: str) -> bool:
    """Whether ``question`` asks for a place (where something is or was done)."""
    return bool(_EN_WHERE.search(question) or _JA_WHERE.search(question))


def gives_place(text: str) -> bool:
    """Whether ``text`` gives a place: a field labelled as one ("場所: …", "Venue: …") or a Japanese place name."""
    return bool(_PLACE_FIELD.search(text) or _JA_PLACE.search(text))


_EN_WHICH_BODY = re.compile(
    r"\b(?:what|which)\s+(?:(?:federal|government|public|regulatory|standards?)\s+)?(?:agency|agencies|organi[sz]ations?"
    r"|company|companies|body|bodies|department|authority|institution|committee|office|regulator)\b",
    re.IGNORECASE,
)
"""An English question asking which organisation: "Which agency enforces …", "what standards body …"."""
_JA_WHICH_BODY = re.compile(
    r"(?:どの|どこの|何という)[\u3400-\u9fff]{0,3}(?:機関|組織|団体|会社|企業|官庁|省庁|部署|委員会)"
)
"""A Japanese question asking which organisation: どの連邦機関, どの団体, どこの会社."""
_EN_BODY = re.compile(
    r"\b(?:[A-Z][\w&'’.-]*\s+){1,5}(?i:commission|agency|department|office|bureau|administration|council|committee"
    r"|institute|foundation|corporation|company|authority|board|service|inc\b|ltd\b)"
)
"""An organisation named in English by the word its name ends with: "Federal Trade Commission", "FEDERAL TRADE
COMMISSION", "The Linux Foundation"."""
_JA_BODY = re.compile(r"[\u3400-\u9fff\u30a1-\u30fa\u30fc]{2,}(?:省|庁|委員会|協会|財団|機構|研究所|株式会社)|株式会社")
"""An organisation named in Japanese by its ending: 厚生労働省, 公正取引委員会, 株式会社…."""


def asks_which_body(question: str) -> bool:
    """Whether ``question`` asks which organisation (agency, company, committee) does or did something."""
    return bool(_EN_WHICH_BODY.search(question) or _JA_WHICH_BODY.search(question))


def gives_body(text: str) -> bool:
    """Whether ``text`` names an organisation (``_EN_BODY``, ``_JA_BODY``)."""
    return bool(_EN_BODY.search(text) or _JA_BODY.search(text))


def gives_asked_value(question: str) -> Callable[[str], bool] | None:
    """Whether a sentence gives the kind of value ``question`` asks for (a date for when, a place for where, an
    organisation for which agency, a default when it asks for the default), or None when it asks for no such
    kind."""
    if asks_when(question):
        return gives_date
    if asks_where(question):
        return gives_place
    if asks_which_body(question):
        return gives_body
    if speaks_of_default(question):
        return speaks_of_default
    return None
