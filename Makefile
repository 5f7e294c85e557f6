# kgviz: `make demo` sets up and runs the main job; `make test` sets up and runs all tests.
# The venv and the offline model live outside the checkout (KGVIZ_CACHE, default ~/.cache/kgviz),
# the venv keyed by requirements.lock, so a warm run installs nothing.

PYTHON ?= python3
KGVIZ_CACHE ?= $(HOME)/.cache/kgviz
export KGVIZ_CACHE
# The venv is shared by every checkout with the same lock; this checkout's code always comes first.
export PYTHONPATH := $(CURDIR)$(if $(PYTHONPATH),:$(PYTHONPATH))
LOCK_KEY := $(shell cat requirements.lock | sha256sum | cut -c1-12)
VENV := $(KGVIZ_CACHE)/venv-py311-$(LOCK_KEY)
PY := $(VENV)/bin/python
READY := $(VENV)/.kgviz-ready
LINKED := $(VENV)/.kgviz-linked-$(shell { printf '%s' "$(CURDIR)"; cat pyproject.toml; } | sha256sum | cut -c1-12)
TORCH := torch==2.13.0
PYTEST_ARGS ?=

.PHONY: setup model browser-deps lint demo test lab clean-venv

$(READY):
	@echo "== creating venv $(VENV)"
	rm -rf "$(VENV)"
	$(PYTHON) -m venv "$(VENV)"
	"$(PY)" -m pip install --quiet --upgrade pip
	"$(PY)" -m pip install --quiet "$(TORCH)"
	"$(PY)" -m pip install --quiet -r requirements.lock
	touch "$(READY)"

$(LINKED): | $(READY)
	@echo "== linking this checkout into the venv"
	"$(PY)" -m pip install --quiet --no-deps --no-build-isolation -e .
	rm -f "$(VENV)"/.kgviz-linked-*
	touch "$(LINKED)"
	ln -sfn "$(VENV)" .venv

setup: $(LINKED)

model: setup
	"$(PY)" -m kgviz model prepare --prefixes demo

demo: model
	"$(PY)" -m kgviz demo

browser-deps:
	@test -x /usr/bin/chromium || { apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver; }

lint: setup
	"$(VENV)/bin/ruff" check kgviz tests bench
	"$(VENV)/bin/ruff" format --check kgviz tests bench
	"$(VENV)/bin/mypy" --cache-dir "$(KGVIZ_CACHE)/mypy-cache" kgviz

test: model browser-deps lint
	"$(PY)" -m pytest $(PYTEST_ARGS)


lab: model
	"$(VENV)/bin/jupyter" lab notebooks/

clean-venv:
	rm -rf "$(VENV)" .venv
