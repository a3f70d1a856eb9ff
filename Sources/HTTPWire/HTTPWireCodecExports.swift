// HTTPWireCodecExports: makes `import HTTPWire` enough for a program (the client module's top level).
//
// The client's public API is written in the codec's value types — `Method`, `HTTPFields`, `Status`,
// `TargetURL`, `ResponseHead`, `CodecError`, `HTTPVersion` — and in FoundationEssentials' `URL`, `Data`,
// `Date`, `JSONEncoder` and `JSONDecoder`, so every program that uses HTTPWire needs them too. Re-exporting
// both spares each such program a second and third import (and a sample in the docs lines that teach
// nothing); a program that wants only the sans-IO codec still imports `HTTPWireCodec` alone, and one that
// imports all of Foundation gets the same types (Foundation re-exports FoundationEssentials).
// This file declares nothing else.

@_exported import HTTPWireCodec

#if canImport(FoundationEssentials)
    @_exported import FoundationEssentials
#else
    @_exported import Foundation
#endif
