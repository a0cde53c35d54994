"""The figure library as the site names it: the page that shows its source, and how to tell an editor draws with it.

A leaf, so that both sides read it from here: the editors extension links to the page above the first editor that
uses the library (extensions.editors), and library_page writes the page.
"""

OUTPUT = "figlib.html"  # the library's own source, read-only (library_page)


def uses_library(code):
    """Does an editor's `code` draw with the figure library?"""
    return "kernelviz.figlib" in code
