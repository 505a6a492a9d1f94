# Hayate: `make run` builds an optimised engine for this CPU and starts it in USI mode;
# `make test` runs every check CI runs. See README.md.

CARGO      ?= cargo
NATIVE_DIR := target/native
NATIVE_ENV := RUSTFLAGS="-C target-cpu=native"
ENGINE     := $(NATIVE_DIR)/release/hayate
# Native builds of tests and benches: their own directory, as cargo would otherwise rebuild the
# profile-guided engine above without its profile.
NATIVE_TEST_DIR := target/native-test
ENGINE_SRC := $(shell find src nets -type f) Cargo.toml Cargo.lock build.rs scripts/pgo-build.sh
MATSURI    := l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1

.PHONY: all build run test check fmt lint unit test-portable perft-full bench bench-perft \
        bench-attacks bench-peers bench-search clean test-export test-trainer train fuzz windows test-windows \
        spsa clock-games tools-venv test-tools test-python lint-python ledger-check bench-mate mate-peers \
        data records-check layers-check

all: build

## Optimised build for this machine's CPU (PEXT sliders where BMI2 is available), profile-guided
## (scripts/pgo-build.sh: an instrumented build plays a training workload first; about 3 minutes
## on 2 cores). Without rustup's llvm-tools, or with PGO=0, the plain optimised build.
build: $(ENGINE)

$(ENGINE): $(ENGINE_SRC)
	CARGO="$(CARGO)" scripts/pgo-build.sh $(NATIVE_DIR)
	touch $@

## Build, then speak USI on stdin/stdout.
run: build
	$(ENGINE)

## Everything CI checks: formatting, lints (Rust and Python), the self-play records' manifest, the
## tests on both bitboard backends, the NNUE trainer's torch-free checks (its exported net equals
## the engine's `eval`) and the Python tools' tests.
test: check unit test-python test-portable test-wasm

check: fmt lint ledger-check records-check layers-check

## The self-play records' ledger, data/selfplay/manifest.tsv: well-formed, every row's commit an
## ancestor of HEAD holding a blob of the row's sha256, no `.hgr` tracked in data/selfplay/
## (tools/records.py; under a second). A shallow clone gets the other checks and a message.
## The import rules of src/: each module uses only the layers below its own (src/lib.rs's map),
## and no files of a module use each other in a circle (tools/layers.py; under a second).
layers-check:
	$(PYTHON) -m tools.layers check

records-check:
	$(PYTHON) -m tools.records check

## The results ledger, docs/records/ledger.tsv: well-formed, ids unique and in order, W + D + L
## the games, every Elo, bound and LLR the referee's figure for its W-D-L, pooled rows the sum of
## theirs, and every generated table of the documents (README.md, docs/strength.md, nets/README.md)
## equal to what the ledger renders (tools/ledger.py; under a second).
ledger-check:
	$(PYTHON) -m tools.ledger check

fmt:
	$(CARGO) fmt --all -- --check

lint: lint-python
	$(CARGO) clippy --all-targets -- -D warnings
	$(CARGO) clippy --all-targets --features tune -- -D warnings
# The WebAssembly module's own code (src/web, the wasm32 branches): rustup's target first.
	command -v rustup >/dev/null 2>&1 && rustup target add wasm32-unknown-unknown >/dev/null 2>&1 || true
	$(CARGO) clippy --target wasm32-unknown-unknown -p hayate-wasm -- -D warnings
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --no-deps --document-private-items

## Unit and integration tests with the default (SSE2) bitboards; the test profile is optimised.
unit:
	$(CARGO) test

## The library and perft tests again with the portable bitboard twin, in a `tune` build (search
## parameters as USI options; the same bench signature).
test-portable:
	$(CARGO) test --features portable,tune --lib --test perft --test bench_signature

## Windows executables and a release zip under target/windows: hayate-avx2.exe (AVX2, BMI2),
## hayate-sse42.exe (SSE4.2) and hayate-windows.zip (both, engine-options.toml, the README, which
## tells a GUI user how to install it, with its links to documents the zip does not hold turned
## into text (tools/zip_readme.py), docs/options.md, which the README points to for every
## option, and the licence), built with the project's toolchain, its x86_64-pc-windows-gnu
## standard library and MinGW-w64 as the linker (both installed when missing); about 3 minutes
## per executable on 2 cores.
windows:
	scripts/windows/build.sh avx2 sse42
	rm -rf target/windows/docs && mkdir -p target/windows/docs
	cp engine-options.toml LICENSE target/windows/
	$(PYTHON) -m tools.zip_readme README.md target/windows/README.md \
	  --holds docs/options.md --holds LICENSE --holds engine-options.toml
	cp docs/options.md target/windows/docs/
