"""Build real test documents: PDFs (PyMuPDF, Japanese via its built-in CJK font), DOCX, XLSX, HTML, CSV, JSON.

PDF lines are wrapped by this module at fixed widths, so a test knows exactly where a visual line
break falls inside a Japanese sentence. Other helpers and UI tests import these functions.
"""

from __future__ import annotations

import csv
import io
import json
import re
import textwrap
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import docx
import openpyxl
import pymupdf

JA_PARAGRAPHS: tuple[str, ...] = (
    "TEE_Mallocはトラステッドアプリケーションのヒープからメモリを確保する関数である。確保に失敗した場合はNULLを返すため、"
    "呼び出し側は必ず戻り値を確認しなければならない。",
    "TEE_Freeは TEE_Malloc で確保したメモリ領域を解放する。解放済みの領域を再度解放してはならない。"
    "セキュアワールドとノーマルワールドの間で共有されるメモリは別の仕組みで管理される。",
    "信頼できる実行環境では、アプリケーションごとに独立したアドレス空間が割り当てられる。"
    "他のアプリケーションの領域を読み書きすることはできず、これにより機密情報が保護される。",
)
EN_PARAGRAPHS: tuple[str, ...] = (
    "The Trusted Execution Environment isolates trusted applications from the rich operating system. "
    "Each trusted application runs in its own address space and cannot read the memory of another one.",
    "Shared memory between the client and the trusted application is registered explicitly. "
    "The client library validates every parameter before the request crosses into the secure world.",
)
API_TABLE: tuple[tuple[str, ...], ...] = (
    ("関数名", "説明", "戻り値"),
    ("TEE_Malloc", "メモリを確保する", "ポインタ"),
    ("TEE_Free", "メモリを解放する", "なし"),
    ("TEE_MemMove", "メモリをコピーする", "なし"),
)

_TOPICS = ("メモリ管理", "Session handling", "暗号操作", "Secure storage", "時刻API", "Client API", "例外処理")
_CJK = re.compile(r"[\u3000-\u30ff\u3400-\u9fff\uff00-\uffef]")
_A4 = (595.0, 842.0)
_LEFT = 56.0
# Courier is used only for "garbage" text; its font gets a ToUnicode map into the private-use area.
_GARBAGE_FONT = "cour"
_PUA_CMAP = b"""/CIDInit /ProcSet findresource begin
12 dict begin
begincmap
/CMapName /Broken def
/CMapType 2 def
1 begincodespacerange
<00> <FF>
endcodespacerange
1 beginbfrange
<20> <7E> <E020>
endbfrange
endcmap
CMapName currentdict /CMap defineresource pop
end
end"""


@dataclass(frozen=True)
class PdfPage:
    """One PDF page: an optional heading, paragraphs, an optional table (first row = header).

    A paragraph containing ``\\n`` is laid out with exactly those line breaks; otherwise it is wrapped
    (Japanese by character count, English at word boundaries). ``garbage`` draws the paragraphs with a
    font whose ToUnicode map is broken, so they extract as private-use glyphs.
    """

    paragraphs: Sequence[str] = ()
    heading: str = ""
    table: Sequence[Sequence[str]] | None = None
    garbage: bool = False


def _font(text: str) -> str:
    return "japan" if _CJK.search(text) else "helv"


def wrap_lines(text: str, ja_width: int = 36, en_width: int = 90) -> list[str]:
    """The visual lines a paragraph is drawn as (explicit ``\\n`` kept, else wrapped)."""
    if "\n" in text:
        return text.split("\n")
    if _CJK.search(text):
        return [text[i : i + ja_width] for i in range(0, len(text), ja_width)]
    return textwrap.wrap(text, en_width)


def _draw_table(page: pymupdf.Page, y: float, rows: Sequence[Sequence[str]]) -> float:
    width = (_A4[0] - 2 * _LEFT) / max(len(r) for r in rows)
    height = 20.0
    for r, row in enumerate(rows):
        for c, cell in enumerate(row):
            rect = pymupdf.Rect(_LEFT + c * width, y + r * height, _LEFT + (c + 1) * width, y + (r + 1) * height)
            page.draw_rect(rect, color=(0, 0, 0), width=0.6)
            page.insert_text((rect.x0 + 4, rect.y1 - 6), str(cell), fontname=_font(str(cell)), fontsize=9)
    return y + len(rows) * height + 16


