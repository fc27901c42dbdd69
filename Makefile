# Crewgraph: `make run` opens the app on the example crews; `make test` runs every test.
# Both install what is missing first (system packages, npm packages, Rust crates).

SHELL := /bin/bash
.DEFAULT_GOAL := run

APP := target/debug/crewgraph-desktop
CLI := target/debug/crewgraph
TAURI_DRIVER := .tools/bin/tauri-driver
TAURI_DRIVER_VERSION := 2.1.0
CARGO_FUZZ := .tools/bin/cargo-fuzz
CARGO_FUZZ_VERSION := 0.13.2
FUZZ_TARGETS := loader matcher script calculator openai_stream anthropic_stream router_answer gatekeeper_answer recording tool_json
FUZZ_SECONDS ?= 60
# libFuzzer through cargo-fuzz on the stable toolchain: without a sanitizer (-s none)
# cargo-fuzz passes rustc no nightly flag (docs/testing.md says why and how).
FUZZ_ENV := PATH="$(CURDIR)/.tools/bin:$$PATH"

.PHONY: run test deps test-deps mcp-servers phoenix example-servers mcp-conformance ui build lint rust-test secrets-test api-conformance bindings-check ui-test e2e browser-e2e cluster-e2e bench soak fuzz fuzz-corpus clean

## run: install what is missing, build, and open the window on crews/ (or explain the CLI without a display)
# (example-servers: the file desk example reads and writes files through an MCP server)
run: deps build example-servers
	@if [[ -n "$${DISPLAY:-}" || -n "$${WAYLAND_DISPLAY:-}" ]]; then \
	  echo "Opening Crewgraph on the crews in $(CURDIR)/crews"; \
	  CREWGRAPH_CREWS_DIR="$(CURDIR)/crews" exec $(APP); \
	else \
	  echo; \
	  echo "Crewgraph is built, but this machine has no display to open its window on."; \
	  echo "Use the command line instead ($(CLI)):"; \
	  echo "  $(CLI) validate crews/*.yaml crews/go-quiz    check crew files"; \
	  echo "  $(CLI) match --signal '[END]' --content 'All done [end]'"; \
	  echo "  $(CLI) run crews/exam.yaml --input 'Start the exam'   run a crew on the local model"; \
	  echo "  $(CLI) run crews/file-desk.yaml --input 'Summarise the documents' --script crews/scripts/file-desk.yaml"; \
	  echo "                                                 read and summarise files through an MCP server"; \
	  echo "  $(CLI) models                                  the models agents can use"; \
	  echo "  $(CLI) --help                                  everything it can do"; \
	  echo "On a desktop, run 'make run' again to open the window."; \
	fi

## test: everything — the Rust gates (lint), Rust tests, generated-type check, UI unit tests, the real window under Xvfb, the web UI in Chromium
test: test-deps build lint rust-test secrets-test api-conformance mcp-conformance bindings-check ui-test e2e browser-e2e cluster-e2e
	@echo "All tests passed."

deps:
	@scripts/install-deps.sh
	@$(MAKE) --no-print-directory ui/node_modules/.installed
	@scripts/setup-local-model.sh

test-deps: deps
	@scripts/install-deps.sh --test
	@scripts/install-mcp-servers.sh
	@scripts/install-phoenix.sh
	@$(MAKE) --no-print-directory $(TAURI_DRIVER)

ui/node_modules/.installed: ui/package.json ui/package-lock.json
	cd ui && npm ci --no-audit --no-fund
	@touch $@

$(TAURI_DRIVER):
	cargo install tauri-driver --locked --version $(TAURI_DRIVER_VERSION) --root .tools

## ui: type-check and build the web UI into ui/dist (embedded into the app by cargo)
ui: deps
	cd ui && npm run build

## build: the UI, then the whole workspace (the app embeds ui/dist)
build: ui
	cargo build --workspace

## lint: the Rust gates, all clean — formatting (the fuzz crate's too), clippy with warnings as errors, rustdoc with warnings as errors
# (build the UI first: the window's crate embeds ui/dist, so checking it needs that folder).
lint: ui
	@cargo fmt --version >/dev/null 2>&1 && cargo clippy --version >/dev/null 2>&1 || rustup component add rustfmt clippy || { \
	  echo "error: make lint needs rustfmt and clippy: rustup component add rustfmt clippy" >&2; exit 1; }
	cargo fmt --all --check
	cd fuzz && cargo fmt --check
	cargo clippy --workspace --all-targets -- -D warnings
	RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --workspace

rust-test: build mcp-servers phoenix
	cargo test --workspace

# The MCP servers the tool tests talk to and crews/file-desk.yaml uses, pinned (npm
# and PyPI, into .tools/mcp).
mcp-servers:
	@scripts/install-mcp-servers.sh

# Arize Phoenix, pinned (PyPI, into .tools/phoenix): the trace tests' OTLP receiver.
phoenix:
	@scripts/install-phoenix.sh

# The one server the examples use (crews/file-desk.yaml), for make run.
example-servers:
	@scripts/install-mcp-servers.sh --example

# The key tests that need an OS keyring (a private gnome-keyring in its own D-Bus
# session), or none at all; a plain `cargo test` skips them (docs/testing.md).
secrets-test: build test-deps
	scripts/test-secrets.sh

