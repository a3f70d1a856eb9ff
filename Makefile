# HTTPWire: the two commands of the README are `make demo` and `make test`; everything else is here too.
# Each target first makes sure the Debian packages it needs are present (see `deps`).

SWIFT        ?= swift
# Warnings are errors, and a target that imports another target of the package without declaring it a
# dependency fails the build: with the targets as layers, that is the compiler refusing an upward arrow.
SWIFT_FLAGS  ?= -Xswiftc -warnings-as-errors --explicit-target-dependency-import-check error
RELEASE      := -c release --static-swift-stdlib
# zlib1g-dev is the zlib that decodes gzip and deflate bodies (Sources/CZlib).
# graphviz draws the docs' diagrams (dot), chromium opens the built docs site in a test (make docs);
# tinyproxy-bin and dante-server are the real HTTP and SOCKS5 proxies of the proxy tests (tinyproxy-bin is the
# program without the system service; the tests start both with configurations of their own); python3-venv
# holds httpbin, the interop tests' independent server (PyPI, see HTTPBIN_VENV).
DEB_PACKAGES := libssl-dev zlib1g-dev nginx-light graphviz chromium tinyproxy-bin dante-server python3-venv
# httpbin from PyPI, in a virtual environment of the build (Fixtures/httpbin/httpbin-loopback.sh runs it).
HTTPBIN_VENV    ?= .build/httpbin-venv
HTTPBIN_VERSION ?= 0.10.4
FUZZ_SECONDS ?= 5
FUZZ_RUNS    ?= 10000000
# `make test` fuzzes each target FUZZ_TEST_RUNS executions from a fixed seed (fuzz.sh's FUZZ_REPEATABLE): the
# same inputs on every machine, so CI fails only where this command fails locally too. Five random seconds
# each used to turn CI red on whatever shallow finding that run happened upon (two in one day).
FUZZ_TEST_RUNS ?= 50000
# The fuzz targets `make test` runs: empty means every target in Tests/Fuzz/Targets. A
# target builds its own partial modules from the files it lists, so a change elsewhere can stop it compiling:
# seven of eleven had stopped when only four ran here. All thirteen from a cold .build: about 4 minutes on 2
# cores, most of it the instrumented builds. See docs/reliability.md.
FUZZ_TEST_TARGETS ?=
# How many tests run at once. Swift Testing otherwise starts every test of the suite together: on a busy 2-core
# machine each then gets a sliver of the CPU and the slow ones pass their time limits (one measured run: 55
# failures with everything at once, none with 4 — the same 483 tests, 3.4 min, the load average at 15-26).
TEST_WIDTH   ?= 4

.PHONY: all build demo test lint format deps fuzz fuzz-long bench-codec bench clean docs api sanitize chaos

all: build

## deps: install the system packages HTTPWire needs (libssl-dev for TLS; nginx-light, tinyproxy-bin and
## dante-server for interop tests) and httpbin from PyPI into HTTPBIN_VENV.
deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "make: installing$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null || exit 1; \
	  else \
	    echo "make: missing Debian packages:$$missing"; \
	    echo "make: run: sudo apt-get install -y$$missing"; exit 1; \
	  fi; \
	fi
	@test -x $(HTTPBIN_VENV)/bin/python && $(HTTPBIN_VENV)/bin/python -c 'import httpbin' 2>/dev/null || { \
	  echo "make: installing httpbin $(HTTPBIN_VERSION) into $(HTTPBIN_VENV)"; \
	  python3 -m venv $(HTTPBIN_VENV) && $(HTTPBIN_VENV)/bin/pip install -q httpbin==$(HTTPBIN_VERSION); }

build: deps
	$(SWIFT) build $(SWIFT_FLAGS)

## demo: the guided tour against the embedded server (loopback only).
demo: deps
	$(SWIFT) build $(RELEASE) --product wire
	$$($(SWIFT) build $(RELEASE) --show-bin-path)/wire demo

## test: lint, build with warnings as errors, run every test, build the docs (a broken link fails), then a
## repeatable run of the fuzz targets in FUZZ_TEST_TARGETS (FUZZ_TEST_RUNS executions each, a fixed seed).
test: deps lint
	$(SWIFT) build --build-tests $(SWIFT_FLAGS)
	SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(TEST_WIDTH) $(SWIFT) test --skip-build
	$(MAKE) --no-print-directory docs
	@FUZZ_TARGETS="$(FUZZ_TEST_TARGETS)" FUZZ_REPEATABLE=1 bash Tests/Fuzz/fuzz.sh all --runs $(FUZZ_TEST_RUNS)

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests

