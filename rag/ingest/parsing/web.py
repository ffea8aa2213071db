"""HTML pages (BeautifulSoup + lxml): readable text in order, h1-h6 as sections, tables as markdown."""

from __future__ import annotations

import re

from bs4 import BeautifulSoup, Comment, NavigableString, Tag

from rag.errors import DocumentReadError
from rag.ingest.metadata import iso_date
from rag.ingest.parsing.tabular import render_markdown_table
from rag.ingest.text_cleanup import CJK_CLASS, normalize_text
from rag.records import Block, ParsedDocument

_DROP = frozenset({"script", "style", "nav", "noscript", "template", "svg", "iframe", "head", "footer",
                   "form", "button", "select", "canvas", "object"})  # fmt: skip
_CONTENT = ("main", "article", "section")
"""Where an ``<aside>`` is part of the text: a note, an example or a warning of a specification or an article
(W3C drafts write their notes as ``<aside class="note">``). Beside them, an aside is the site's sidebar."""
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_BLOCKS = frozenset({"p", "div", "section", "article", "main", "header", "aside", "li", "ul", "ol", "dl", "dt", "dd",
                     "blockquote", "figure", "figcaption", "address", "hr", "body", "details", "summary"})  # fmt: skip
_DATE_META = ("article:published_time", "date", "dc.date", "dcterms.created", "og:updated_time", "last-modified")
_CJK_GAP = re.compile(f"(?<=[{CJK_CLASS}]) (?=[{CJK_CLASS}])")
_WS = re.compile(r"[ \t\r\f\v\n]+")


class _Walker:
    """Collects blocks while walking the element tree in document order."""

    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self.section = ""
        self.buffer: list[str] = []
        self.marker = ""

    def flush(self) -> None:
        text = normalize_text(_CJK_GAP.sub("", "".join(self.buffer)))
        if text:
            self.blocks.append(Block(text=self.marker + text, section=self.section))
            self.marker = ""
        self.buffer.clear()

    def item(self, tag: Tag) -> None:
        """A list item, written as the text writes one ("• …", "2. …"), so that it reads as an item of its own
        (``rag.ingest.lists``) and not as one sentence with the items around it: a list of character classes whose
        items end without a full stop ("行頭禁則約物類(cl-iii) ハイフン類(cl-03)…を統合") is no run-on sentence."""
        self.flush()
        parent = tag.find_parent(["ol", "ul"])
        if parent is not None and parent.name == "ol":
            siblings = list(parent.find_all("li", recursive=False))
            start = str(parent.get("start") or "1")
            number = (int(start) if start.isdigit() else 1) + (siblings.index(tag) if tag in siblings else 0)
            self.marker = f"{number}. "
        else:
            self.marker = "• "
        self.walk(tag)
        self.flush()
        self.marker = ""

    def walk(self, node: Tag) -> None:
        for child in node.children:
            if isinstance(child, Comment):
                continue
            if isinstance(child, NavigableString):
                self.buffer.append(_WS.sub(" ", str(child)))
            elif isinstance(child, Tag):
                self.visit(child)

    def visit(self, tag: Tag) -> None:
        name = tag.name
        if name in _DROP or tag.get("hidden") is not None or tag.get("aria-hidden") == "true":
            return
        if name == "aside" and tag.find_parent(_CONTENT) is None:
            return  # a sidebar of the page, not a note of its text
        if name in _HEADINGS:
            self.flush()
            text = normalize_text(_CJK_GAP.sub("", _WS.sub(" ", tag.get_text(" "))))
            if text:
                self.section = text
                self.blocks.append(Block(text=text, kind="heading", section=text))
        elif name == "table":
            self.flush()
            self.table(tag)
        elif name == "pre":
            self.flush()
            if text := normalize_text(tag.get_text(), keep_indent=True):
                self.blocks.append(Block(text=text, section=self.section))
        elif name == "br":
            self.buffer.append("\n")
        elif name == "li":
            self.item(tag)
        elif name in _BLOCKS:
            self.flush()
            self.walk(tag)
            self.flush()
        else:
            self.walk(tag)

    def table(self, tag: Tag) -> None:
        rows = []
        for tr in tag.find_all("tr"):
            if tr.find_parent("table") is not tag:  # rows of a nested table belong to that table
                continue
            cells = tr.find_all(["th", "td"], recursive=False)
            rows.append([_WS.sub(" ", cell.get_text(" ")).strip() for cell in cells])
        rows = [r for r in rows if r]
        if rows and (markdown := render_markdown_table(rows[0], rows[1:])):
            self.blocks.append(Block(text=markdown, kind="table", section=self.section))


def _page_date(soup: BeautifulSoup) -> str:
    for meta in soup.find_all("meta"):
        key = str(meta.get("property") or meta.get("name") or meta.get("http-equiv") or "").lower()
        if key in _DATE_META and (found := iso_date(str(meta.get("content") or ""))):
            return found
    time_tag = soup.find("time", attrs={"datetime": True})
    return iso_date(str(time_tag.get("datetime"))) if isinstance(time_tag, Tag) else ""


def parse_html(data: bytes | str, name: str, date: str) -> ParsedDocument:
    """Read an HTML page; script, style, navigation, footers and hidden elements are dropped.

    The declared ``<meta charset>`` decides the encoding of bytes (BeautifulSoup's detection otherwise); text
    already decoded (an e-mail's HTML part) is read as it is.

    Raises:
        DocumentReadError: the page has no readable text.
    """
    soup = BeautifulSoup(data, "lxml")
    title = normalize_text(soup.title.get_text()) if soup.title else ""
    walker = _Walker()
    root = soup.body or soup
    walker.walk(root)
    walker.flush()
    if not walker.blocks:
        raise DocumentReadError(f"{name} has no readable text (only markup or scripts). Check the page and try again.")
    return ParsedDocument(blocks=tuple(walker.blocks), title=title, date=_page_date(soup) or date)
