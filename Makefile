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
# pytest-xdist workers: one per core, at most 4 (each loads the offline model, about 2 GB)
PYTEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null || sysctl -n hw.ncpu 2>/dev/null || echo 1); \
	[ "$$n" -gt 4 ] && n=4; echo $$n)
PYTEST := "$(PY)" -m pytest -n $(PYTEST_WORKERS) --dist loadfile --durations=15
FAST_TIER := not llm and not browser and not notebook and not slow

.PHONY: setup model browser-deps lint demo test test-fast lab clean-venv

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

# Chromium for the browser tier: installed with apt-get where this user may; otherwise the
# browser tests skip with the reason (under CI=true they fail: CI must run them).
browser-deps:
	@if [ -n "$$KGVIZ_CHROMIUM" ] || command -v chromium >/dev/null 2>&1 || \
		command -v chromium-browser >/dev/null 2>&1; then :; \
	elif command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver; \
	elif command -v apt-get >/dev/null 2>&1 && sudo -n true 2>/dev/null; then \
		sudo apt-get update -qq && \
		sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver; \
	else \
		echo "== no Chromium, and no root to install it: the browser tests will be skipped"; \
	fi

lint: setup
	"$(VENV)/bin/ruff" check kgviz tests bench
	"$(VENV)/bin/ruff" format --check kgviz tests bench
	"$(VENV)/bin/mypy" --cache-dir "$(KGVIZ_CACHE)/mypy-cache" kgviz

# Every tier: lint, then the tests on every core (tests/tiers.py), ending with each tier's totals
test: model browser-deps lint
	$(PYTEST) $(PYTEST_ARGS)

# No real model, no browser, no notebook, nothing slow: a few minutes
test-fast: setup
	$(PYTEST) -m "$(FAST_TIER)" $(PYTEST_ARGS)


lab: model
	"$(VENV)/bin/jupyter" lab notebooks/

clean-venv:
	rm -rf "$(VENV)" .venv
