"""Walking a page's tokens with the line each is written on."""


def walk(tokens, line=None):
    """Yield (token, line from 1) for every token, children included. A child's line is its block's line plus the
    line breaks before it in the block, so warnings point at the line a link or placeholder is written on."""
    for token in tokens:
        here = token.map[0] + 1 if token.map else line
        yield token, here
        if token.children:
            child_line = here
            for child in token.children:
                yield child, child_line
                if child.type in ("softbreak", "hardbreak") and child_line is not None:
                    child_line += 1