# The folder, not the file: zipfile stores a file given by name under its base name only, and
# the README links to docs/options.md.
	cd target/windows && rm -f hayate-windows.zip && \
	  python3 -m zipfile -c hayate-windows.zip hayate-avx2.exe hayate-sse42.exe engine-options.toml README.md \
	    docs LICENSE
	ls -l target/windows/hayate-windows.zip

## The SSE4.2 Windows executable under Wine (installed when missing): perft 5, the bench signature
## (equal to Linux's), a USI session with \r\n line ends, a Shift-JIS path, tests/usi_session.rs
## with the recorded GUI sessions. CI runs it after `make test`.
test-windows:
	scripts/windows/test.sh sse42

## The cargo-fuzz targets in fuzz/, FUZZ_SECONDS each (nightly toolchain; `cargo install
## cargo-fuzz`). New inputs go to fuzz/corpus/<target>, crashes to fuzz/artifacts/<target>.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := sfen position_args go options_toml nnue
fuzz:
	cd fuzz && for t in $(FUZZ_TARGETS); do \
	  mkdir -p corpus/$$t && \
	  $(CARGO) +nightly fuzz run $$t corpus/$$t seeds/$$t -- -max_total_time=$(FUZZ_SECONDS) || exit 1; \
	done

## Every perft row, including the deep ones (tens of minutes on two cores).
perft-full:
	$(NATIVE_ENV) $(CARGO) test --release --target-dir $(NATIVE_TEST_DIR) --test perft -- --include-ignored

## The bench signature (fixed positions, depth, 1 thread, 16 MB).
bench: build
	$(ENGINE) bench

## Our perft speed: the issue's matrix, median of 5 runs each.
bench-perft: build
	$(ENGINE) perft 6 --reps 5
	$(ENGINE) perft 4 --sfen "$(MATSURI)" --reps 5
	$(ENGINE) perft 5 --no-bulk --reps 5

## Slider attack methods side by side.
bench-attacks:
	$(NATIVE_ENV) $(CARGO) bench --target-dir $(NATIVE_TEST_DIR) --bench attacks

## The mate benchmark (benches/mate.rs): every problem of tests/data/mate.tsv and
## tests/data/mate_suite.tsv but the long ones, each from an empty table of MateHash's default
## size: plies found, first proof, nodes and time per problem, then the solved count. Node counts
## are deterministic, times depend on the machine's load. MATE_ARGS="--long" adds the long problems
## (minutes each), e.g. make bench-mate MATE_ARGS="--long --secs 300"; see benches/mate.rs.
MATE_ARGS ?=
bench-mate:
	$(NATIVE_ENV) $(CARGO) bench --target-dir $(NATIVE_TEST_DIR) --bench mate -- $(MATE_ARGS)

## Our perft speed interleaved with the peers' (needs ../shared/tools/peer-perft; not part of test).
bench-peers: build
	tools/bench-peers.sh $(ENGINE)

## Depth, nodes and nps after 10 s from four positions, with 1 and 2 threads (idle machine).
bench-search: build
	tools/search-report.sh -j "1 2" $(ENGINE)

## The Python environments, each made once and remade when its requirements change: the NNUE
## trainer's (trainer/, trainer/README.md) small one (numpy, cshogi) for `make test` and its
## large one (PyTorch, about 4.4 GB) for `make train` and `make test-trainer`; the tools' (tools/,
## tools/README.md: numpy, cshogi); and the Python lint's (ruff, scripts/requirements-lint.txt).
PYTHON       ?= python3
TEST_VENV    ?= .venv/test
TRAINER_VENV ?= .venv/trainer
TOOLS_VENV   ?= .venv/tools
LINT_VENV    ?= .venv/lint
DATA         ?= data
OUT          ?= nn.bin
EPOCHS       ?= 10
TRAIN_ARGS   ?=

$(TEST_VENV)/.installed: trainer/requirements-test.txt
	$(PYTHON) -m venv $(TEST_VENV)
	$(TEST_VENV)/bin/pip install --quiet --disable-pip-version-check --no-deps -r $<
	touch $@

$(TRAINER_VENV)/.installed: trainer/requirements.txt
	$(PYTHON) -m venv $(TRAINER_VENV)
	$(TRAINER_VENV)/bin/pip install --disable-pip-version-check --no-deps -r $<
	touch $@

$(TOOLS_VENV)/.installed: tools/requirements.txt
	$(PYTHON) -m venv $(TOOLS_VENV)
	$(TOOLS_VENV)/bin/pip install --quiet --disable-pip-version-check --no-deps -r $<
	touch $@

