#!/usr/bin/env bash
# build-docs.sh: builds HTTPWire's DocC documentation offline with the toolchain's own `docc` (the
# swift-docc-plugin is a package we cannot fetch). Run it through `make docs`.
#
#   1. `swift build` the two library targets with the compiler emitting symbol graphs (public symbols only);
#   2. `docc convert` each module's catalog against its own graphs, warnings treated as errors, so a broken
#      ``Symbol`` reference or <doc:Article> link fails the build. HTTPWireCodec is converted first with
#      external link support, and HTTPWire resolves its links into the codec against that archive;
#   3. `docc merge` the two archives into one site with a landing page listing both modules.
#
# Output: .build/docs/HTTPWire.doccarchive, the combined site; .build/docs/modules/ holds one archive per
# module and docc's log for each.
# Environment: DOCS_SCRATCH_PATH (default .build/docs-symbols) is the build directory for step 1; it is
# separate from .build so the extra compiler flags never invalidate the ordinary debug build.
set -euo pipefail
cd "$(dirname "$0")/.."

SWIFT="${SWIFT:-swift}"
DOCC="${DOCC:-$(dirname "$(command -v "$SWIFT")")/docc}"
[ -x "$DOCC" ] || DOCC="$(command -v docc || true)"
[ -x "$DOCC" ] || { echo "build-docs: docc not found next to $SWIFT nor on PATH" >&2; exit 1; }

SCRATCH="${DOCS_SCRATCH_PATH:-.build/docs-symbols}"
# The compiler writes a module's graph only when it compiles that module, so the graphs live beside the
# build that produced them and survive an incremental build that compiles nothing.
EMITTED="$SCRATCH/symbol-graphs"
GRAPHS=".build/docs-symbol-graphs"
OUT=".build/docs"
MODULES=(HTTPWireCodec HTTPWire)   # dependency order: a module's links may point into the ones before it

emit_symbol_graphs() {
    mkdir -p "$EMITTED"
    "$SWIFT" build --target HTTPWire --scratch-path "$SCRATCH" \
        -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$EMITTED" \
        -Xswiftc -symbol-graph-minimum-access-level -Xswiftc public
}

# Copies Module.symbols.json, plus Module@Other.symbols.json (extensions of another module's types), into
# one folder per module; fails when a module has no graph.
sort_symbol_graphs() {
    rm -rf "$GRAPHS"
    local module graph found
    for module in "${MODULES[@]}"; do
        mkdir -p "$GRAPHS/$module"
        found=0
        for graph in "$EMITTED/$module.symbols.json" "$EMITTED/$module@"*.symbols.json; do
            [ -e "$graph" ] || continue
            cp "$graph" "$GRAPHS/$module/"
            found=1
        done
        [ "$found" = 1 ] || return 1
    done
}

echo "build-docs: emitting symbol graphs"
emit_symbol_graphs
if ! sort_symbol_graphs; then
    # The graphs were deleted without the build: rebuild from scratch once so every module is compiled.
    echo "build-docs: symbol graphs missing, rebuilding $SCRATCH"
    rm -rf "$SCRATCH"
    emit_symbol_graphs
    sort_symbol_graphs || { echo "build-docs: the compiler wrote no symbol graph for a module" >&2; exit 1; }
fi

# `make api` needs only the graphs (docs/api.sh reads them).
if [ "${DOCS_GRAPHS_ONLY:-0}" = 1 ]; then
    echo "build-docs: symbol graphs in $GRAPHS"
    exit 0
fi

rm -rf "$OUT"
mkdir -p "$OUT/modules"

# docc prints diagnostics on stderr; --warnings-as-errors turns every warning into a failure. The grep is a
# second guard in case a diagnostic ever arrives as a warning without failing the command.
convert() {
    local module="$1"; shift
    local log="$OUT/modules/$module.log"
    echo "build-docs: converting $module"
    if ! "$DOCC" convert "Sources/$module/$module.docc" \
        --additional-symbol-graph-dir "$GRAPHS/$module" \
        --output-path "$OUT/modules/$module.doccarchive" \
        --fallback-display-name "$module" \
        --fallback-bundle-identifier "org.httpwire.$module" \
        --enable-experimental-external-link-support \
        --warnings-as-errors "$@" >"$log" 2>&1; then
        cat "$log" >&2
        echo "build-docs: docc failed for $module" >&2
        exit 1
    fi
    if grep -qi "warning:" "$log"; then
        cat "$log" >&2
        echo "build-docs: docc reported warnings for $module" >&2
        exit 1
    fi
}

dependencies=()
for module in "${MODULES[@]}"; do
    convert "$module" "${dependencies[@]}"
    dependencies+=(--dependency "$OUT/modules/$module.doccarchive")
done

echo "build-docs: merging"
merge_args=()
for module in "${MODULES[@]}"; do merge_args+=("$OUT/modules/$module.doccarchive"); done
"$DOCC" merge "${merge_args[@]}" --output-path "$OUT/HTTPWire.doccarchive" \
    --synthesized-landing-page-name HTTPWire --synthesized-landing-page-kind Package
echo "build-docs: wrote $OUT/HTTPWire.doccarchive"
