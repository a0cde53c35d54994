# The README's two commands: `make serve` and `make test`. Each sets up what it needs, once, and no more:
# serve needs Python packages (PyPI) and the bundled runtime (node, npm registry): no root, no browser;
# test adds the dev tools and Debian's Chromium for the browser tests (installed with apt-get when missing).
VENV := .venv
PY := $(VENV)/bin/python
WEB_SOURCES := $(shell find web/src -type f 2>/dev/null) web/build.mjs kernelviz/pie/scene.schema.json \
	kernelviz/attention/formulas.py kernelviz/attention/flops.py kernelviz/attention/js_port.py \
	$(wildcard kernelviz/attention/closed_forms/*.py) \
	$(wildcard kernelviz/attention/*.py kernelviz/attention/topics/*.py) kernelviz/roofline/__init__.py \
	kernelviz/roofline/js_bound.py
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: serve test setup lint format chromium bench wheel

serve: $(VENV)/.installed web/dist/.built
	$(VENV)/bin/kernelviz serve --host $(HOST) --port $(PORT)

test: setup chromium
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(PY) -m pytest

# everything but Chromium: the package with its dev tools, and the bundled runtime
setup: $(VENV)/.installed-dev web/dist/.built

$(VENV)/.installed: pyproject.toml setup.py
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e .
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $@

# the wheel that carries the whole site (see setup.py): dist/kernelviz-VERSION-py3-none-any.whl
wheel: $(VENV)/.installed-dev web/dist/.built
	$(PY) -m pip wheel --quiet --no-deps --no-build-isolation -w dist .

web/node_modules/.installed: web/package.json web/package-lock.json
	cd web && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# after the package: the generators of web/.gen/topics.js and bound.js import it (web/build.mjs takes .venv's Python)
web/dist/.built: web/node_modules/.installed $(VENV)/.installed $(WEB_SOURCES)
	cd web && node build.mjs
	touch $@

chromium:
	@command -v chromium >/dev/null || { \
		echo "Installing Debian's chromium (needs root)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

lint:
	$(VENV)/bin/ruff check . && $(VENV)/bin/ruff format --check .

format:
	$(VENV)/bin/ruff check --fix . && $(VENV)/bin/ruff format .

bench: setup
	for b in bench/*.py; do $(PY) $$b || exit 1; done
