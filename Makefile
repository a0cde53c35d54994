# The README's two commands: `make serve` and `make test`. Each sets up what it needs, once.
# Python packages come from PyPI, front-end packages from the npm registry, Chromium from Debian.
VENV := .venv
PY := $(VENV)/bin/python
WEB_SOURCES := $(shell find web/src -type f 2>/dev/null) web/build.mjs kernelviz/pie/scene.schema.json
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: serve test setup lint format chromium bench

serve: setup
	$(VENV)/bin/kernelviz serve --host $(HOST) --port $(PORT)

test: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(PY) -m pytest

setup: $(VENV)/.installed web/dist/.built chromium

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $@

web/node_modules/.installed: web/package.json web/package-lock.json
	cd web && npm ci --no-audit --no-fund --loglevel=error
	touch $@

web/dist/.built: web/node_modules/.installed $(WEB_SOURCES)
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
