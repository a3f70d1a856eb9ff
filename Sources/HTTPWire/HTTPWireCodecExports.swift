// HTTPWireCodecExports: makes `import HTTPWire` enough for a program (the client module's top level).
//
// The client's public API is written in the codec's value types — `Method`, `HTTPFields`, `Status`,
// `TargetURL`, `ResponseHead`, `CodecError`, `HTTPVersion` — so every program that uses HTTPWire needs them
// too. Re-exporting the codec spares each such program a second import (and a sample in the docs a line
// that teaches nothing); a program that wants only the sans-IO codec still imports `HTTPWireCodec` alone.
// This file declares nothing else.

@_exported import HTTPWireCodec
