"""Python on the site's pages is fetched only when the reader reaches for it (web/src/editors/session.js): tests that
need it ask for it, as a reader's click in an editor would."""

PYTHON_READY_S = 120  # a cold Pyodide on a loaded 2-core machine


def start_python(page, timeout_s=PYTHON_READY_S):
    """Start the page's Python (window.kernelvizEditors.python.start(), once the editors are mounted) and wait until
    it is ready."""
    page.wait_for_function("window.kernelvizEditors && kernelvizEditors.editors.length > 0")
    page.evaluate("kernelvizEditors.python.start()")
    page.wait_for_function("kernelvizEditors.python.state === 'ready'", timeout=timeout_s * 1000)
