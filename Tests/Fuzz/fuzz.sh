#!/usr/bin/env bash
# fuzz.sh: builds and runs HTTPWire's libFuzzer targets (`make fuzz` runs each briefly, `make fuzz-long` long).
#
#   Tests/Fuzz/fuzz.sh TARGET SECONDS        fuzz TARGET for SECONDS
#   Tests/Fuzz/fuzz.sh TARGET --runs N       fuzz TARGET for N executions
#   Tests/Fuzz/fuzz.sh TARGET --replay [F..] run TARGET once on each file F (default: its seeds), no fuzzing
#   Tests/Fuzz/fuzz.sh TARGET --build        only build it
#   Tests/Fuzz/fuzz.sh all SECONDS|--runs N  every target (or those FUZZ_TARGETS names) in turn; the next
#                                            one builds while one fuzzes
#   Tests/Fuzz/fuzz.sh --list                the target names
#
# A target is one file, Tests/Fuzz/Targets/NAME.swift, that defines LLVMFuzzerTestOneInput. Comment lines in
# it say how to build and seed it:
#   // fuzz-module: HTTPWireCodec                      a module built from its whole folder, Sources/NAME
#   // fuzz-module: HTTPWire Sources/HTTPWire/F.swift  a module built from just these files or folders
#   // fuzz-include: Sources/COpenSSL                  a folder with a module.modulemap (C modules)
#   // fuzz-seeds: Fixtures/responses                  read-only seed folders (default: Fixtures/fuzz/NAME)
#   // fuzz-max-len: 1024                              libFuzzer's -max_len
# Modules are listed in dependency order. Each is compiled once per set of sources with full libFuzzer
# instrumentation (coverage, comparison tracing) and ASan into .build/fuzz/modules/, and reused by every
# target that lists it. The target file and Tests/Fuzz/Support/*.swift form the target's own module, which
# gets ASan but no coverage (the harness's branches would only be noise to the fuzzer), importing the
# modules with `@testable import`. Builds are cached by a hash of their sources and flags.
#
# Each target keeps its state in .build/fuzz/NAME/: corpus/ (inputs found so far, reused by the next run),
# artifacts/ (crashes, timeouts, broken invariants), fuzz.log, build.log and summary.txt (the figures of the
# last run). Every run also executes all seeds, so a seed folder doubles as a regression corpus. The run
# fails when libFuzzer exits non-zero or leaves a new artifact; the input is kept, and it becomes a fixture
# as docs/reliability.md says. Environment: SWIFTC (default swiftc), FUZZ_FLAGS (extra libFuzzer flags),
# FUZZ_OUT (the state and build folder, default .build/fuzz), FUZZ_TARGETS (the targets `all` runs,
# separated by spaces; default every one), FUZZ_REPEATABLE=1 (a run that explores the same inputs on every
# machine and every time: libFuzzer's -seed=FUZZ_SEED, default 1, Swift's deterministic hashing, and an empty
# corpus of its own instead of corpus/; with --runs it is what `make test` runs, so a CI run can only fail on
# what the same command fails on here — exploring is for `make fuzz` and `make fuzz-long`).
set -euo pipefail
cd "$(dirname "$0")/../.."

SWIFTC="${SWIFTC:-swiftc}"
FUZZ_DIR=Tests/Fuzz
OUT="${FUZZ_OUT:-.build/fuzz}"
DICT="$FUZZ_DIR/http.dict"
# Swift 6 like Package.swift; -O because -Onone runs the decoder five times slower under the sanitizers.
COMMON_FLAGS=(-swift-version 6 -parse-as-library -O -wmo -package-name HTTPWire)
MODULE_FLAGS=(-sanitize=fuzzer,address -enable-testing)
TARGET_FLAGS=(-sanitize=address -warnings-as-errors)