## fuzz: every libFuzzer target in Tests/Fuzz/Targets for FUZZ_SECONDS each (default 5: about 1.5 minutes in all
## once the builds are cached in .build/fuzz), then the SOCKS5 handshake's parsing of a proxy's answers (its own
## script for now). One target: Tests/Fuzz/fuzz.sh NAME SECONDS. See docs/reliability.md.
fuzz:
	@bash Tests/Fuzz/fuzz.sh all $(FUZZ_SECONDS)
	@bash Tests/Fuzz/run-socks5-fuzz.sh $(FUZZ_SECONDS)

## fuzz-long: every fuzz target to FUZZ_RUNS executions each (default 10 million), one after the other.
fuzz-long:
	@bash Tests/Fuzz/fuzz.sh all --runs $(FUZZ_RUNS)

## sanitize: every test under AddressSanitizer, then under ThreadSanitizer, each built in its own folder
## (.build/asan, .build/tsan) so the normal build is left alone, with the time scale raised (the sanitizers
## slow everything 2-15x). A report fails the run: ASan stops at the first, TSan exits 66 after the run.
## SANITIZERS="thread" runs one; SANITIZE_FILTER='Transport|Reactor' a subset. LeakSanitizer (part of ASan)
## reads Tests/Sanitizers/lsan.supp: two leaks of the toolchain's, none of HTTPWire's. See docs/reliability.md.
SANITIZERS          ?= address thread
SANITIZE_TIME_SCALE ?= 6
SANITIZE_FILTER     ?=
sanitize: deps
	@for s in $(SANITIZERS); do \
	  dir=.build/$$(echo $$s | sed 's/address/asan/;s/thread/tsan/'); \
	  echo "make: building the tests with --sanitize=$$s in $$dir"; \
	  $(SWIFT) build --build-tests --sanitize=$$s --scratch-path $$dir || exit 1; \
	  echo "make: running the tests under $$s (HTTPWIRE_TEST_TIME_SCALE=$(SANITIZE_TIME_SCALE))"; \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/Sanitizers/lsan.supp \
	  HTTPWIRE_TEST_TIME_SCALE=$(SANITIZE_TIME_SCALE) SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(TEST_WIDTH) \
	    $(SWIFT) test --skip-build --sanitize=$$s --scratch-path $$dir $(if $(SANITIZE_FILTER),--filter '$(SANITIZE_FILTER)') \
	    || exit 1; \
	done

## chaos: CHAOS_EXCHANGES seeded exchanges through the chaos relay (default 4,000: 1,000 of each kind, half
## of them over TLS) against the fixture server, and a quarter as many GETs and downloads against nginx, each
## test alone so the open descriptors can be counted. `make test` runs 100 (and 25).
## Replay one: HTTPWIRE_CHAOS_SEED=N swift test --filter ChaosExchangeTests.
CHAOS_EXCHANGES ?= 4000
chaos: deps
	$(SWIFT) build --build-tests $(SWIFT_FLAGS)
	@for t in fixtureExchanges nginxExchanges; do \
	  HTTPWIRE_CHAOS_EXCHANGES=$(CHAOS_EXCHANGES) HTTPWIRE_CHAOS_STRICT_DESCRIPTORS=1 \
	    $(SWIFT) test --skip-build --filter "ChaosExchangeTests/$$t" || exit 1; \
	done

## bench-codec: decoder throughput (release build, not a test).
bench-codec:
	$(SWIFT) build -c release --product CodecBench
	$$($(SWIFT) build -c release --show-bin-path)/CodecBench

## docs: the DocC site of HTTPWire and HTTPWireCodec in .build/docs, built offline; a docc warning fails it.
## The diagrams are drawn from the code first (docs/diagrams.sh), and the finished site is opened in headless
## Chromium (DocsSiteTests), so a page that does not render fails it too.
docs: deps
	$(SWIFT) build --build-tests $(SWIFT_FLAGS)
	@SWIFT=$(SWIFT) bash docs/diagrams.sh
	@SWIFT=$(SWIFT) bash docs/build-docs.sh
	@bash docs/api.sh --check
	@HTTPWIRE_DOCS_SITE=.build/docs/HTTPWire.doccarchive $(SWIFT) test --skip-build --filter DocsSiteTests

## api: writes the public surface (every public symbol of HTTPWire and HTTPWireCodec, sorted) to docs/api.txt;
## `make docs` fails when the code and that file disagree.
api: deps
	@SWIFT=$(SWIFT) DOCS_GRAPHS_ONLY=1 bash docs/build-docs.sh
	@bash docs/api.sh --write