$(LINT_VENV)/.installed: scripts/requirements-lint.txt
	$(PYTHON) -m venv $(LINT_VENV)
	$(LINT_VENV)/bin/pip install --quiet --disable-pip-version-check --no-deps -r $<
	touch $@

## Ruff on every Python file of the repository (ruff.toml: ruff's default rules and sorted
## imports; the version pinned in scripts/requirements-lint.txt). Part of `make lint`.
lint-python: $(LINT_VENV)/.installed
	$(LINT_VENV)/bin/ruff check .

## The Python tests `make test` runs: the trainer's torch-free checks and the tools' tests.
test-python: test-export test-tools

## The exported net equals the engine's `eval` on every position of tests/data (numpy only; in
## halfkp_256x2-32-32, halfkahm2_256x2-32-32 and halfkp_512x2-8-64), the trainer's forward pass
## gives YaneuraOu's evaluations of the test nets, the compact form rebuilds the exact file, and
## the PackedSfen codec agrees with cshogi. Uses the engine `cargo test` builds.
test-export: $(TEST_VENV)/.installed
	$(CARGO) build --profile test
	HAYATE_BIN=target/debug/hayate $(TEST_VENV)/bin/python -m unittest trainer.tests.test_export trainer.tests.test_psv

## A tiny end-to-end training run with PyTorch (a few hundred positions; also in
## halfkahm2_256x2-32-32, whose net the engine `cargo test` builds loads and evaluates alike).
test-trainer: $(TRAINER_VENV)/.installed
	$(CARGO) build --profile test
	HAYATE_BIN=target/debug/hayate $(TRAINER_VENV)/bin/python -m unittest trainer.tests.test_train

## Train a net: make train DATA=dir-or-files OUT=nn.bin EPOCHS=10 TRAIN_ARGS="--lambda 0.5 --resume"
## (.bin files or folders of them; from the self-play records: `make data`, then
## `target/native/release/hayate gensfen merge data/selfplay/records/*.hgr --out all.hgr` writes
## all.bin for DATA=all.bin; trainer/README.md).
train: $(TRAINER_VENV)/.installed
	$(TRAINER_VENV)/bin/python -m trainer.train --data $(DATA) --out $(OUT) --epochs $(EPOCHS) $(TRAIN_ARGS)

## The self-play records, which live in git's history and not in the tree (data/selfplay/README.md),
## restored into the ignored data/selfplay/records/ from the commits that data/selfplay/manifest.tsv
## names, each checked by its sha256; a file already there and right is kept. RECORDS="gen7-*"
## (shell-style patterns) restores only those. Needs a full clone (tools/records.py).
RECORDS ?=
data:
	set -f; $(PYTHON) -m tools.records restore $(RECORDS)

## The Python tools' environment (.venv/tools: numpy, cshogi), for running a tool by hand:
## .venv/tools/bin/python -m tools.NAME ... from the repository root (tools/README.md).
tools-venv: $(TOOLS_VENV)/.installed

## The Python tools' tests (tools/tests: every tool's `python3 -m tools.NAME` command and the match
## helpers, the self-play records' tool in a git repository of its own, the results ledger's
## tool against a scripted referee; tools/*/tests: the USI
## wrapper and the referee's rules, SPSA arithmetic and driver, the clock arithmetic and games, all
## against scripted fake engines; a few seconds). In `make test`.
test-tools: $(TOOLS_VENV)/.installed
	$(TOOLS_VENV)/bin/python -m unittest discover --start-directory tools --top-level-directory .

## `go mate` side by side with other USI mate solvers (tools/mate_peers.py): every problem through
## each solver with the same time limit and table size (2 GiB), one thread, a fresh process each,
## every line checked with cshogi; a TSV and a table. The peers are built outside the repository
## (docs/records/mate.md names them), e.g. make mate-peers MATE_PEERS_ARGS="--solver
## kh=/work/anchors/bin/KomoringHeights --names LONG_maou_29 --secs 60". Not part of `make test`.
MATE_PEERS_ARGS ?=
mate-peers: build $(TOOLS_VENV)/.installed
	$(TOOLS_VENV)/bin/python -m tools.mate_peers --solver hayate=$(ENGINE) $(MATE_PEERS_ARGS)

## SPSA tuning of the search parameters by self-play (tools/spsa, tools/spsa/README.md): builds
## the `tune` engine into target/tune (search parameters as USI options) and runs the driver
## with the parameters of SPSA_CONFIG, e.g.
## make spsa SPSA_ARGS="--iterations 2000 --nodes 20000 --concurrency 2" (add --resume to carry on).
## Uses the tools' Python environment (.venv/tools). Not part of `make test`.
TUNE_DIR    := target/tune
TUNE_ENGINE := $(TUNE_DIR)/release/hayate
SPSA_CONFIG ?= tools/spsa/params.toml
SPSA_ARGS   ?=