def _draw_page(page: pymupdf.Page, spec: PdfPage, fontsize: float) -> None:
    y = 80.0
    if spec.heading:
        page.insert_text((_LEFT, y), spec.heading, fontname=_font(spec.heading), fontsize=fontsize * 1.6)
        y += fontsize * 3
    for para in spec.paragraphs:
        for line in wrap_lines(para):
            font = _GARBAGE_FONT if spec.garbage else _font(para)
            page.insert_text((_LEFT, y), line, fontname=font, fontsize=fontsize)
            y += fontsize * 1.45
        y += fontsize * 1.2
    if spec.table:
        y = _draw_table(page, y + 4, spec.table)
    if y > _A4[1] - 60:
        raise ValueError(f"page content runs to y={y:.0f}, past the footer; put less on one page")


def _break_garbage_font(doc: pymupdf.Document) -> None:
    for index in range(doc.page_count):
        for xref, _ext, _type, basefont, *_ in doc[index].get_fonts():
            if basefont == "Courier" and doc.xref_get_key(xref, "ToUnicode")[0] == "null":
                stream = doc.get_new_xref()
                doc.update_object(stream, "<<>>")
                doc.update_stream(stream, _PUA_CMAP)
                doc.xref_set_key(xref, "ToUnicode", f"{stream} 0 R")


def make_pdf(
    path: Path,
    pages: Sequence[PdfPage | str],
    *,
    header: str = "",
    footer: str = "",
    fontsize: float = 10.5,
    metadata: Mapping[str, str] | None = None,
    user_password: str | None = None,
) -> Path:
    """Write an A4 PDF.

    Args:
        path: where to write.
        pages: page specs (a plain string is one paragraph on its own page).
        header: running header drawn at the top of every page (``{page}`` / ``{pages}`` filled in).
        footer: running footer at the bottom, e.g. ``"- {page} -"`` or ``"{page} / {pages}"``.
        fontsize: body font size (headings are 1.6 times larger).
        metadata: PDF metadata, e.g. ``{"title": ..., "creationDate": "D:20240115000000"}``.
        user_password: encrypt (AES-256) so the file needs this password to open.

    Returns:
        ``path``.
    """
    doc = pymupdf.open()
    for number, spec in enumerate(pages, start=1):
        spec = PdfPage(paragraphs=(spec,)) if isinstance(spec, str) else spec
        page = doc.new_page(width=_A4[0], height=_A4[1])
        if header:
            text = header.format(page=number, pages=len(pages))
            page.insert_text((_LEFT, 36), text, fontname=_font(text), fontsize=8)
        _draw_page(page, spec, fontsize)
        if footer:
            text = footer.format(page=number, pages=len(pages))
            page.insert_text((_A4[0] / 2 - 15, _A4[1] - 30), text, fontname=_font(text), fontsize=8)
    if metadata:
        doc.set_metadata(dict(metadata))
    _break_garbage_font(doc)
    options: dict[str, Any] = {"garbage": 3, "deflate": True}
    if user_password is not None:
        options.update(encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw=user_password, owner_pw=user_password + "-owner")
    doc.save(str(path), **options)
    doc.close()
    return path


def make_long_pdf(path: Path, n_pages: int, *, table_every: int = 5) -> Path:
    """A multi-page Japanese/English spec with headings, running header/footer and a table every few pages."""
    pages = []
    for n in range(1, n_pages + 1):
        paras = [f"{JA_PARAGRAPHS[(n + i) % len(JA_PARAGRAPHS)]}(第{n}章 {i + 1}節)" for i in range(3)]
        paras.append(EN_PARAGRAPHS[n % len(EN_PARAGRAPHS)])
        table = API_TABLE if table_every and n % table_every == 0 else None
        pages.append(PdfPage(heading=f"{n}. {_TOPICS[n % len(_TOPICS)]}", paragraphs=paras, table=table))
    return make_pdf(path, pages, header="TEE 内部仕様書 v1.2 社外秘", footer="- {page} -")


