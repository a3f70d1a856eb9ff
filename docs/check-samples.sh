#!/usr/bin/env bash
# check-samples.sh: proves that every Swift code sample in README.md and in the DocC catalogs
# (Sources/*/*.docc/*.md) compiles against the HTTPWire in this checkout. Run through `make docs-check`
# or the DocSamplesTests test; exits 0 when every sample builds, 1 with the file and sample number otherwise.
#
# Every ```swift fenced block is a sample. Two kinds:
#   - a fragment (the usual case): its body is wrapped in `func sample_…() async throws { … }`, so it may
#     use `try` and `await` freely; `import` lines at its top are moved to file scope, and `HTTPWire` and
#     `HTTPWireCodec` are imported for it. Fragments share one module, each inside its own function, so
#     their local names never collide.
#   - a complete file, marked by a first line `// file` (or `// file: Name.swift`): compiled as written, as an executable
#     target of its own (`main.swift`, or a named file when it declares `@main`).
# Fragments are compiled; a sample that needs a live server is checked all the same. The short ones that need
# no network are also *run*: docs/runnable-samples.txt lists them ("<markdown file> <sample number>"), they
# are built a second time into a `RunSamples` executable, and a sample that throws or crashes fails the check.
#
# The samples become a throwaway package in .build/doc-samples that depends on this checkout by path
# (`.package(path: "../..")`: local, nothing is fetched), with the same Swift 6 language mode. Its build
# directory is kept between runs, so only the first run compiles HTTPWire; later runs recompile what changed.
# `#sourceLocation` maps every line back to the Markdown file, so compiler errors point at README.md:41.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$(pwd)"

SWIFT="${SWIFT:-swift}"
PACKAGE=".build/doc-samples"
STAGING="$PACKAGE/staging"
INDEX="$PACKAGE/samples.index"   # one line per sample: generated file, markdown file, number, first, last line

# The package identity of a path dependency is the last component of its path, lowercased.
IDENTITY="$(basename "$ROOT" | tr '[:upper:]' '[:lower:]')"

rm -rf "$STAGING"
mkdir -p "$STAGING/Sources/Samples" "$PACKAGE/Sources"
: >"$INDEX"

# The kept build can miss a source file added to this checkout since it was made (seen once: "cannot find
# type 'DownloadLock' in scope" for a file new in HTTPWire, until the sample build was removed). So the build
# starts over whenever the list of this checkout's Swift sources changes; edits to existing files stay
# incremental.
fingerprint="$(find Sources -name '*.swift' | LC_ALL=C sort | cksum)"
if [ "$(cat "$PACKAGE/sources.fingerprint" 2>/dev/null)" != "$fingerprint" ]; then
    rm -rf "$PACKAGE/.build"
    printf '%s\n' "$fingerprint" >"$PACKAGE/sources.fingerprint"
fi

shopt -s nullglob
markdown_files=()
[ -f README.md ] && markdown_files+=(README.md)
for catalog in Sources/*/*.docc; do
    while IFS= read -r file; do markdown_files+=("$file"); done < <(find "$catalog" -name '*.md' | sort)
done

# Extracts the samples of one Markdown file. For each block it writes the body to
# $STAGING/raw/<slug>_<n>.txt and appends "<slug>_<n> <file> <n> <first body line> <last body line>" to
# the index. The opening fence's indentation is removed from the body (blocks inside list items).
extract() {
    local file="$1" slug="$2"
    mkdir -p "$STAGING/raw"
    awk -v file="$file" -v slug="$slug" -v raw="$STAGING/raw" -v index_file="$INDEX" '
        function flush() {
            close(out)
            printf "%s_%d %s %d %d %d\n", slug, n, file, n, first, NR - 1 >> index_file
        }
        !inside && /^[ \t]*```[ \t]*swift[ \t]*$/ {
            inside = 1; n++; first = NR + 1
            match($0, /^[ \t]*/); indent = RLENGTH
            out = sprintf("%s/%s_%d.txt", raw, slug, n)
            printf "" > out
            next
        }
        inside && /^[ \t]*```[ \t]*$/ { inside = 0; flush(); next }
        inside {
            line = $0
            if (substr(line, 1, indent) ~ /^[ \t]*$/) line = substr(line, indent + 1)
            print line >> out
        }
        END { if (inside) { printf "%s:%d: error: unclosed ```swift block\n", file, first - 1 > "/dev/stderr"; exit 1 } }
    ' "$file"
}