spsa: $(TOOLS_VENV)/.installed
	$(CARGO) build --release --features tune --target-dir $(TUNE_DIR)
	$(TOOLS_VENV)/bin/python -m tools.spsa --engine $(TUNE_ENGINE) --config $(SPSA_CONFIG) $(SPSA_ARGS)

## Games between two USI engines at real clocks, to check the engine's time management and compare
## it with another engine's (tools/clock, tools/clock/README.md), e.g.
## make clock-games CLOCK_ARGS="target/native/release/hayate ../peer/engine --games 10 --tc fischer:300+10"
## Uses the tools' Python environment (.venv/tools) and builds nothing.
CLOCK_ARGS ?= --help

clock-games: $(TOOLS_VENV)/.installed
	$(TOOLS_VENV)/bin/python -m tools.clock $(CLOCK_ARGS)

clean:
	$(CARGO) clean

## The WebAssembly build's tests (tests/wasm, Node.js 20+; tests/wasm/README.md), on the engine
## folder WASM_TEST_DIR (`make wasm` writes target/wasm/hayate; neither target builds it).
## test-wasm-node: ShogiHome's engine contract in both polling modes, a game against the native
## engine (HAYATE_NATIVE, default target/release/hayate) and the stdio bridge tools/wasm/usi.mjs;
## test-wasm-browser: the example page wasm/example/ in headless Chromium (skipped without one, unless
## HAYATE_REQUIRE_BROWSER=1). Without Node.js both say so and succeed.
WASM_TEST_DIR ?= target/wasm/hayate

.PHONY: wasm test-wasm test-wasm-node test-wasm-browser

## The WebAssembly engine for web pages and ShogiHome's web app (wasm/README.md):
## target/wasm/hayate/ with engine.json, hayate.js, hayate.wasm (SIMD128; binaryen's asyncify,
## so that a search runs in slices on one thread) and the net's data file. Installs rustup's
## wasm32-unknown-unknown and Debian's binaryen when missing; needs Node.js (the manifest lists
## what the module itself declares). About 2 minutes on 2 cores.
wasm: $(WASM_TEST_DIR)/engine.json

$(WASM_TEST_DIR)/engine.json: $(ENGINE_SRC) $(shell find wasm -type f -not -path "wasm/example/*") scripts/wasm-build.sh
	CARGO="$(CARGO)" scripts/wasm-build.sh

## The WebAssembly tests `make test` runs where Node.js is: the module built, then test-wasm-node
## against the test-profile native engine, then test-wasm-simd. Without Node.js: a message, and
## nothing fails.
test-wasm:
	@if command -v node >/dev/null 2>&1; then \
	  $(MAKE) --no-print-directory wasm && $(CARGO) build --profile test && \
	  HAYATE_NATIVE=target/debug/hayate $(MAKE) --no-print-directory test-wasm-node && \
	  $(MAKE) --no-print-directory test-wasm-simd; \
	else echo "test-wasm: Node.js is not installed: the WebAssembly build and its tests are skipped"; fi

test-wasm-node:
	HAYATE_WASM_DIR="$(WASM_TEST_DIR)" tests/wasm/run.sh node

test-wasm-browser:
	HAYATE_WASM_DIR="$(WASM_TEST_DIR)" tests/wasm/run.sh browser

## The NNUE kernels on WebAssembly (issue 56): the eval::nnue library tests built for
## wasm32-wasip1 and run under Node's WASI (scripts/wasi-runner.mjs; Node.js 20), once with
## SIMD128 (the `simd128` kernels against the scalar twin and YaneuraOu's values) and once
## without (the scalar twin alone). The test profile, as `make unit`; each build has its own
## directory, so native builds are not disturbed. Needs rustup's wasm32-wasip1 target.
WASM_SIMD_TEST := CARGO_TARGET_WASM32_WASIP1_RUNNER="node scripts/wasi-runner.mjs" $(CARGO) test \
                  --target wasm32-wasip1 --lib

.PHONY: test-wasm-simd
test-wasm-simd:
	command -v rustup >/dev/null 2>&1 && rustup target add wasm32-wasip1 >/dev/null 2>&1 || true
	RUSTFLAGS="-C target-feature=+simd128" $(WASM_SIMD_TEST) --target-dir target/wasi-simd128 eval::nnue
	RUSTFLAGS="" $(WASM_SIMD_TEST) --target-dir target/wasi-scalar eval::nnue
