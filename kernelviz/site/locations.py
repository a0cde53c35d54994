"""Where the builder finds what it ships with the textbook, installed or not:

    in a wheel (pip install kernelviz)    kernelviz/bundled/web    kernelviz/bundled/pages
    in a checkout (pip install -e .)      web/dist                 pages/

The wheel's ``bundled/`` is copied from the checkout when the wheel is built (``setup.py``, which refuses to build
one without web/dist). A checkout never has ``kernelviz/bundled/``, so there the repository's folders are used.
"""

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]  # kernelviz/
BUNDLED = PACKAGE / "bundled"
CHECKOUT = PACKAGE.parent  # the repository, when kernelviz is imported from a checkout


def installed():
    """True when this kernelviz carries its own runtime and pages (a wheel), False in a checkout."""
    return (BUNDLED / "web").is_dir()


WEB_DIST = BUNDLED / "web" if installed() else CHECKOUT / "web" / "dist"  # the bundled browser runtime
PAGES = BUNDLED / "pages" if installed() else CHECKOUT / "pages"  # the textbook's pages
CUDA = PACKAGE / "cuda"  # the kernels the pages cite, and the CPU shim
