# aqmsim — build, test and demo.  GNU make; run `make` for the list of targets.
SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV    ?= .venv
PY      := $(VENV)/bin/python
PIP     := $(PY) -m pip
MATURIN := $(VENV)/bin/maturin
CARGO   ?= cargo
PYTHON3 ?= python3

# apt-get needs root; use sudo only when we are not root already.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

RUST_SOURCES := $(shell find crates -name '*.rs' -o -name 'Cargo.toml' 2>/dev/null) Cargo.toml pyproject.toml
VENV_STAMP   := $(VENV)/.deps-stamp
BUILD_STAMP  := $(VENV)/.build-stamp

PY_DEPS := numpy pandas matplotlib typer rich pytest hypothesis

.PHONY: help venv build ns2 test pytest cargo-test demo bench clean

help: ## list the targets
	@grep -hE '^[a-zA-Z0-9_-]+:.*?## ' $(MAKEFILE_LIST) | \
	  awk 'BEGIN {FS = ":.*?## "}; {printf "  \033[36m%-12s\033[0m %s\n", $$1, $$2}'

venv: $(VENV_STAMP) ## create .venv and install maturin + the Python dependencies

# Debian's own python3 needs the python3-venv package for `-m venv`: install it if missing.
$(VENV_STAMP):
	@test -x $(PY) || $(PYTHON3) -m venv $(VENV) || { rm -rf $(VENV) && \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq python3-venv && \
	  $(PYTHON3) -m venv $(VENV); }
	$(PIP) install -q -U pip maturin
	$(PIP) install -q $(PY_DEPS)
	@touch $@

build: $(BUILD_STAMP) ## compile the Rust extension (release) into .venv with maturin develop

$(BUILD_STAMP): $(VENV_STAMP) $(RUST_SOURCES)
	VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(VENV))/bin:$$PATH $(MATURIN) develop --release
	@touch $@

ns2: ## install ns-2 (Debian package ns2) when `ns` is not on PATH
	@command -v ns >/dev/null || ($(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq ns2)

cargo-test: ## run the Rust engine's tests
	$(CARGO) test --release -p aqmsim-core

pytest: build ## run the Python test suite only
	$(PY) -m pytest -q

test: build ns2 ## run every test: cargo test (engine) + pytest (Python, CLI, ns-2 cross-checks)
	$(CARGO) test --release -p aqmsim-core
	$(PY) -m pytest -q

demo: build ## run the example RED dumbbell; writes summary, data and queue.png to out/demo
	$(VENV)/bin/aqmsim run examples/dumbbell-red.toml --out out/demo

# Fallback benchmark while there is no aqmsim.bench module: one 100-flow run, timed.
define BENCH_PY
import time, aqmsim
sc = aqmsim.Scenario.from_toml("examples/dumbbell-red.toml").with_overrides(
    **{"dumbbell.groups.0.count": 100, "duration": 60, "dumbbell.groups.0.stop": 60,
       "dumbbell.bottleneck.rate": "15Mb"})
sc.run(seed=1)  # warm-up
best = None
for seed in (1, 2, 3):
    t0 = time.perf_counter()
    r = sc.run(seed=seed)
    wall = time.perf_counter() - t0
    best = wall if best is None else min(best, wall)
s = r.summary
n = s["bottleneck_arrivals"]
print(f"100 Reno flows, 15 Mb/s RED bottleneck (examples/dumbbell-red.toml scaled), {s['duration']:g} simulated s, {s['events']:,} events, "
      f"{n:,} packets arrived at the bottleneck")
print(f"best of 3 runs: {best:.3f} s wall -> {n / best:,.0f} simulated bottleneck packets per wall second "
      f"({s['events'] / best:,.0f} events/s)")
endef
export BENCH_PY

bench: build ## time a 100-flow dumbbell: simulated bottleneck packets per wall second
	@if $(PY) -c 'import importlib.util, sys; sys.exit(0 if importlib.util.find_spec("aqmsim.bench") else 1)'; then \
	  $(PY) -m aqmsim.bench; \
	else \
	  $(PY) -c "$$BENCH_PY"; \
	fi

clean: ## remove build products, caches and outputs (keeps .venv)
	$(CARGO) clean
	rm -rf out/ .pytest_cache .hypothesis $(BUILD_STAMP)
	find python tests -name __pycache__ -type d -prune -exec rm -rf {} +
	rm -f python/aqmsim/_core*.so python/aqmsim/_core*.pyd