for file in "${markdown_files[@]}"; do
    extract "$file" "$(printf '%s' "${file%.md}" | tr -c 'A-Za-z0-9' '_')"
done

# The samples to run as well as compile, as "file number" keys.
declare -A runnable=()
if [ -f docs/runnable-samples.txt ]; then
    while read -r listed_file listed_number; do
        case "$listed_file" in ""|\#*) continue ;; esac
        runnable["$listed_file $listed_number"]=1
    done <docs/runnable-samples.txt
fi
mkdir -p "$STAGING/Sources/RunSamples"
run_names=()

file_targets=()
count=0
while read -r name file number first last; do
    count=$((count + 1))
    raw="$STAGING/raw/$name.txt"
    absolute="$ROOT/$file"
    if head -n 1 "$raw" | grep -Eq '^[[:space:]]*//[[:space:]]*file([[:space:]:]|$)'; then
        # A complete file: its own executable target, compiled as written.
        target="FileSample_$name"
        mkdir -p "$STAGING/Sources/$target"
        source="main.swift"
        grep -q '^[[:space:]]*@main' "$raw" && source="$target.swift"
        {
            printf '#sourceLocation(file: "%s", line: %d)\n' "$absolute" "$first"
            cat "$raw"
            printf '#sourceLocation()\n'
        } >"$STAGING/Sources/$target/$source"
        file_targets+=("$target")
    else
        # A fragment: leading imports go to file scope, the rest into a function of its own.
        imports="$(awk '/^[ \t]*(@testable[ \t]+)?import[ \t]/ && !done { print; next } /^[ \t]*(\/\/.*)?$/ && !done { next } { done = 1 }' "$raw")"
        skip="$(awk '/^[ \t]*(@testable[ \t]+)?import[ \t]/ && !done { last = NR; next } /^[ \t]*(\/\/.*)?$/ && !done { next } { done = 1 } END { print last + 0 }' "$raw")"
        {
            printf '// %s, sample %d (lines %d-%d). Generated by docs/check-samples.sh.\n' "$file" "$number" "$first" "$last"
            printf 'import HTTPWire\nimport HTTPWireCodec\n'
            [ -n "$imports" ] && printf '%s\n' "$imports"
            printf '\nfunc sample_%s() async throws {\n' "$name"
            printf '#sourceLocation(file: "%s", line: %d)\n' "$absolute" "$((first + skip))"
            tail -n "+$((skip + 1))" "$raw"
            printf '#sourceLocation()\n}\n'
        } >"$STAGING/Sources/Samples/$name.swift"
        if [ -n "${runnable["$file $number"]:-}" ]; then
            cp "$STAGING/Sources/Samples/$name.swift" "$STAGING/Sources/RunSamples/$name.swift"
            run_names+=("$name")
        fi
    fi
done <"$INDEX"

# The runner: calls every runnable sample in turn; an error thrown by one ends it with a non-zero status.
{
    printf '// Generated by docs/check-samples.sh: runs the samples listed in docs/runnable-samples.txt.\n'
    for name in "${run_names[@]}"; do
        printf 'print("check-samples: running %s")\n' "$name"
        printf 'try await sample_%s()\n' "$name"
    done
} >"$STAGING/Sources/RunSamples/main.swift"

# A target needs at least one source file, even when every sample is a complete file.
printf '// The fragments of README.md and the DocC catalogs, one function each, are compiled beside this file.\n' \
    >"$STAGING/Sources/Samples/Samples.swift"