## bench: HTTPWire against curl and URLSession on loopback nginx, side by side (release build, not a test).
## BENCH_ROUNDS=N (default 5), BENCH_QUICK=1 for a fast check, BENCH_OUTPUT=FILE to keep the table.
## Needs curl, time (peak RSS of each child), libcurl4-openssl-dev (URLSession links libcurl statically) and
## wrk (the request-rate rows' reference: the most nginx answers on this machine).
## The 10,000-connection figures (memory per idle connection, loop latency) are `make bench-scale`.
bench: deps bench-deps
	$(SWIFT) build $(RELEASE) $(SWIFT_FLAGS) --product wire
	@bash Sources/wire/Link/collect.sh --check $$($(SWIFT) build $(RELEASE) --show-bin-path)/wire
	$(SWIFT) build $(RELEASE) $(SWIFT_FLAGS) --product BenchServer
	$(SWIFT) build $(RELEASE) $(SWIFT_FLAGS) --product WireBench
	$(SWIFT) build $(RELEASE) $(SWIFT_FLAGS) --product URLSessionBench
	$(SWIFT) build $(RELEASE) $(SWIFT_FLAGS) --product NetBench
	$$($(SWIFT) build $(RELEASE) --show-bin-path)/NetBench
	WIRE=$$($(SWIFT) build $(RELEASE) --show-bin-path)/wire bash Sources/Benchmarks/DownloadTorture/kill-torture.sh
	WIRE=$$($(SWIFT) build $(RELEASE) --show-bin-path)/wire WIRE_ARGS="--segments 4" bash Sources/Benchmarks/DownloadTorture/kill-torture.sh 200 20 2m
	WIRE=$$($(SWIFT) build $(RELEASE) --show-bin-path)/wire bash Sources/Benchmarks/DownloadTorture/segments.sh
	WIRE=$$($(SWIFT) build $(RELEASE) --show-bin-path)/wire bash Sources/Benchmarks/DownloadTorture/rate-limit.sh

## bench-chunked-ceiling: the chunked row's ceiling on this machine — minimal C clients of the reference
## harness's 1 GiB chunked stream (one thread; a reader and a disk writer, HTTPWire's shape) alternated with
## curl and wire (release build). Needs the harness's servers: bash ../shared/bench/setup.sh, then
## bash ../shared/bench/server.sh start. CEILING_ROUNDS=N (default 9).
CEILING_ROUNDS ?= 9
.PHONY: bench-chunked-ceiling
bench-chunked-ceiling: deps bench-deps
	$(SWIFT) build $(RELEASE) $(SWIFT_FLAGS) --product wire
	WIRE=$$($(SWIFT) build $(RELEASE) --show-bin-path)/wire bash Sources/Benchmarks/ChunkedCeiling/chunked-ceiling.sh $(CEILING_ROUNDS)

## bench-request-ceiling: where a small request's time goes in the harness's two request rows (5,000 GETs
## on one connection; 20,000 at 64 in flight): curl, wire and wrk in turn, each run's wall time, client user
## and system CPU and nginx's CPU per request, medians and ratios to curl. Needs the harness's servers (as
## bench-chunked-ceiling). CEILING_ROUNDS=N (default 9).
.PHONY: bench-request-ceiling
bench-request-ceiling: deps bench-deps
	$(SWIFT) build $(RELEASE) $(SWIFT_FLAGS) --product wire
	WIRE=$$($(SWIFT) build $(RELEASE) --show-bin-path)/wire bash Sources/Benchmarks/RequestCeiling/request-ceiling.sh $(CEILING_ROUNDS)

## bench-deps: what the benchmarks run beside HTTPWire, installed when missing (as root; else it says how).
.PHONY: bench-deps
bench-deps:
	@for p in curl time libcurl4-openssl-dev wrk; do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || { \
	    if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$p >/dev/null || exit 1; \
	    else echo "make: run: sudo apt-get install -y $$p"; exit 1; fi; }; \
	done

## bench-scale: one client holding SCALE_COUNTS kept-alive connections to loopback nginx: memory per idle
## connection, requests/s with N in flight, the client's CPU per request, the reactor's loop latency (release
## build, not a test). In every round, wrk -t1 -cN runs against the same nginx just before the client at each N
## (ScaleBench --wrk): the server's ceiling and wrk's own CPU per request, paired with the client's round by
## round. SCALE_FLAGS=--reactor runs the client's tasks on the reactor thread, as the wire CLI does.
SCALE_COUNTS ?= 100 1000 10000
SCALE_ROUNDS ?= 5
SCALE_FLAGS ?=
.PHONY: bench-scale
bench-scale: deps bench-deps
	$(SWIFT) build $(RELEASE) $(SWIFT_FLAGS) --product ScaleBench
	@dir=$$(mktemp -d); trap 'bash Fixtures/nginx/nginx-scale.sh stop '$$dir'; rm -rf '$$dir EXIT; \
	  port=$$(bash Fixtures/nginx/nginx-scale.sh start $$dir) && ulimit -n $$(ulimit -Hn) && \
	  $$($(SWIFT) build $(RELEASE) --show-bin-path)/ScaleBench http://127.0.0.1:$$port/small \
	    --counts $$(echo $(SCALE_COUNTS) | tr ' ' ,) --rounds $(SCALE_ROUNDS) --wrk "$$(command -v wrk)" $(SCALE_FLAGS)

clean:
	rm -rf .build