usage() {
    sed -n '3,10p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

targets() {
    for file in "$FUZZ_DIR"/Targets/*.swift; do basename "$file" .swift; done
}

# The value of every `// fuzz-KEY:` line of a target, one per line.
directive() {
    sed -n "s|^// fuzz-$2: *||p" "$FUZZ_DIR/Targets/$1.swift"
}

# A hash of the named files' contents and names plus everything else given, for the build caches.
fingerprint() {
    {
        "$SWIFTC" --version 2>&1
        printf '%s\n' "$@"
        for item in "$@"; do
            if [ -f "$item" ]; then cat "$item"; fi
        done
    } | sha256sum | cut -c1-16
}

# Compiler output without the linker's harmless "cannot export local symbol __asan_*" lines (PLATFORM.md).
show_log() {
    grep -vi "cannot export local symbol" "$1" || true
}

# Swift sources of a module line: the listed files and folders, or Sources/NAME when none are listed.
module_sources() {
    local name=$1
    shift
    [ $# -gt 0 ] || set -- "Sources/$name"
    find "$@" -name '*.swift' | LC_ALL=C sort
}

# Builds one instrumented module if its cached copy is stale; prints its folder.
build_module() {
    local name=$1
    shift
    local sources includes=() flags key dir
    mapfile -t sources < <(module_sources "$name" "$@")
    [ ${#sources[@]} -gt 0 ] || { echo "fuzz: no Swift sources for module $name" >&2; return 1; }
    for dir in "${MODULE_INCLUDES[@]}" "${BUILT_MODULES[@]}"; do includes+=(-I "$dir"); done
    flags="${COMMON_FLAGS[*]} ${MODULE_FLAGS[*]} ${includes[*]}"
    key=$(fingerprint "$name" "$flags" "${sources[@]}" "${BUILT_KEYS[@]}")
    dir="$OUT/modules/$name-$key"
    if [ ! -f "$dir/$name.o" ]; then
        echo "fuzz: building module $name (${#sources[@]} files) in $dir" >&2
        rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
        if ! "$SWIFTC" "${COMMON_FLAGS[@]}" "${MODULE_FLAGS[@]}" "${includes[@]}" -module-name "$name" \
            -emit-module -emit-module-path "$dir.tmp/$name.swiftmodule" -c -o "$dir.tmp/$name.o" \
            "${sources[@]}" >"$dir.tmp/build.log" 2>&1; then
            show_log "$dir.tmp/build.log" >&2
            return 1
        fi
        show_log "$dir.tmp/build.log" >&2
        rm -rf "$dir" && mv "$dir.tmp" "$dir"
    fi
    BUILT_MODULES+=("$dir")
    BUILT_KEYS+=("$key")
}

# Builds the modules a target lists, then the target itself; leaves the binary at $OUT/NAME/NAME-fuzz.
build_target() {
    local name=$1 file="$FUZZ_DIR/Targets/$1.swift"
    [ -f "$file" ] || { echo "fuzz: no target $name (expected $file; targets: $(targets | xargs))" >&2; return 2; }
    local dir="$OUT/$name" line include objects=() includes=() support key
    mkdir -p "$dir"
    BUILT_MODULES=()
    BUILT_KEYS=()
    MODULE_INCLUDES=()
    while read -r include; do
        [ -n "$include" ] && MODULE_INCLUDES+=($include)
    done < <(directive "$name" include)
    while read -r line; do
        [ -n "$line" ] || continue
        # shellcheck disable=SC2086 # a module line is a name followed by paths without spaces
        build_module $line || return 1
    done < <(directive "$name" module)
    for include in "${MODULE_INCLUDES[@]}" "${BUILT_MODULES[@]}"; do includes+=(-I "$include"); done
    for include in "${BUILT_MODULES[@]}"; do objects+=("$include"/*.o); done
    mapfile -t support < <(find "$FUZZ_DIR/Support" -name '*.swift' | LC_ALL=C sort)
    key=$(fingerprint "$name" "${COMMON_FLAGS[*]} ${TARGET_FLAGS[*]}" "$file" "${support[@]}" "${BUILT_KEYS[@]}")
    if [ -x "$dir/$name-fuzz" ] && [ "$(cat "$dir/build.key" 2>/dev/null)" = "$key" ]; then return 0; fi
    echo "fuzz: building $dir/$name-fuzz" >&2
    if ! { "$SWIFTC" "${COMMON_FLAGS[@]}" "${TARGET_FLAGS[@]}" "${includes[@]}" -module-name "Fuzz$name" \
        -c -o "$dir/$name.o" "${support[@]}" "$file" &&
        "$SWIFTC" -sanitize=fuzzer,address "$dir/$name.o" "${objects[@]}" -o "$dir/$name-fuzz"; } \
        >"$dir/build.log" 2>&1; then
        show_log "$dir/build.log" >&2
        return 1
    fi
    show_log "$dir/build.log" >&2
    echo "$key" >"$dir/build.key"
}

# The seed folders of a target that exist.
seed_folders() {
    local folders folder
    folders=$(directive "$1" seeds)
    [ -n "$folders" ] || folders="Fixtures/fuzz/$1"
    for folder in $folders; do [ -d "$folder" ] && echo "$folder"; done
    return 0
}

# CPU seconds (user + system) in a file written by the `times` builtin: its last line, the children's.
cpu_seconds() {
    tail -1 "$1" | awk '{
        total = 0
        for (i = 1; i <= 2; i++) { split($i, part, "m"); sub("s", "", part[2]); total += part[1] * 60 + part[2] }
        printf "%.1f", total
    }'
}

# libFuzzer's final figures, from its log, as one line for people and a summary file for docs. The
# executions per CPU second are the figure to compare across runs: on a shared machine the wall-clock rate
# also measures the neighbours.
report() {
    local name=$1 log=$2 status=$3 seconds=$4 cpu=$5 dir="$OUT/$1"
    local runs rate done_line added rss slowest
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    added=$(sed -n 's/^stat::new_units_added: *//p' "$log")
    rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log")
    slowest=$(sed -n 's/^stat::slowest_unit_time_sec: *//p' "$log")
    done_line=$(grep -E '^#[0-9]+[[:space:]]+(DONE|INITED|pulse|NEW|REDUCE)' "$log" | tail -1 || true)
    local cov ft corpus
    cov=$(echo "$done_line" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
    ft=$(echo "$done_line" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
    corpus=$(echo "$done_line" | sed -n 's/.* corp: \([^ ]*\).*/\1/p')
    {
        echo "target=$name"
        echo "executions=${runs:-0}"
        echo "exec_per_second=${rate:-0}"
        echo "seconds=$seconds"
        echo "cpu_seconds=$cpu"
        echo "exec_per_cpu_second=$(awk -v r="${runs:-0}" -v c="$cpu" 'BEGIN { printf "%d", (c > 0 ? r / c : 0) }')"
        echo "load_average=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
        echo "coverage_edges=${cov:-0}"
        echo "features=${ft:-0}"
        echo "corpus=${corpus:-0}"
        echo "new_units=${added:-0}"
        echo "peak_rss_mb=${rss:-0}"
        echo "slowest_input_seconds=${slowest:-0}"
        echo "libfuzzer_exit=$status"
    } >"$dir/summary.txt"
    echo "fuzz: $name: ${runs:-0} executions in ${seconds}s (${rate:-0}/s, ${cpu} CPU s), cov ${cov:-?}," \
        "ft ${ft:-?}, corpus ${corpus:-?} (inputs/size), peak RSS ${rss:-?} MB"
}

# Fuzzes one built target; $2 is a libFuzzer limit such as -max_total_time=8 or -runs=10000000.
run_target() {
    local name=$1 limit=$2 dir="$OUT/$1" max_len seeds before after status start cpu corpus repeatable=()
    local environment=(SWIFT_BACKTRACE=enable=no)
    max_len=$(directive "$name" max-len)
    mapfile -t seeds < <(seed_folders "$name")
    corpus="$dir/corpus"
    if [ "${FUZZ_REPEATABLE:-0}" = 1 ]; then
        corpus="$dir/corpus-repeatable"
        rm -rf "$corpus"
        repeatable=(-seed="${FUZZ_SEED:-1}")
        environment+=(SWIFT_DETERMINISTIC_HASHING=1)
    fi
    mkdir -p "$corpus" "$dir/artifacts"
    before=$(find "$dir/artifacts" -type f | wc -l)
    echo "fuzz: $name: $limit ${repeatable[*]}, $(find "$corpus" -type f | wc -l) corpus inputs," \
        "seeds ${seeds[*]:-none}"
    start=$(date +%s)
    set +e
    # The fuzzer runs under a shell of its own, whose `times` then counts the fuzzer alone: this shell's
    # children also include the next target's build, reaped whenever it ends.
    # shellcheck disable=SC2016,SC2086 # the inner script is single-quoted on purpose; FUZZ_FLAGS is a list
    env "${environment[@]}" bash -c '"$@"; status=$?; times >"$0"; exit $status' "$dir/times.txt" \
        "$dir/$name-fuzz" "$corpus" "${seeds[@]}" "$limit" "${repeatable[@]}" -dict="$DICT" \
        -max_len="${max_len:-4096}" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$dir/artifacts/" ${FUZZ_FLAGS:-} >"$dir/fuzz.log" 2>&1
    status=$?
    set -e
    cpu=$(cpu_seconds "$dir/times.txt")
    report "$name" "$dir/fuzz.log" "$status" "$(($(date +%s) - start))" "$cpu"
    after=$(find "$dir/artifacts" -type f | wc -l)
    if [ "$status" -ne 0 ] || [ "$after" -gt "$before" ]; then
        grep -E "fuzz check failed|ERROR: |SUMMARY: |Fatal error|Test unit written|==[0-9]+==" "$dir/fuzz.log" \
            | head -20 || true
        echo "fuzz: $name FAILED (libFuzzer exit $status, log $dir/fuzz.log); the input is in $dir/artifacts/."
        echo "fuzz: replay it with: $0 $name --replay $dir/artifacts/<file>; keep it as a regression fixture" \
            "(docs/reliability.md, \"A crash becomes a fixture\") before fixing the bug."
        return 1
    fi
}

# Runs a target once on each given file (default: its seeds) and fails if any of them fails.
replay_target() {
    local name=$1 files=() folder
    shift
    files=("$@")
    if [ ${#files[@]} -eq 0 ]; then
        while read -r folder; do files+=("$folder"/*); done < <(seed_folders "$name")
    fi
    [ ${#files[@]} -gt 0 ] || { echo "fuzz: $name: nothing to replay"; return 0; }
    SWIFT_BACKTRACE=enable=no "$OUT/$name/$name-fuzz" -runs=1 "${files[@]}" >"$OUT/$name/replay.log" 2>&1 || {
        grep -E "fuzz check failed|ERROR: |SUMMARY: |Fatal error|Running: " "$OUT/$name/replay.log" | tail -20
        echo "fuzz: $name: replay FAILED (log $OUT/$name/replay.log)"
        return 1
    }
    echo "fuzz: $name: ${#files[@]} inputs replayed, no failure"
}

# Every target in turn. The next target's build runs in the background while one fuzzes (libFuzzer uses one
# core), so after the first target the builds cost no wall time on a two-core machine.
run_all() {
    local limit=$1 names failed=() index build_pid=""
    if [ -n "${FUZZ_TARGETS:-}" ]; then
        read -r -a names <<<"$FUZZ_TARGETS"
    else
        mapfile -t names < <(targets)
    fi
    build_target "${names[0]}" || return 1
    for index in "${!names[@]}"; do
        if [ -n "$build_pid" ]; then
            wait "$build_pid" || { echo "fuzz: building ${names[$index]} failed (log $OUT/${names[$index]}/build.log)"; return 1; }
            build_pid=""
        fi
        if [ $((index + 1)) -lt ${#names[@]} ]; then
            mkdir -p "$OUT/${names[$((index + 1))]}"
            build_target "${names[$((index + 1))]}" 2>"$OUT/${names[$((index + 1))]}/build-progress.log" &
            build_pid=$!
        fi
        run_target "${names[$index]}" "$limit" || failed+=("${names[$index]}")
    done
    if [ ${#failed[@]} -gt 0 ]; then
        echo "fuzz: FAILED: ${failed[*]}"
        return 1
    fi
    echo "fuzz: ${#names[@]} targets, no crash"
}

[ $# -ge 1 ] || usage
if [ "$1" = "--list" ]; then
    targets
    exit 0
fi
[ $# -ge 2 ] || usage
name=$1
shift
case "$1" in
    --runs) [ $# -eq 2 ] || usage; limit="-runs=$2" ;;
    --replay | --build) limit="" ;;
    *[!0-9]* | "") usage ;;
    *) limit="-max_total_time=$1" ;;
esac

if [ "$name" = "all" ]; then
    [ -n "$limit" ] || usage
    run_all "$limit"
    exit
fi
build_target "$name"
case "$1" in
    --build) ;;
    --replay) shift; replay_target "$name" "$@" ;;
    *) run_target "$name" "$limit" ;;
esac
