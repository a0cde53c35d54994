"""The table of sections every page opens with: its ``##`` headings, with their ``###`` headings nested.

Headings get ids from mdit-py-plugins' anchors (GitHub-style slugs; ``{#id}`` after a heading sets one explicitly).
"""

from markdown_it.common.utils import escapeHtml


def plugin(md):
    pass  # ids come from the anchors plugin; the table is collected in resolve


def resolve(page, context):
    page.toc = []
    for i, token in enumerate(page.tokens):
        if token.type == "heading_open" and token.tag in ("h2", "h3"):
            page.toc.append((int(token.tag[1]), token.attrGet("id"), page.tokens[i + 1]))


def render(page, md):
    """The table as nested lists, or '' when the page has no sections."""
    if not page.toc:
        return ""
    html, depth = ['<nav class="kv-toc" aria-label="Sections"><ul>'], 2
    for n, (level, id_, inline) in enumerate(page.toc):
        if n:
            if level > depth:
                html.append("<ul>")
            else:
                html.append("</li>")
                if level < depth:
                    html.append("</ul></li>")
        depth = level
        text = md.renderer.renderInline(_without_links(inline.children), md.options, page.env)
        html.append(f'<li><a href="#{escapeHtml(id_ or "")}">{text}</a>')
    html.append("</li>" + "</ul></li>" * (depth - 2) + "</ul></nav>")
    return "".join(html)


def _without_links(children):
    return [c for c in children if c.type not in ("link_open", "link_close")]