{
    printf '// swift-tools-version:6.0\n'
    printf '// Generated by docs/check-samples.sh: the documentation samples as a package. Do not edit.\n'
    printf 'import PackageDescription\n\n'
    printf 'let libraries: [Target.Dependency] = [\n'
    printf '    .product(name: "HTTPWire", package: "%s"), .product(name: "HTTPWireCodec", package: "%s"),\n' \
        "$IDENTITY" "$IDENTITY"
    # The test server apps use (TestingYourApp.md); its samples also import the toolchain's Testing.
    printf '    .product(name: "HTTPWireTesting", package: "%s"),\n' "$IDENTITY"
    printf ']\n\n'
    printf 'let package = Package(\n'
    printf '    name: "DocSamples",\n'
    printf '    dependencies: [.package(path: "../..")],\n'
    printf '    targets: [\n'
    printf '        .target(name: "Samples", dependencies: libraries),\n'
    printf '        .executableTarget(name: "RunSamples", dependencies: libraries),\n'
    for target in "${file_targets[@]}"; do
        printf '        .executableTarget(name: "%s", dependencies: libraries),\n' "$target"
    done
    printf '    ],\n'
    printf '    swiftLanguageModes: [.v6]\n'
    printf ')\n'
} >"$STAGING/Package.swift"

# Move the staged package into place, touching only files whose bytes changed, so the build stays incremental.
sync_tree() {
    local from="$1" to="$2" path
    (cd "$from" && find . -type f) | while read -r path; do
        if ! cmp -s "$from/$path" "$to/$path"; then
            mkdir -p "$(dirname "$to/$path")"
            cp "$from/$path" "$to/$path"
        fi
    done
    (cd "$to" && find . -type f) | while read -r path; do
        [ -e "$from/$path" ] || rm -f "$to/$path"
    done
    find "$to" -mindepth 1 -type d -empty -delete
}
mkdir -p "$PACKAGE/Sources"
sync_tree "$STAGING/Sources" "$PACKAGE/Sources"
cmp -s "$STAGING/Package.swift" "$PACKAGE/Package.swift" || cp "$STAGING/Package.swift" "$PACKAGE/Package.swift"

echo "check-samples: building $count samples from ${#markdown_files[@]} Markdown files"
log="$PACKAGE/build.log"
# Warnings are not errors here: a fragment's unused `let response = …` is normal in documentation.
if "$SWIFT" build --package-path "$PACKAGE" -Xswiftc -suppress-warnings >"$log" 2>&1; then
    echo "check-samples: all $count samples compile"
    runner="$("$SWIFT" build --package-path "$PACKAGE" --show-bin-path)/RunSamples"
    if ! "$runner" >"$PACKAGE/run.log" 2>&1; then
        cat "$PACKAGE/run.log" >&2
        echo "check-samples: a runnable sample failed (the last one named above)" >&2
        exit 1
    fi
    echo "check-samples: ${#run_names[@]} of them also ran (docs/runnable-samples.txt)"
    exit 0
fi

# Name the sample behind every error: find the block whose lines contain the reported line.
failed=0
while IFS= read -r diagnostic; do
    location="${diagnostic%%: error:*}"
    path="${location%%:*}"
    rest="${location#*:}"
    line="${rest%%:*}"
    relative="${path#"$ROOT"/}"
    sample="$(awk -v file="$relative" -v line="$line" \
        '$2 == file && line >= $4 && line <= $5 { printf "%s sample %d (lines %d-%d)", $2, $3, $4, $5 }' "$INDEX")"
    echo "check-samples: ${sample:-$relative}: does not compile" >&2
    echo "    $diagnostic" >&2
    failed=1
done < <(grep -E '^/[^:]+:[0-9]+:[0-9]+: error:' "$log" | sort -u)

if [ "$failed" = 0 ]; then
    cat "$log" >&2
    echo "check-samples: the sample package failed to build (see above)" >&2
fi
exit 1
