#!/usr/bin/env bash
# run-fuzz.sh SECONDS: libFuzzer on HTTPWire's response decoder (`make fuzz` runs it; FUZZ_SECONDS=600 for longer).
#
# Builds Tests/Fuzz/ResponseDecoderFuzz.swift together with every Sources/HTTPWireCodec/*.swift into one
# instrumented binary (swiftc -sanitize=fuzzer,address), seeds .build/fuzz/corpus from Fixtures/responses
# (inputs found by earlier runs are kept), fuzzes for SECONDS and prints the execution count. Exits non-zero
# when libFuzzer found a crash, a sanitizer report or a broken invariant: the input is left in
# .build/fuzz/artifacts/, and every such input becomes a fixture (Fixtures/responses/make-fixtures.py).
set -euo pipefail

seconds="${1:-60}"
cd "$(dirname "$0")/../.."
out=.build/fuzz
binary="$out/response-decoder-fuzz"
mkdir -p "$out/corpus" "$out/artifacts"

echo "fuzz: building $binary"
# The linker's "cannot export local symbol __asan_*" lines are harmless (see PLATFORM.md); anything else shows.
if ! swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name HTTPWireCodecFuzz \
    Sources/HTTPWireCodec/*.swift Tests/Fuzz/ResponseDecoderFuzz.swift -o "$binary" 2>"$out/build.log"; then
    cat "$out/build.log"
    exit 1
fi
grep -vi "cannot export local symbol" "$out/build.log" || true

cp -n Fixtures/responses/*.http "$out/corpus/" 2>/dev/null || true
before=$(find "$out/artifacts" -type f | wc -l)

echo "fuzz: running for ${seconds}s on $(find "$out/corpus" -type f | wc -l) corpus inputs"
set +e
SWIFT_BACKTRACE=enable=no "$binary" "$out/corpus" -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$out/artifacts/" >"$out/fuzz.log" 2>&1
status=$?
set -e

executions=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$out/fuzz.log" | grep -o '[0-9]*$' || true)
echo "fuzz: ${executions:-unknown} executions in ${seconds}s (libFuzzer exit $status, log $out/fuzz.log)"
after=$(find "$out/artifacts" -type f | wc -l)
if [ "$status" -ne 0 ] || [ "$after" -gt "$before" ]; then
    grep -E "ResponseDecoderFuzz:|ERROR: |SUMMARY: |Fatal error|Test unit written" "$out/fuzz.log" | head -20 || true
    echo "fuzz: FAILED: the input is in $out/artifacts/; add it to Fixtures/responses/make-fixtures.py" \
        "with its expected outcome in FixtureCatalog.swift, then fix the decoder"
    exit 1
fi
echo "fuzz: no crash"
