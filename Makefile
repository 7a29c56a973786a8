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
VENV_STAMP   = $(VENV)/.deps-$(shell echo '$(PY_DEPS) $(DOCS_DEPS)' | md5sum | cut -c1-8)
BUILD_STAMP  := $(VENV)/.build-stamp

PY_DEPS := numpy pandas matplotlib typer rich pytest pytest-xdist hypothesis duckdb pyarrow dask distributed scipy jinja2
# pytest runs on one process per core, at most four (pytest-xdist), each test file whole on
# one of them (its module fixtures made once); `make test PYTEST_WORKERS=1` runs on one.
PYTEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 1); [ $$n -gt 4 ] && n=4; echo $$n)
# The docs site (`make docs`: mkdocs, its plugins, TeX to MathML, GitHub-style lists) and the
# tutorial notebook's test (nbclient, a kernel; scipy for its intervals).
DOCS_DEPS := "mkdocs<2" mkdocs-material "mkdocstrings[python]" mkdocs-click mkdocs-jupyter \
             latex2mathml mdx-truly-sane-lists mdx-breakless-lists nbclient nbformat ipykernel
# typer 0.29 checks every option through pydantic: +60 ms and +14 MiB on every aqmsim command
PY_DEPS += "typer<0.29"

.PHONY: help venv build ns2 ns3 chromium tshark test pytest cargo-test demo bench clean fuzz fuzz-short docs

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
	$(PIP) install -q $(DOCS_DEPS)
	@touch $@

build: $(BUILD_STAMP) ## compile the Rust extension (release) into .venv with maturin develop

$(BUILD_STAMP): $(VENV_STAMP) $(RUST_SOURCES)
	VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(VENV))/bin:$$PATH $(MATURIN) develop --release
	@touch $@

ns2: ## install ns-2 (Debian package ns2) when `ns` is not on PATH
	@command -v ns >/dev/null || ($(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq ns2)

# The report tests (tests/test_report.py) render the HTML report in headless Chromium.
chromium: ## install Chromium (Debian package chromium) when `chromium` is not on PATH
	@command -v chromium >/dev/null || ($(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium)

# The pcap tests (crates/aqmsim-core/tests/it/pcap.rs) read aqmsim's pcap with tshark. The
# debconf preseed answers wireshark-common's "non-superusers capture" question (no).
tshark: ## install tshark (Debian package tshark) when `tshark` is not on PATH
	@command -v tshark >/dev/null || ($(SUDO) apt-get update -qq && \
	  echo 'wireshark-common wireshark-common/install-setuid boolean false' | $(SUDO) debconf-set-selections && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq tshark)

cargo-test: ## run the Rust engine's tests
	$(CARGO) test --profile fast-test -p aqmsim-core

pytest: build ## run the Python test suite only
	$(PY) -m pytest -q -n $(PYTEST_WORKERS) --dist loadfile

test: build ns2 ns3 chromium tshark ## run every test: cargo test (engine) + pytest (Python, CLI, ns-2 and ns-3 cross-checks, report in Chromium)
	$(CARGO) test --profile fast-test -p aqmsim-core
	@$(MAKE) --no-print-directory fuzz-short
	@$(MAKE) --no-print-directory docs
	AQMSIM_BUILT_SITE=$(CURDIR)/site $(PY) -m pytest -q -n $(PYTEST_WORKERS) --dist loadfile

# The docs site (mkdocs.yml): every warning is an error (a broken link or anchor, a page left
# out of the nav, a docstring that does not render). Open site/index.html in a browser.
docs: build ## build the documentation site into site/ (mkdocs --strict; part of `make test`)
	@# (and it must write nothing into docs/ but Python's bytecode cache of the hooks)
	@before="$$(git status --porcelain --ignored -- docs 2>/dev/null | grep -v __pycache__)"; \
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet && \
	if [ "$$before" != "$$(git status --porcelain --ignored -- docs 2>/dev/null | grep -v __pycache__)" ]; then \
	  echo "docs: the build wrote into docs/:"; git status --porcelain --ignored -- docs; exit 1; fi

# Fuzzing (docs/fuzzing.md). The short run is part of `make test` and needs only stable Rust;
# the long run uses cargo-fuzz (libFuzzer, installed when missing; stable Rust with -s none):
# `make fuzz FUZZ_TIME=3600` fuzzes each target an hour, then runs the Hypothesis tests long.
FUZZ_CASES   ?= 40000
FUZZ_TIME    ?= 600
FUZZ_TARGETS ?= scenario_mutate scenario_json scenario_toml

fuzz-short: ## short fuzz run (stable Rust, part of `make test`): FUZZ_CASES seeded mutations of the example scenarios, parsed, built and run
	FUZZ_CASES=$(FUZZ_CASES) $(CARGO) test --profile fast-test -p aqmsim-core --test fuzz_scenarios

fuzz: build ## long fuzz run: cargo-fuzz on each of FUZZ_TARGETS for FUZZ_TIME s, then the Hypothesis fuzz/property tests with many examples
	@command -v cargo-fuzz >/dev/null || $(CARGO) install cargo-fuzz --locked
	fuzz/seed-corpus.sh
	cd fuzz && for t in $(FUZZ_TARGETS); do \
	  extra=; [ $$t = scenario_mutate ] && extra="-max_len=128 -len_control=0"; \
	  $(CARGO) fuzz run -s none $$t corpus/$$t -- -dict=scenario.dict $$extra -max_total_time=$(FUZZ_TIME) \
	    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 || exit 1; done
	AQMSIM_FUZZ_EXAMPLES=20000 AQMSIM_PROPERTY_EXAMPLES=5000 $(PY) -m pytest -q -p no:cacheprovider \
	  tests/test_fuzz_from_dict.py tests/test_properties.py

demo: build ## reproduce the RTRED paper: prints its numbers beside the published ones; HTML report in out/reproduce
	$(VENV)/bin/aqmsim reproduce rtred

ns3: ## install ns-3's development files (Debian libns3-dev, g++, pkg-config, GNU time) when missing; used by bench and the ns-3 agreement tests
	@pkg-config --exists ns3-core 2>/dev/null && command -v g++ >/dev/null && test -x /usr/bin/time || \
	  ($(SUDO) apt-get update -qq && \
	   DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq libns3-dev g++ pkg-config time)

# BENCH_ARGS passes options to the benchmark: `make bench BENCH_ARGS="--quick"`, "--write-docs",
# "--no-ns3", scenario names (`make bench BENCH_ARGS=--help` lists them all). The benchmark is
# the package benchmarks/bench/ (not installed with aqmsim): `python -m bench` from benchmarks/.
BENCH_ARGS ?=

bench: build ns2 ## speed benchmark: aqmsim vs ns-2 (and ns-3) on benchmarks/scenarios, one table (docs/performance.md)
	@$(MAKE) --no-print-directory ns3 || echo "bench: ns-3 could not be installed: the table will have no ns-3 rows" >&2
	PYTHONPATH=$(abspath benchmarks)$${PYTHONPATH:+:$$PYTHONPATH} $(PY) -m bench $(BENCH_ARGS)

clean: ## remove build products, caches and outputs (keeps .venv)
	$(CARGO) clean
	rm -rf out/ site/ .pytest_cache .hypothesis $(BUILD_STAMP)
	find python tests -name __pycache__ -type d -prune -exec rm -rf {} +
	rm -f python/aqmsim/_core*.so python/aqmsim/_core*.pyd
