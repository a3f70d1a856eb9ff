#!/usr/bin/env bash
# run-socks5-fuzz.sh SECONDS: libFuzzer on the SOCKS5 handshake's parsing of a proxy's answers (`make fuzz`
# runs it after the response decoder's run).
#
# Builds Tests/Fuzz/SOCKS5HandshakeFuzz.swift with Sources/HTTPWireTransport/SOCKS5Handshake.swift and
# TransportError.swift into one instrumented binary (swiftc -sanitize=fuzzer,address), seeds .build/fuzz-socks5/corpus
# with a few well-formed answer streams (inputs found by earlier runs are kept), fuzzes for SECONDS and prints the
# execution count. Exits non-zero when libFuzzer found a crash, a sanitizer report or a broken invariant: the
# input is left in .build/fuzz-socks5/artifacts/; it becomes a case of SOCKS5HandshakeTests, then the machine
# is fixed.
set -euo pipefail

seconds="${1:-60}"
cd "$(dirname "$0")/../.."
out=.build/fuzz-socks5
binary="$out/socks5-handshake-fuzz"
mkdir -p "$out/corpus" "$out/artifacts"

echo "fuzz-socks5: building $binary"
# The linker's "cannot export local symbol __asan_*" lines are harmless (see PLATFORM.md); anything else shows.
if ! swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name HTTPWireSOCKS5Fuzz -package-name HTTPWireFuzz \
    Sources/HTTPWireTransport/SOCKS5Handshake.swift Sources/HTTPWireTransport/TransportError.swift \
    Tests/Fuzz/SOCKS5HandshakeFuzz.swift -o "$binary" 2>"$out/build.log"; then
    cat "$out/build.log"
    exit 1
fi
grep -vi "cannot export local symbol" "$out/build.log" || true

# Seeds: selector byte, then the proxy's answers. No auth + IPv4 reply; user/password + name reply; a refusal.
printf '\x00\x05\x00\x05\x00\x00\x01\x7f\x00\x00\x01\x04\x38' >"$out/corpus/seed-noauth-ipv4"
printf '\x80\x05\x02\x01\x00\x05\x00\x00\x03\x05proxy\x01\xbb' >"$out/corpus/seed-userpass-name"
printf '\x01\x05\x00\x05\x05\x00\x04' >"$out/corpus/seed-refused"
before=$(find "$out/artifacts" -type f | wc -l)

echo "fuzz-socks5: running for ${seconds}s on $(find "$out/corpus" -type f | wc -l) corpus inputs"
set +e
SWIFT_BACKTRACE=enable=no "$binary" "$out/corpus" -max_total_time="$seconds" -max_len=600 -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$out/artifacts/" >"$out/fuzz.log" 2>&1
status=$?
set -e

executions=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$out/fuzz.log" | grep -o '[0-9]*$' || true)
echo "fuzz-socks5: ${executions:-unknown} executions in ${seconds}s (libFuzzer exit $status, log $out/fuzz.log)"
after=$(find "$out/artifacts" -type f | wc -l)
if [ "$status" -ne 0 ] || [ "$after" -gt "$before" ]; then
    grep -E "SOCKS5HandshakeFuzz:|ERROR: |SUMMARY: |Fatal error|Test unit written" "$out/fuzz.log" | head -20 || true
    echo "fuzz-socks5: FAILED: the input is in $out/artifacts/; add it to SOCKS5HandshakeTests, then fix the machine"
    exit 1
fi
echo "fuzz-socks5: no crash"
