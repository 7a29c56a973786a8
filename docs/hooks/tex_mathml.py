"""mkdocs hook: the pages' TeX (``$…$`` and ``$$…$$``, as GitHub renders them) becomes
MathML when the site is built, so formulas show in any current browser with no script and
nothing fetched: site/ works offline, like the HTML reports.

pymdownx.arithmatex (``generic: true``) finds the math in the Markdown, code spans and
escapes respected, and wraps it as ``<span class="arithmatex">\\(…\\)</span>``; this hook
converts that with latex2mathml. A formula it cannot convert is reported as a warning, an
error under ``--strict``.

GitHub also shows ``$$…$$`` as display math inside a paragraph or a list item, where
arithmatex only sees inline math; so before arithmatex runs, each ``$$X$$`` outside code
becomes the inline ``$\\displaystyle X$``, which is drawn as a display formula.
"""

import html
import logging
import re

from latex2mathml.converter import convert

log = logging.getLogger("mkdocs.hooks.tex_mathml")

DISPLAY = "\\displaystyle "
INLINE = re.compile(r'<span class="arithmatex">\\\((.*?)\\\)</span>', re.DOTALL)
BLOCK = re.compile(r'<div class="arithmatex">\\\[(.*?)\\\]</div>', re.DOTALL)
DOUBLE_DOLLAR = re.compile(r"\$\$(.+?)\$\$", re.DOTALL)
# what latex2mathml does not take: a row gap after \\ (\\[1.2ex]), and \_ inside a text
# command (\texttt{mean\_pktsize}), where it is a plain underscore
ROW_GAP = re.compile(r"\\\\\[[^\]]*\]")
TEXT_ARG = re.compile(r"\\(text|texttt|textrm|mathrm|mathit)\{([^{}]*)\}")
# fenced code blocks and code spans, where a dollar is a dollar
CODE = re.compile(r"^([ \t]*)(```|~~~).*?^\1\2[ \t]*$|`[^`\n]*`", re.DOTALL | re.MULTILINE)


def _display_inline(m: "re.Match[str]") -> str:
    return "$" + DISPLAY + " ".join(m.group(1).split()) + "$"


def on_page_markdown(markdown, page, config, files):
    out, last = [], 0
    for code in CODE.finditer(markdown):
        out.append(DOUBLE_DOLLAR.sub(_display_inline, markdown[last:code.start()]))
        out.append(code.group(0))
        last = code.end()
    out.append(DOUBLE_DOLLAR.sub(_display_inline, markdown[last:]))
    return "".join(out)


def _mathml(tex: str, display: str, page) -> str:
    source = html.unescape(tex).strip()
    source = ROW_GAP.sub(r"\\\\", source)
    source = TEXT_ARG.sub(lambda m: "\\" + m.group(1) + "{" + m.group(2).replace("\\_", "_") + "}", source)
    if source.startswith(DISPLAY.strip()):
        display = "block"
    try:
        return convert(source, display=display)
    except Exception as exc:  # latex2mathml raises its own exception types, one per fault
        log.warning("%s: cannot convert the formula %r to MathML: %s", page.file.src_path, source, exc)
        return f"<code>{html.escape(source)}</code>"


def on_page_content(content, page, config, files):
    content = BLOCK.sub(lambda m: _mathml(m.group(1), "block", page), content)
    return INLINE.sub(lambda m: _mathml(m.group(1), "inline", page), content)
