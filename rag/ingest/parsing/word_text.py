"""A DOCX's text as Word shows it, where python-docx reads less.

python-docx reads a paragraph's text from the runs and hyperlinks directly under it, and a body's paragraphs and
tables directly under it. Word nests text deeper, and all of it was lost:

* inside a paragraph: tracked insertions (``w:ins``), content controls (``w:sdt``, the fields of a form or a
  template), smart tags and simple fields;
* around paragraphs: content controls holding whole paragraphs or tables (a cover page's title and date);
* beside them: text boxes (``w:txbxContent``: speech bubbles, callouts), charts' parts, the notes a footnote or
  endnote reference points to, and the running header and footer parts. A pamphlet said its licence only in its
  first page's footer and gave the case where someone else holds the copyright only in a footnote.

Deleted text (``w:del``, ``w:moveFrom``) is not read. Word writes a text box twice, as a DrawingML shape and as a VML
copy for old readers (``mc:Fallback``): only the first is read.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from docx.table import Table
from docx.text.paragraph import Paragraph
from lxml import etree

from rag.ingest.parsing.package_xml import NS, part_xml

_W = NS["w"]
_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
_ID = f"{{{_W}}}id"
_TYPE = f"{{{_W}}}type"

_TEXT_PIECES = etree.XPath(".//w:t | .//w:tab | .//w:br | .//w:cr | .//w:noBreakHyphen", namespaces=NS)
_BOXES = etree.XPath(".//w:txbxContent[not(ancestor::mc:Fallback)]", namespaces=NS)
_NOTE_REFERENCES = etree.XPath(
    ".//w:footnoteReference[not(ancestor::mc:Fallback)] | .//w:endnoteReference[not(ancestor::mc:Fallback)]",
    namespaces=NS,
)
_CHARTS = etree.XPath(".//c:chart[not(ancestor::mc:Fallback)]/@r:id", namespaces=NS)
_STOPS = {f"{{{_W}}}txbxContent", f"{{{_W}}}del", f"{{{_W}}}moveFrom", f"{{{NS['mc']}}}Fallback", f"{{{_W}}}pPr"}
"""Elements whose text is not the paragraph's own: a text box's (read on its own), deleted text, a VML copy, and the
paragraph's properties (its tab stops are ``w:tab`` too)."""
_WRAPPERS = {f"{{{_W}}}sdt", f"{{{_W}}}sdtContent", f"{{{_W}}}customXml"}
"""Elements that wrap paragraphs and tables without being either (content controls, custom XML)."""


def paragraph_text(p: Any) -> str:
    """The text of a ``w:p`` element as Word shows it: its runs wherever they are nested (tracked insertions,
    content controls, hyperlinks, fields), tabs and line breaks as ``\\t`` and ``\\n``; not deleted text, nor the
    text of the text boxes it anchors."""
    pieces: list[str] = []
    for piece in _TEXT_PIECES(p):
        if not _owned_by(piece, p):
            continue
        name = etree.QName(piece).localname
        if name == "t":
            pieces.append(piece.text or "")
        else:
            pieces.append({"tab": "\t", "noBreakHyphen": "-"}.get(name, "\n"))
    return "".join(pieces)


def _owned_by(piece: Any, p: Any) -> bool:
    """Whether ``piece`` is text of ``p`` itself: no text box, deletion or VML copy between them."""
    node = piece.getparent()
    while node is not None and node is not p:
        if node.tag in _STOPS:
            return False
        node = node.getparent()
    return node is p


def body_items(document: Any) -> Iterator[Paragraph | Table]:
    """The body's paragraphs and tables in document order, those that content controls wrap included."""
    yield from _items(document.element.body, document._body)


def _items(container: Any, parent: Any) -> Iterator[Paragraph | Table]:
    for child in container.iterchildren():
        if child.tag == f"{{{_W}}}p":
            yield Paragraph(child, parent)
        elif child.tag == f"{{{_W}}}tbl":
            yield Table(child, parent)
        elif child.tag in _WRAPPERS:
            yield from _items(child, parent)


def cell_text(cell: Any) -> str:
    """A table cell's paragraphs' text, one per line (those a content control wraps included)."""
    return "\n".join(paragraph_text(item._element) for item in _items(cell._tc, cell) if isinstance(item, Paragraph))


def box_texts(paragraph: Paragraph) -> list[str]:
    """The paragraphs of the text boxes drawn in ``paragraph``, in order; a box inside a box is read once, as its
    own paragraphs."""
    texts: list[str] = []
    for box in _BOXES(paragraph._element):
        texts += [text for p in box.iterchildren(f"{{{_W}}}p") if (text := paragraph_text(p).strip())]
    return texts


def chart_parts(paragraph: Paragraph) -> list[bytes]:
    """The XML of each chart drawn in ``paragraph`` (``rag.ingest.parsing.charts`` reads its figures)."""
    related = paragraph.part.related_parts
    return [related[rid].blob for rid in _CHARTS(paragraph._element) if rid in related]


class WordNotes:
    """A document's footnotes and endnotes by reference, and its headers' and footers' paragraphs."""

    def __init__(self, document: Any) -> None:
        """Read the notes and the header and footer parts of ``document`` (a python-docx ``Document``)."""
        self._notes: dict[tuple[str, str], list[str]] = {}
        self.headers: list[str] = []
        self.footers: list[str] = []
        for rel in document.part.rels.values():
            if rel.is_external:
                continue
            kind = rel.reltype.removeprefix(_REL)
            root = _element(rel.target_part) if kind in ("footnotes", "endnotes", "header", "footer") else None
            if root is None:
                continue
            if kind in ("footnotes", "endnotes"):
                self._read_notes(kind[:-1], root)
            else:
                texts = self.headers if kind == "header" else self.footers
                texts += [t for t in _paragraph_texts(root) if t not in texts]

    def referenced_in(self, paragraph: Paragraph) -> list[str]:
        """The text of each footnote and endnote ``paragraph`` refers to, in the order it refers to them."""
        texts: list[str] = []
        for reference in _NOTE_REFERENCES(paragraph._element):
            kind = etree.QName(reference).localname.removesuffix("Reference")
            texts += self._notes.get((kind, reference.get(_ID, "")), [])
        return texts

    def _read_notes(self, kind: str, root: Any) -> None:
        for note in root.iterchildren(f"{{{_W}}}{kind}"):
            if note.get(_TYPE) in ("separator", "continuationSeparator", "continuationNotice"):
                continue  # the rule Word draws above the notes
            self._notes[(kind, note.get(_ID, ""))] = list(_paragraph_texts(note))


def _element(part: Any) -> Any:
    """A package part's XML root (None when it is not XML): python-docx parses header and footer parts; notes parts
    it keeps as bytes."""
    element = getattr(part, "element", None)
    return element if element is not None else part_xml(part.blob)


def _paragraph_texts(root: Any) -> Iterator[str]:
    """Each non-empty paragraph's text under ``root``, text boxes' paragraphs included, in document order."""
    for p in root.iter(f"{{{_W}}}p"):
        if any(node.tag == f"{{{NS['mc']}}}Fallback" for node in p.iterancestors()):
            continue
        if text := paragraph_text(p).strip():
            yield text