def make_docx(
    path: Path,
    content: Iterable[str | tuple[str, str] | Sequence[Sequence[str]]],
    *,
    title: str = "",
    created: datetime | None = None,
    header: str = "",
    footer: str = "",
) -> Path:
    """Write a DOCX. Items: ``"text"`` a paragraph, ``("h1", "text")`` a heading (h1-h9), ``("box", "text")`` a
    paragraph anchoring a text box that holds the text (as Word writes it: a shape, and a VML copy for old readers),
    ``("xml", "<w:p …>")`` a body element as written (declare the ``w`` namespace, ``WORD_NS``), ``("chart",
    ChartSpec(…))`` a paragraph drawing a chart, ``("smartart", [nodes])`` one drawing a SmartArt graphic, a list of
    rows a table. ``header`` and ``footer``: the running
    header and footer of the document's section."""
    document = docx.Document()
    for item in content:
        if isinstance(item, str):
            document.add_paragraph(item)
        elif isinstance(item, tuple) and item[0] == "box":
            document.add_paragraph()._p.append(_text_box_run(str(item[1])))
        elif isinstance(item, tuple) and item[0] == "xml":
            document.element.body.sectPr.addprevious(docx.oxml.parse_xml(str(item[1])))
        elif isinstance(item, tuple) and item[0] == "chart" and isinstance(item[1], ChartSpec):
            _add_word_chart(document, item[1])
        elif isinstance(item, tuple) and item[0] == "smartart":
            _add_word_smartart(document, list(item[1]))
        elif isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str) and item[0].startswith("h"):
            document.add_heading(item[1], level=int(item[0][1:]))
        else:
            rows = [list(r) for r in item]
            table = document.add_table(rows=len(rows), cols=max(len(r) for r in rows))
            for r, row in enumerate(rows):
                for c, cell in enumerate(row):
                    table.cell(r, c).text = str(cell)
    if header:
        document.sections[0].header.paragraphs[0].text = header
    if footer:
        document.sections[0].footer.paragraphs[0].text = footer
    if title:
        document.core_properties.title = title
    if created:
        document.core_properties.created = created
    document.save(str(path))
    return path


WORD_NS = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def _add_word_chart(document: Any, spec: ChartSpec) -> None:
    """A paragraph drawing an inline chart whose part holds ``spec``'s figures (the XML PowerPoint would write)."""
    from docx.opc.constants import CONTENT_TYPE, RELATIONSHIP_TYPE
    from docx.opc.packuri import PackURI
    from docx.opc.part import Part

    xml = chart_xml(spec)
    number = sum(1 for rel in document.part.rels.values() if rel.reltype == RELATIONSHIP_TYPE.CHART) + 1
    part = Part(PackURI(f"/word/charts/chart{number}.xml"), CONTENT_TYPE.DML_CHART, xml, document.part.package)
    rid = document.part.relate_to(part, RELATIONSHIP_TYPE.CHART)
    drawing = (
        f"<w:r {_BOX_NAMESPACES} "
        'xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" '
        'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><w:drawing><wp:inline>'
        f'<wp:extent cx="3000000" cy="2000000"/><wp:docPr id="{number}" name="Chart {number}"/><a:graphic>'
        '<a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/chart">'
        f'<c:chart r:id="{rid}"/></a:graphicData></a:graphic></wp:inline></w:drawing></w:r>'
    )
    document.add_paragraph()._p.append(docx.oxml.parse_xml(drawing))


def _add_word_smartart(document: Any, nodes: Sequence[str]) -> None:
    from docx.opc.constants import CONTENT_TYPE, RELATIONSHIP_TYPE
    from docx.opc.packuri import PackURI
    from docx.opc.part import Part

    number = sum(1 for rel in document.part.rels.values() if rel.reltype == RELATIONSHIP_TYPE.DIAGRAM_DATA) + 1
    name = PackURI(f"/word/diagrams/data{number}.xml")
    part = Part(name, CONTENT_TYPE.DML_DIAGRAM_DATA, smartart_data(nodes), document.part.package)
    rid = document.part.relate_to(part, RELATIONSHIP_TYPE.DIAGRAM_DATA)
    drawing = (
        f'<w:r {_BOX_NAMESPACES}><w:drawing><wp:inline><wp:extent cx="5000000" cy="1500000"/>'
        f'<wp:docPr id="{50 + number}" name="Diagram {number}"/><a:graphic>'
        f'<a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/diagram">{smartart_ids(rid)}'
        "</a:graphicData></a:graphic></wp:inline></w:drawing></w:r>"
    )
    document.add_paragraph()._p.append(docx.oxml.parse_xml(drawing))


def chart_xml(spec: ChartSpec) -> bytes:
    """The chart part Office saves for ``spec``: its figures cached beside their cell ranges, its title if any."""
    from pptx.chart.xmlwriter import ChartXmlWriter

    xml = ChartXmlWriter(_chart_type(spec), chart_data(spec)).xml
    if spec.title:
        title = (
            f"<c:title><c:tx><c:rich><a:bodyPr/><a:p><a:r><a:t>{spec.title}</a:t></a:r></a:p></c:rich></c:tx></c:title>"
        )
        xml = xml.replace("<c:chart>", f"<c:chart>{title}", 1)
    return xml.encode("utf-8")


def chart_data(spec: ChartSpec) -> Any:
    """``spec``'s figures as python-pptx chart data (its ``ChartXmlWriter`` writes the part Office would)."""
    from pptx.chart.data import CategoryChartData

    data = CategoryChartData(number_format=spec.number_format)
    data.categories = list(spec.categories)
    for name, values in spec.series.items():
        data.add_series(name, list(values))
    return data


