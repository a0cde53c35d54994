"""The wheel carries the whole textbook: besides the package, build_py copies the bundled browser runtime
(web/dist: the entries, Temml's CSS and font, the build-time JS, Pyodide) to kernelviz/bundled/web and the pages to
kernelviz/bundled/pages, where kernelviz.site.locations finds them once installed. web/dist is built by node
(`make setup`, or `cd web && npm ci && node build.mjs`); building a wheel without it is an error that says so.
An editable install (`pip install -e .`) copies nothing: it uses the checkout's web/dist and pages/ in place.

    pip wheel --no-deps -w dist .        # or: python -m build --wheel
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
BUNDLE = {"web": HERE / "web" / "dist", "pages": HERE / "pages"}


class BuildWithSite(build_py):
    """build_py, then the runtime and the pages into the built package's bundled/ folder."""

    def run(self):
        super().run()
        if self.editable_mode:
            return
        missing = [str(p) for p in BUNDLE.values() if not p.is_dir()]
        if not (HERE / "web" / "dist" / "main.js").is_file():
            missing.append(str(HERE / "web" / "dist" / "main.js"))
        if missing:
            raise SystemExit(
                f"cannot build a kernelviz wheel: missing {', '.join(missing)}. The wheel carries the bundled "
                "browser runtime; build it first with `make setup` (or `cd web && npm ci && node build.mjs`)"
            )
        target = Path(self.build_lib) / "kernelviz" / "bundled"
        shutil.rmtree(target, ignore_errors=True)
        for name, source in BUNDLE.items():
            shutil.copytree(source, target / name, ignore=shutil.ignore_patterns(".*"))


setup(cmdclass={"build_py": BuildWithSite})
