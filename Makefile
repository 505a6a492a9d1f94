# Hayate: `make run` builds an optimised engine for this CPU and starts it in USI mode;
# `make test` runs every check CI runs. See README.md.

CARGO      ?= cargo
NATIVE_DIR := target/native
NATIVE_ENV := RUSTFLAGS="-C target-cpu=native"
ENGINE     := $(NATIVE_DIR)/release/hayate
MATSURI    := l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1

.PHONY: all build run test check fmt lint unit test-portable perft-full bench bench-perft \
        bench-attacks bench-peers bench-search clean

all: build

## Optimised build for this machine's CPU (PEXT sliders where BMI2 is available).
build:
	$(NATIVE_ENV) $(CARGO) build --release --target-dir $(NATIVE_DIR)

## Build, then speak USI on stdin/stdout.
run: build
	$(ENGINE)

## Everything CI checks: formatting, lints, then the tests on both bitboard backends.
test: check unit test-portable

check: fmt lint

fmt:
	$(CARGO) fmt --all -- --check

lint:
	$(CARGO) clippy --all-targets -- -D warnings
	$(CARGO) clippy --all-targets --features tune -- -D warnings

## Unit and integration tests with the default (SSE2) bitboards; the test profile is optimised.
unit:
	$(CARGO) test

## The library and perft tests again with the portable bitboard twin, in a `tune` build (search
## parameters as USI options; the same bench signature).
test-portable:
	$(CARGO) test --features portable,tune --lib --test perft --test bench_signature

## Every perft row, including the deep ones (tens of minutes on two cores).
perft-full:
	$(NATIVE_ENV) $(CARGO) test --release --target-dir $(NATIVE_DIR) --test perft -- --include-ignored

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
	$(NATIVE_ENV) $(CARGO) bench --target-dir $(NATIVE_DIR) --bench attacks

## Our perft speed interleaved with the peers' (needs ../shared/tools/peer-perft; not part of test).
bench-peers: build
	scripts/bench-peers.sh $(ENGINE)

## Depth, nodes and nps after 10 s from four positions, with 1 and 2 threads (idle machine).
bench-search: build
	scripts/search-report.sh -j "1 2" $(ENGINE)

clean:
	$(CARGO) clean