def _chart_type(spec: ChartSpec) -> Any:
    from pptx.enum.chart import XL_CHART_TYPE

    return XL_CHART_TYPE.PIE if spec.pie else XL_CHART_TYPE.COLUMN_CLUSTERED


_BOX_NAMESPACES = (
    'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
    'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" '
    'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" '
    'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
    'xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" '
    'xmlns:v="urn:schemas-microsoft-com:vml"'
)


def _text_box_run(text: str) -> Any:
    """A run drawing a floating text box holding ``text``, written twice as Word does (``mc:AlternateContent``)."""
    content = f"<w:txbxContent><w:p><w:r><w:t>{text}</w:t></w:r></w:p></w:txbxContent>"
    xml = (
        f'<w:r {_BOX_NAMESPACES}><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing>'
        '<wp:anchor><wp:extent cx="1800000" cy="600000"/><a:graphic>'
        '<a:graphicData uri="http://schemas.microsoft.com/office/word/2010/wordprocessingShape">'
        f"<wps:wsp><wps:txbx>{content}</wps:txbx></wps:wsp></a:graphicData></a:graphic></wp:anchor></w:drawing>"
        f"</mc:Choice><mc:Fallback><w:pict><v:rect><v:textbox>{content}</v:textbox></v:rect></w:pict>"
        "</mc:Fallback></mc:AlternateContent></w:r>"
    )
    return docx.oxml.parse_xml(xml)


def make_xlsx(path: Path, sheets: Mapping[str, Sequence[Sequence[object]]], *, title: str = "") -> Path:
    """Write an XLSX with one sheet per entry (rows as given, first row = header)."""
    workbook = openpyxl.Workbook()
    workbook.remove(workbook.active)
    for name, rows in sheets.items():
        sheet = workbook.create_sheet(name)
        for row in rows:
            sheet.append(list(row))
    if title:
        workbook.properties.title = title
    workbook.save(str(path))
    return path


def make_html(path: Path, body: str, *, title: str = "", head: str = "", encoding: str = "utf-8") -> Path:
    """Write an HTML page around ``body`` (declaring ``encoding`` in a meta tag)."""
    page = (
        f'<!DOCTYPE html><html><head><meta charset="{encoding}"><title>{title}</title>{head}</head>'
        f"<body>{body}</body></html>"
    )
    path.write_bytes(page.encode(encoding))
    return path


def make_csv(
    path: Path,
    header: Sequence[object],
    rows: Iterable[Sequence[object]],
    *,
    encoding: str = "utf-8",
    delimiter: str = ",",
) -> Path:
    """Write a CSV file."""
    with path.open("w", encoding=encoding, newline="") as handle:
        writer = csv.writer(handle, delimiter=delimiter)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def make_jsonl(path: Path, records: Iterable[Any]) -> Path:
    """Write JSON Lines (UTF-8, one record per line)."""
    with path.open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    return path


def make_json(path: Path, data: Any) -> Path:
    """Write one JSON document (UTF-8)."""
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    return path


@dataclass(frozen=True)
class ChartSpec:
    """A chart: its title ("" for none), categories, each series' values, the number format they show them in,
    bar or pie."""

    title: str
    categories: Sequence[str]
    series: Mapping[str, Sequence[float]]
    number_format: str = "General"
    pie: bool = False


@dataclass(frozen=True)
class Slide:
    """One slide: a title, text boxes (each may hold several lines), an optional table and chart, the nodes of a
    SmartArt graphic, speaker notes."""

    title: str = ""
    boxes: Sequence[str] = ()
    table: Sequence[Sequence[str]] | None = None
    notes: str = ""
    chart: ChartSpec | None = None
    smartart: Sequence[str] = ()


def _add_chart(slide: Any, spec: ChartSpec, top: int) -> None:
    from pptx.util import Inches

    chart = slide.shapes.add_chart(_chart_type(spec), Inches(0.6), top, Inches(6), Inches(3), chart_data(spec)).chart
    if spec.title:
        chart.has_title = True
        chart.chart_title.text_frame.text = spec.title


_DGM_NAMESPACES = (
    'xmlns:dgm="http://schemas.openxmlformats.org/drawingml/2006/diagram" '
    'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'
)


