// ResumeRecord: the libFuzzer target for the sidecar record a partial download is resumed from.
// Test tooling for the downloads layer (HTTPWire/Transfers), built by Tests/Fuzz/fuzz.sh; not a SwiftPM target.
//
// ResumeRecord.swift lives in the HTTPWire library; it needs the codec, HTTPWireError (with its translation
// of TransportError) and the transport's FileSystem for reading and writing the file, so this target builds
// a partial `HTTPWireTransport` module from FileSystem and what it stands on (no reactor, sockets or TLS),
// then a partial `HTTPWire` module from those three files (see ContentDisposition.swift here).
//
// An input is the content of a `.part.resume` file: written by an earlier run, cut short by a crash, or
// edited by hand. Decoding must never trap, and a record it accepts must be one a resume can trust and
// write again: committed bytes within the expected length, and encoding it gives text that decodes to the
// same record (the text may differ: keys in their canonical order, `007` as `7`).
//
// fuzz-module: HTTPWireCodec
// fuzz-include: Sources/CSystem
// fuzz-module: HTTPWireTransport Sources/HTTPWireTransport/DiskFile.swift Sources/HTTPWireTransport/FileDescriptor.swift Sources/HTTPWireTransport/FileSystem.swift Sources/HTTPWireTransport/LockedState.swift Sources/HTTPWireTransport/Syscall.swift Sources/HTTPWireTransport/TransportError.swift
// fuzz-module: HTTPWire Sources/HTTPWire/Transfers/ResumeRecord.swift Sources/HTTPWire/Transfers/ResumeSegment.swift Sources/HTTPWire/Client/UnacceptableResponse.swift Sources/HTTPWire/Client/PublicKeyPin.swift Sources/HTTPWire/Compression/ContentDecodingFailure.swift Sources/HTTPWire/Compression/ContentDecoding.swift Sources/HTTPWire/Client/HTTPWireError.swift Sources/HTTPWire/Client/HTTPWireError+Transport.swift
// fuzz-seeds: Fixtures/fuzz/ResumeRecord
// fuzz-max-len: 1024

import HTTPWire

/// libFuzzer calls this once per generated input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzResumeRecord(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    guard let record = try? ResumeRecord(decoding: input.bytes) else { return 0 }
    func text() -> String { input.text.debugDescription }
    FuzzCheck.expect(record.committedBytes >= 0, "\(text()): negative committed bytes")
    if let expected = record.expectedLength {
        FuzzCheck.expect(record.committedBytes <= expected, "\(text()): committed bytes beyond the expected length")
    }
    let encoded: String
    do throws(ResumeRecord.Damage) {
        encoded = try record.encoded()
    } catch {
        FuzzCheck.fail("\(text()) decodes but cannot be encoded: \(error)")
    }
    let again = try? ResumeRecord(decoding: Array(encoded.utf8))
    FuzzCheck.expect(again == record, "\(text()) encodes as \(encoded.debugDescription), which decodes differently")
    return 0
}
