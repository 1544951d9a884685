"""A small, escaping subset of Markdown for the spec's rule texts embedded in the report.

Paragraphs, lists, fenced code, inline code, strong and emphasis. All text is escaped first; links
stay links only when they point inside the page (the report refers to nothing outside itself), and
inline code naming a known rule anchor links to that rule.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from markupsafe import Markup, escape

_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_STRONG = re.compile(r"\*\*(.+?)\*\*")
_EM = re.compile(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])")
_LINK = re.compile(r"\[((?:`[^`]*`|[^\[\]`])+)\]\(([^)\s]+)\)")
_LIST_ITEM = re.compile(r"^\s{0,3}(?:[-*+]|\d+[.)])\s+(.*)$")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")


def _inline(text: str, anchors: frozenset[str]) -> Markup:
    out: list[str] = []
    last = 0
    for match in _LINK.finditer(text):
        out.append(_code_and_plain(text[last : match.start()], anchors, link_rules=True))
        label, target = match.group(1), match.group(2)
        label_html = _code_and_plain(label, anchors, link_rules=False)
        named = [code.strip() for _, code in _CODE_SPAN.findall(label) if code.strip() in anchors]
        # A link stays a link only when it lands on a rule in this page: the report points at
        # nothing outside itself, and a heading slug of the markdown file is no id here.
        if target.startswith("#") and (target[1:] in anchors or len(named) == 1):
            rule = target[1:] if target[1:] in anchors else named[0]
            out.append(str(Markup('<a class="rule" href="#{}">{}</a>').format(rule, label_html)))
        elif target.startswith("#"):
            out.append(label_html)
        else:
            out.append(str(Markup("{} ({})").format(label_html, target)))
        last = match.end()
    out.append(_code_and_plain(text[last:], anchors, link_rules=True))
    return Markup("".join(out))


def _code_and_plain(text: str, anchors: frozenset[str], *, link_rules: bool) -> Markup:
    out: list[str] = []
    last = 0
    for match in _CODE_SPAN.finditer(text):
        out.append(_plain(text[last : match.start()]))
        code = match.group(2).strip()
        code_html = Markup("<code>{}</code>").format(code)
        if link_rules and code in anchors:
            code_html = Markup('<a class="rule" href="#{}">{}</a>').format(code, code_html)
        out.append(str(code_html))
        last = match.end()
    out.append(_plain(text[last:]))
    return Markup("".join(out))


def _plain(text: str) -> str:
    html = str(escape(text))
    html = _STRONG.sub(r"<strong>\1</strong>", html)
    return _EM.sub(r"<em>\1</em>", html)


def markdown_html(text: str, anchors: Iterable[str] = ()) -> Markup:
    """A small, escaping subset of Markdown for rule texts: paragraphs, lists, code, emphasis."""
    known = frozenset(anchors)
    blocks: list[str] = []
    paragraph: list[str] = []
    items: list[str] = []
    lines = text.split("\n")

    def flush() -> None:
        if paragraph:
            if all(line.lstrip().startswith("|") for line in paragraph):
                blocks.append(str(Markup("<pre>{}</pre>").format("\n".join(paragraph))))
            else:
                blocks.append(f"<p>{_inline(' '.join(s.strip() for s in paragraph), known)}</p>")
            paragraph.clear()
        if items:
            blocks.append(
                "<ul>" + "".join(f"<li>{_inline(i, known)}</li>" for i in items) + "</ul>"
            )
            items.clear()

    index = 0
    while index < len(lines):
        line = lines[index]
        fence = _FENCE.match(line)
        if fence:
            flush()
            marker = fence.group(1)
            code: list[str] = []
            index += 1
            while index < len(lines) and not lines[index].strip().startswith(marker):
                code.append(lines[index])
                index += 1
            blocks.append(str(Markup("<pre><code>{}</code></pre>").format("\n".join(code))))
        elif not line.strip():
            flush()
        elif item := _LIST_ITEM.match(line):
            if paragraph:
                flush()
            items.append(item.group(1))
        elif items and line.startswith((" ", "\t")):
            items[-1] += " " + line.strip()
        else:
            if items:
                flush()
            paragraph.append(line)
        index += 1
    flush()
    return Markup("\n".join(blocks))