def smartart_data(nodes: Sequence[str]) -> bytes:
    """A SmartArt data part (``dgm:dataModel``) holding ``nodes``, with the document point and the connector points
    (whose text is not the graphic's) that PowerPoint writes beside them."""
    points = ['<dgm:pt modelId="0" type="doc"><dgm:prSet/><dgm:spPr/><dgm:t><a:bodyPr/><a:p/></dgm:t></dgm:pt>']
    for n, text in enumerate(nodes, start=1):
        points.append(f'<dgm:pt modelId="{n}"><dgm:prSet/><dgm:spPr/><dgm:t><a:bodyPr/><a:lstStyle/>'
                      f"<a:p><a:r><a:rPr/><a:t>{text}</a:t></a:r></a:p></dgm:t></dgm:pt>")  # fmt: skip
        points.append(f'<dgm:pt modelId="{100 + n}" type="parTrans"><dgm:prSet/><dgm:spPr/><dgm:t><a:bodyPr/>'
                      "<a:p><a:r><a:t>connector</a:t></a:r></a:p></dgm:t></dgm:pt>")  # fmt: skip
    xml = f"<dgm:dataModel {_DGM_NAMESPACES}><dgm:ptLst>{''.join(points)}</dgm:ptLst><dgm:cxnLst/></dgm:dataModel>"
    return xml.encode("utf-8")


def smartart_ids(rid: str) -> str:
    """The ``dgm:relIds`` element a graphic frame or a Word drawing holds for a SmartArt graphic."""
    return f'<dgm:relIds {_DGM_NAMESPACES} r:dm="{rid}" r:lo="" r:qs="" r:cs=""/>'


def _add_slide_smartart(slide: Any, nodes: Sequence[str]) -> None:
    from pptx.opc.constants import CONTENT_TYPE, RELATIONSHIP_TYPE
    from pptx.opc.package import Part
    from pptx.opc.packuri import PackURI
    from pptx.oxml import parse_xml

    name = PackURI(f"/ppt/diagrams/data{slide.slide_id}.xml")
    part = Part(name, CONTENT_TYPE.DML_DIAGRAM_DATA, slide.part.package, smartart_data(nodes))
    rid = slide.part.relate_to(part, RELATIONSHIP_TYPE.DIAGRAM_DATA)
    frame = (
        '<p:graphicFrame xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" '
        'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><p:nvGraphicFramePr>'
        '<p:cNvPr id="90" name="Diagram 1"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr>'
        '<p:xfrm><a:off x="457200" y="4800000"/><a:ext cx="8000000" cy="1500000"/></p:xfrm><a:graphic>'
        f'<a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/diagram">{smartart_ids(rid)}'
        "</a:graphicData></a:graphic></p:graphicFrame>"
    )
    slide.shapes._spTree.append(parse_xml(frame))


def make_pptx(path: Path, slides: Sequence[Slide], *, title: str = "") -> Path:
    """Write a PPTX (python-pptx) with a "Title Only" layout per slide; boxes are stacked top to bottom."""
    from pptx import Presentation
    from pptx.util import Inches, Pt

    deck = Presentation()
    for spec in slides:
        slide = deck.slides.add_slide(deck.slide_layouts[5])
        slide.shapes.title.text = spec.title
        top = 1.6
        for box in spec.boxes:
            frame = slide.shapes.add_textbox(Inches(0.6), Inches(top), Inches(8.5), Inches(0.8)).text_frame
            lines = box.split("\n")
            frame.text = lines[0]
            for line in lines[1:]:
                frame.add_paragraph().text = line
            for paragraph in frame.paragraphs:
                for run in paragraph.runs:
                    run.font.size = Pt(16)
            top += 0.9
        if spec.table:
            rows, cols = len(spec.table), max(len(r) for r in spec.table)
            shape = slide.shapes.add_table(rows, cols, Inches(0.6), Inches(top), Inches(8.5), Inches(0.4 * rows))
            for r, row in enumerate(spec.table):
                for c, cell in enumerate(row):
                    shape.table.cell(r, c).text = str(cell)
        if spec.chart:
            _add_chart(slide, spec.chart, Inches(top + 2))
        if spec.smartart:
            _add_slide_smartart(slide, spec.smartart)
        if spec.notes:
            slide.notes_slide.notes_text_frame.text = spec.notes
    if title:
        deck.core_properties.title = title
    deck.save(str(path))
    return path


def inflate_part(path: Path, part: str, xml: bytes) -> Path:
    """Rewrite an Office file with ``part`` replaced by ``xml`` (a ZIP bomb when ``xml`` is huge and repetitive)."""
    with zipfile.ZipFile(path) as original:
        members = {info.filename: original.read(info) for info in original.infolist()}
    members[part] = xml
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as bomb:
        for name, data in members.items():
            bomb.writestr(name, data)
    path.write_bytes(buffer.getvalue())
    return path
