#!/usr/bin/env bash
# api.sh: HTTPWire's public surface, one symbol per line, sorted — what `make api` writes to docs/api.txt and
# what `make docs` (part of `make test`) checks against it, so every change to the public API is a reviewed
# diff of that file.
#
#   bash docs/api.sh           print the surface from the symbol graphs `docs/build-docs.sh` emitted
#   bash docs/api.sh --write   write it to docs/api.txt
#   bash docs/api.sh --check   fail, showing the diff, when it differs from docs/api.txt
#
# The symbol graphs are the compiler's own account of the public declarations (`-emit-symbol-graph` with
# `-symbol-graph-minimum-access-level public`), read from .build/docs-symbol-graphs/<Module>/; `package` and
# internal declarations never appear, nor members the compiler synthesized or a protocol extension supplies.
# Each line is `Module.Type.member  declaration`, for both products (HTTPWireCodec and HTTPWire; the
# transport has no public declarations at all).
set -euo pipefail
cd "$(dirname "$0")/.."
GRAPHS=".build/docs-symbol-graphs"
[ -d "$GRAPHS/HTTPWire" ] || { echo "api: no symbol graphs in $GRAPHS; run make docs (or make api) first" >&2; exit 1; }

surface() {
    python3 - "$GRAPHS" <<'PY'
import glob, json, os, sys
root = sys.argv[1]
lines = set()
modules = set(os.listdir(root))

def reexported(usr, module):
    # A Swift USR starts with its declaring module: `s:13HTTPWireCodec6StatusV` is HTTPWireCodec's Status.
    digits = ""
    for character in usr[2:] if usr.startswith("s:") else "":
        if not character.isdigit():
            break
        digits += character
    if not digits:
        return False
    start = 2 + len(digits)
    owner = usr[start:start + int(digits)]
    return owner != module and owner in modules

for module in sorted(os.listdir(root)):
    for path in sorted(glob.glob(os.path.join(root, module, "*.symbols.json"))):
        with open(path) as handle:
            graph = json.load(handle)
        for symbol in graph.get("symbols", []):
            # No location: synthesized by the compiler or inherited from a protocol extension (`!=`,
            # `hash(into:)`), not declared here.
            if symbol.get("accessLevel") != "public" or "location" not in symbol:
                continue
            # Re-exported (`@_exported import HTTPWireCodec` in HTTPWire): listed once, under its own module.
            # A member that this module's own sources add to another module's type (`extension
            # ServerSentEvent` in HTTPWire) carries the other module in its identifier too, but is API of
            # this module: it is kept, by where it is declared.
            declared_here = f"/Sources/{module}/" in symbol["location"].get("uri", "")
            if reexported(symbol["identifier"]["precise"], module) and not declared_here:
                continue
            name = ".".join(symbol["pathComponents"])
            declaration = "".join(fragment["spelling"] for fragment in symbol.get("declarationFragments", []))
            lines.add(f"{module}.{name}  {' '.join(declaration.split())}")
print("\n".join(sorted(lines)))
PY
}

case "${1:-}" in
    --write) surface > docs/api.txt; echo "api: wrote docs/api.txt ($(wc -l < docs/api.txt) public symbols)" ;;
    --check)
        if ! diff -u docs/api.txt <(surface) > .build/api.diff; then
            cat .build/api.diff >&2
            echo "api: the public surface differs from docs/api.txt (lines with + are new, - are gone);" \
                "if the change is intended, run make api and commit docs/api.txt" >&2
            exit 1
        fi
        echo "api: public surface matches docs/api.txt ($(wc -l < docs/api.txt) symbols)" ;;
    "") surface ;;
    *) echo "usage: $0 [--write|--check]" >&2; exit 2 ;;
esac
