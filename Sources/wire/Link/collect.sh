#!/usr/bin/env bash
# collect.sh: writes Sources/wire/Link/wire.order, the list of functions `wire` runs in the reference
# harness's scenarios, which the release link puts first and together (`--symbol-ordering-file`, Package.swift).
#
# Why: a process's resident set counts every page of the binary it maps, and the kernel maps a file's pages
# around each fault (64 KiB and more at a time), so code that runs scattered over 10 MB of text keeps megabytes
# resident that hold almost nothing that runs. One GET runs ~450 KB of functions spread over ~40 such windows;
# placed together they fill a handful (docs/benchmarks.md, "Memory").
#
# How: each scenario runs once under valgrind's callgrind, which names every function that executed; the names
# found in the wire binary are merged, the ones every scenario runs first (start-up, the request path), then by
# how many scenarios run them, then by name, so the file is stable between runs. A name the code no longer has
# is skipped by the linker; a function missing from the list is merely placed after the listed ones — a stale
# list costs memory, never correctness. Re-run after a large change to the request or download path:
#
#   bash ../shared/bench/server.sh start      # nginx and the stream server of the reference harness
#   bash Sources/wire/Link/collect.sh     # needs valgrind (apt-get install valgrind)
#
# How stale the list is: `collect.sh --check BINARY` counts the listed functions a release `wire` no longer
# has (renamed or gone since the list was collected) and says to collect again when that is over 5% of them
# (`make bench` runs it). Nothing fails: a stale list costs pages, not correctness.
#
# Scenarios: the harness's rows at a smaller size (100 MiB files, 50 sequential and 500 concurrent GETs) plus
# the CLI's common failures (a refused connection, a 404 with --fail), so their paths sit with the rest.
set -euo pipefail
cd "$(dirname "$0")/../../.."
if [ "${1:-}" = --check ]; then
    binary=${2:?usage: collect.sh --check BINARY}
    listed=$(grep -c . Sources/wire/Link/wire.order)
    missing=$(comm -23 <(sort -u Sources/wire/Link/wire.order) <(nm "$binary" | awk '{print $NF}' | sort -u) | wc -l)
    echo "wire.order: $missing of $listed listed functions are not in $binary"
    if [ $((missing * 100)) -gt $((listed * 5)) ]; then
        echo "wire.order: over 5% stale; collect it again: bash Sources/wire/Link/collect.sh"
    fi
    exit 0
fi
command -v valgrind >/dev/null || { echo "collect.sh: valgrind is needed (apt-get install valgrind)" >&2; exit 1; }
bench_lib=../shared/bench/lib/common.sh
[ -f "$bench_lib" ] || { echo "collect.sh: ../shared/bench is needed for its servers and fixtures" >&2; exit 1; }
# shellcheck disable=SC1090
source "$bench_lib"
curl -sf -o /dev/null "http://$WB_HOST:$WB_HTTP_PORT/small.json" \
    || { echo "collect.sh: start the servers first: bash ../shared/bench/server.sh start" >&2; exit 1; }

swift build -c release --static-swift-stdlib --product wire >/dev/null
wire="$(swift build -c release --static-swift-stdlib --show-bin-path)/wire"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
small="http://$WB_HOST:$WB_HTTP_PORT/small.json"
urls() { for ((i = 1; i <= $1; i++)); do printf '%s?i=%d\n' "$small" "$i"; done; }

run() {  # run NAME ARGS...: one scenario under callgrind; a failing exit is expected for the failure scenarios
    local name=$1
    shift
    echo "collect.sh: $name" >&2
    valgrind --tool=callgrind --demangle=no --compress-strings=no --compress-pos=no \
        --callgrind-out-file="$work/$name.out" "$wire" "$@" >/dev/null 2>"$work/$name.log" || true
}
run get1 get "$small" -o /dev/null --no-progress
mapfile -t seq < <(urls 50)
run seq get "${seq[@]}" --no-progress
mapfile -t conc < <(urls 500)
run conc get "${conc[@]}" --parallel 64 --no-progress
run dl_http download "http://$WB_HOST:$WB_HTTP_PORT/mid.bin" -o "$work/a.bin" --no-progress
rm -f "$work"/a.bin*
run dl_https download "https://$WB_HOST:$WB_HTTPS_PORT/mid.bin" -o "$work/b.bin" --cacert "$WB_TLS/ca.pem" --no-progress
rm -f "$work"/b.bin*
run chunked download "http://$WB_HOST:$WB_STREAM_PORT/mid.bin" -o "$work/c.bin" --no-progress
rm -f "$work"/c.bin*
run upload upload "http://$WB_HOST:$WB_STREAM_PORT/upload" -F "file=@$WB_FIX/mid.bin" --no-progress -o /dev/null
run refused get "http://$WB_HOST:9/" --no-progress
run notfound get "http://$WB_HOST:$WB_HTTP_PORT/missing" --fail --no-progress

python3 - "$wire" "$work" Sources/wire/Link/wire.order <<'PY'
import collections, glob, os, re, sys
binary, work, target = sys.argv[1:4]
binary = os.path.realpath(binary)
counts = collections.Counter()
for path in sorted(glob.glob(os.path.join(work, "*.out"))):
    names, current = set(), None
    with open(path) as handle:
        for line in handle:
            if line.startswith("ob="):
                current = os.path.realpath(line[3:].strip()) if line[3:].strip() else current
            elif line.startswith("fn=") and current == binary:
                # callgrind marks a function's recursive entries with a suffix ("'2"): not the symbol's name.
                name = re.sub(r"'[0-9]+$", "", line[3:].strip())
                if not name.startswith("0x"):  # an address: no symbol to order by
                    names.add(name)
    counts.update(names)
ordered = sorted(counts, key=lambda name: (-counts[name], name))
with open(target, "w") as handle:
    handle.write("\n".join(ordered) + "\n")
print(f"collect.sh: {len(ordered)} functions in {target}", file=sys.stderr)
PY