## soak: the crash soak, long: SOAK_KILLS runs and resumes killed at random moments (make test makes 8); then the memory soak
# The memory soak: a worker's VmRSS over SOAK_RUNS scripted runs through a cluster of its own
# (PostgreSQL, Redis, an API node, one worker; release build), flat within 10 % or not.
SOAK_KILLS ?= 150
SOAK_RUNS ?= 100000
soak: build
	@scripts/install-deps.sh --test
	CREWGRAPH_SOAK_KILLS=$(SOAK_KILLS) cargo test --workspace --test integration -- --exact --nocapture \
	  soak::runs_killed_at_random_moments_and_resumed_lose_no_step_and_repeat_none
	CLUSTER_BENCH_SOAK_RUNS=$(SOAK_RUNS) cargo bench -p crewgraph --bench cluster -- soak

# `crewgraph serve` against its own /openapi.json (schemathesis from PyPI, bounded:
# SCHEMATHESIS_EXAMPLES cases per operation, SCHEMATHESIS_SECONDS in all).
api-conformance: build
	scripts/schemathesis.sh $(CLI)

# The official MCP conformance suite's client scenarios against Crewgraph's MCP client,
# and its server scenarios against Crewgraph's MCP server (/mcp of crewgraph serve)
# (known gaps, with why, in tests/mcp-conformance-baseline.yml).
mcp-conformance: build mcp-servers
	scripts/mcp-conformance.sh
	scripts/mcp-server-conformance.sh $(CLI)

# The TypeScript types the UI uses are generated from Rust by `cargo test` (ts-rs);
# the committed copies must match.
bindings-check: rust-test
	@if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
	  if [[ -n "$$(git status --porcelain -- ui/src/bindings)" ]]; then \
	    git status --short -- ui/src/bindings; \
	    echo "error: ui/src/bindings is stale: commit the regenerated TypeScript types." >&2; exit 1; \
	  fi; \
	fi

ui-test: deps
	cd ui && npm run lint
	cd ui && npm test

e2e: build test-deps
	tests/e2e/run-window.sh

# The web UI in Chromium against `crewgraph serve --token` (screenshots in target/e2e-browser/).
browser-e2e: build test-deps
	tests/e2e/run-browser.sh

## cluster-e2e: an API node and three workers on hosts of their own (network namespaces it makes), PostgreSQL and Redis; Chromium watches a run through the API node (needs root)
cluster-e2e: build test-deps
	tests/e2e/run-cluster.sh

## bench: every benchmark (criterion, the load figures, the cluster on PostgreSQL and Redis); figures go into BENCHMARKS.md
bench:
	cargo bench -p crewgraph-engine --bench matcher
	cargo bench -p crewgraph-engine --bench near_miss
	cargo bench -p crewgraph-engine --bench scoring
	cargo bench -p crewgraph-engine --bench calculator
	cargo bench -p crewgraph-engine --bench diff
	cargo bench -p crewgraph-store
	@scripts/install-mcp-servers.sh
	cargo bench -p crewgraph-mcp --bench tools
	cargo bench -p crewgraph --bench handoff
	cargo bench -p crewgraph --bench editor
	cargo bench -p crewgraph --bench coverage
	cargo bench -p crewgraph --bench load
	cargo bench -p crewgraph --bench serve
	@scripts/install-deps.sh --test
	cargo bench -p crewgraph --bench cluster
	@scripts/setup-local-model.sh
	cargo bench -p crewgraph --bench providers

## fuzz: every fuzz target for FUZZ_SECONDS (60) each; fails at the end if any crashed (inputs in fuzz/artifacts/<target>/)
# New inputs go to fuzz/work/<target>/ (not committed); `make fuzz-corpus` merges them in.
# libFuzzer's fork mode goes on after a crash, so one known crash hides nothing else.
fuzz: $(CARGO_FUZZ)
	cd fuzz && $(FUZZ_ENV) cargo fuzz build -s none
	@rm -rf fuzz/artifacts; for target in $(FUZZ_TARGETS); do \
	  mkdir -p fuzz/work/$$target; \
	  echo "== fuzzing $$target for $(FUZZ_SECONDS) s"; \
	  (cd fuzz && $(FUZZ_ENV) cargo fuzz run -s none $$target work/$$target corpus/$$target -- \
	    -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
	    -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048) || exit 1; \
	done; \
	if compgen -G "fuzz/artifacts/*/*" >/dev/null; then \
	  echo "error: fuzzing found crashes (docs/testing.md says what to do):" >&2; ls fuzz/artifacts/*/* >&2; exit 1; \
	fi

## fuzz-corpus: add to fuzz/corpus/ what `make fuzz` found that reaches new code (inputs up to 512 bytes: the corpora stay small)
fuzz-corpus: $(CARGO_FUZZ)
	cd fuzz && $(FUZZ_ENV) cargo fuzz build -s none
	@for target in $(FUZZ_TARGETS); do \
	  rm -rf fuzz/work/small && mkdir -p fuzz/work/small fuzz/work/$$target; \
	  find fuzz/work/$$target -type f -size -513c -exec cp {} fuzz/work/small/ \; ; \
	  (cd fuzz && $(FUZZ_ENV) cargo fuzz run -s none $$target corpus/$$target work/small -- \
	    -set_cover_merge=1 -use_counters=0 -use_cmp=0 -use_value_profile=0) || exit 1; \
	done

$(CARGO_FUZZ):
	cargo install cargo-fuzz --locked --version $(CARGO_FUZZ_VERSION) --root .tools

clean:
	cargo clean
	rm -rf ui/dist ui/node_modules .tools
