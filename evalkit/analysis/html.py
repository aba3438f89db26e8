"""The report as one self-contained HTML file, and the markdown as MLflow's artifact preview can show it.

Only the Markdown evalkit's report writes is converted (headings, paragraphs, ``**bold**``, pipe tables, images,
bullet lists): no Markdown library is a dependency. Images are embedded as base64 ``data:`` URIs, so the page
renders from disk, as an e-mail attachment and in MLflow's HTML preview (a sandboxed frame that cannot fetch the
run's other artifacts).

MLflow renders ``.md`` artifacts with react-markdown, whose URL filter drops ``data:`` URIs and resolves a relative
``forest.png`` against the UI's page, not the artifact folder: the images showed as their alt text. The copy of
``report.md`` logged to MLflow therefore points each image at the server's own artifact route
(``get-artifact?path=<file>&run_uuid=<run>``, relative, so a server behind a path prefix works too).
"""

from __future__ import annotations

import base64
import html
import re
from pathlib import Path

IMAGE = re.compile(r"^!\[([^\]]*)\]\(([^)]+)\)$")
STYLE = """
body { font-family: system-ui, sans-serif; max-width: 1200px; margin: 1em auto; padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 3px 8px; } th { background: #f3f3f3; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.better { color: #1a7f37; font-weight: 600; } .worse { color: #c62828; font-weight: 600; } .neutral { color: #666; }
img { max-width: 100%; height: auto; display: block; margin: 0.5em 0; }
"""
EFFECT_CLASSES = (("🟢", "better"), ("🔴", "worse"), ("⚪", "neutral"))


def _inline(text: str) -> str:
    escaped = html.escape(text, quote=False)
    escaped = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", escaped)
    return re.sub(r"\*([^*\s][^*]*?)\*", r"<i>\1</i>", escaped)


def _cell(text: str, header: bool) -> str:
    text = text.strip()
    tag = "th" if header else "td"
    for mark, css in EFFECT_CLASSES:
        if text.startswith(mark):  # the verdict by the metric's direction: coloured, not only an emoji
            return f'<{tag} class="{css}">{_inline(text.removeprefix(mark).strip())}</{tag}>'
    numeric = bool(re.fullmatch(r"[▲▼=]?\s*[-+–<]?[\d.]+[*]*|–", text))
    return f"<{tag}{' class=num' if numeric and not header else ''}>{_inline(text)}</{tag}>"


def _image(alt: str, src: str, base: Path) -> str:
    path = base / src
    if path.is_file():
        data = base64.b64encode(path.read_bytes()).decode("ascii")
        src = f"data:image/png;base64,{data}"
    return f'<img alt="{html.escape(alt)}" src="{src}">'


def to_html(markdown: str, base: Path, title: str = "evalkit robustness report") -> str:
    """The report's Markdown as a standalone page; images under ``base`` embedded."""
    body: list[str] = []
    lines = markdown.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("|"):
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                rows.append([c for c in lines[i].strip().strip("|").split("|")])
                i += 1
            header, data = rows[0], [r for r in rows[1:] if not all(set(c.strip()) <= set("-:") for c in r)]
            body.append("<table><tr>" + "".join(_cell(c, True) for c in header) + "</tr>")
            body += ["<tr>" + "".join(_cell(c, False) for c in row) + "</tr>" for row in data]
            body.append("</table>")
            continue
        if line.startswith("- "):
            body.append("<ul>")
            while i < len(lines) and lines[i].startswith("- "):
                body.append(f"<li>{_inline(lines[i][2:])}</li>")
                i += 1
            body.append("</ul>")
            continue
        heading = re.match(r"^(#{1,6}) (.*)$", line)
        image = IMAGE.match(line)
        if heading:
            level = len(heading.group(1))
            body.append(f"<h{level}>{_inline(heading.group(2))}</h{level}>")
        elif image:
            body.append(_image(image.group(1), image.group(2), base))
        elif line.strip():
            body.append(f"<p>{_inline(line)}</p>")
        i += 1
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<style>{STYLE}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )


def for_mlflow(markdown: str, run_id: str) -> str:
    """The Markdown with each local image pointed at MLflow's artifact route of ``run_id`` (see the module doc)."""

    def point(match: re.Match[str]) -> str:
        alt, src = match.group(1), match.group(2)
        if ":" in src or src.startswith("/"):
            return match.group(0)
        return f"![{alt}](get-artifact?path={src}&run_uuid={run_id})"

    return "\n".join(IMAGE.sub(point, line) for line in markdown.splitlines()) + "\n"
