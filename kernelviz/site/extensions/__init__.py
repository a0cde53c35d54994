"""The page format's Markdown extensions, one module each.

Each has ``plugin(md)`` (parsing rules that annotate tokens) and, where its output depends on other pages, the
figure or files, ``resolve(page, context)`` (called by the build after the editors ran; it fills in the annotations
and warns through ``context.diagnostics``).
"""
