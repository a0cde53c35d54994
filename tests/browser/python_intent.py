"""Python on the site's pages is fetched only when the reader reaches for it (web/src/editors/session.js), and the
editors themselves only when the reader reaches for one (web/src/entries/main.js): tests that need them ask for them,
as a reader's click in an editor would."""

PYTHON_READY_S = 120  # a cold Pyodide on a loaded 2-core machine


def mount_editors(page, timeout_s=60):
    """Load the page's editors as a reader's reach would (window.kernelviz.editors(); a page without the runtime loads
    them itself) and wait until every one is mounted (window.kernelvizEditors is set then)."""
    page.wait_for_function("window.kernelviz && (window.kernelviz.editors || window.kernelvizEditors)")
    page.evaluate("() => window.kernelviz.editors ? window.kernelviz.editors().then(() => true) : true")
    page.wait_for_function("window.kernelvizEditors && kernelvizEditors.editors.length > 0", timeout=timeout_s * 1000)


def start_python(page, timeout_s=PYTHON_READY_S):
    """Start the page's Python (window.kernelvizEditors.python.start(), once the editors are mounted) and wait until
    it is ready."""
    mount_editors(page)
    page.evaluate("kernelvizEditors.python.start()")
    page.wait_for_function("kernelvizEditors.python.state === 'ready'", timeout=timeout_s * 1000)
