// DownloadCatalogue: the libFuzzer target for a DownloadManager's catalogue file (downloads.catalogue).
// Test tooling for the downloads layer (HTTPWire/Transfers), built by Tests/Fuzz/fuzz.sh; not a SwiftPM target.
//
// DownloadCatalogue.swift lives in the HTTPWire library; besides its pure reader it reads and writes its file
// through the transport's FileSystem, throws HTTPWireError, and checks a `sha256:` value with SHA256Digest
// (which hashes with OpenSSL's SHA256Hasher), so this target builds partial `HTTPWireTransport` and `HTTPWire`
// modules like ResumeRecord's (see there), with those files and OpenSSL added.
//
// An input is the content of the file: written by an earlier run, torn by a crash, written by another
// program or edited by hand. Decoding must never trap: anything it does not fully understand is `Damage`.
// A catalogue it accepts must be one the manager can write again: encoding it succeeds, and the text decodes
// to the same catalogue (the text may differ from the input: `007` as `7`).
//
// fuzz-module: HTTPWireCodec
// fuzz-include: Sources/CSystem
// fuzz-include: Sources/COpenSSL
// fuzz-module: HTTPWireTransport Sources/HTTPWireTransport/DiskFile.swift Sources/HTTPWireTransport/FileDescriptor.swift Sources/HTTPWireTransport/FileSystem.swift Sources/HTTPWireTransport/LockedState.swift Sources/HTTPWireTransport/Syscall.swift Sources/HTTPWireTransport/TransportError.swift Sources/HTTPWireTransport/SHA256Hasher.swift Sources/HTTPWireTransport/MessageDigest.swift
// fuzz-module: HTTPWire Sources/HTTPWire/Transfers/DownloadCatalogue.swift Sources/HTTPWire/Transfers/SHA256Digest.swift Sources/HTTPWire/Client/UnacceptableResponse.swift Sources/HTTPWire/Client/PublicKeyPin.swift Sources/HTTPWire/Compression/ContentDecodingFailure.swift Sources/HTTPWire/Compression/ContentDecoding.swift Sources/HTTPWire/Client/HTTPWireError.swift Sources/HTTPWire/Client/HTTPWireError+Transport.swift
// fuzz-seeds: Fixtures/fuzz/DownloadCatalogue
// fuzz-max-len: 2048

import HTTPWire

/// libFuzzer calls this once per generated input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDownloadCatalogue(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    guard let catalogue = try? DownloadCatalogue(decoding: input.bytes) else { return 0 }
    func text() -> String { input.text.debugDescription }
    FuzzCheck.expect(
        Set(catalogue.entries.map(\.id)).count == catalogue.entries.count, "\(text()): two items with one id")
    for entry in catalogue.entries {
        FuzzCheck.expect(!entry.url.isEmpty && !entry.destination.isEmpty, "\(text()): an empty url or destination")
        if let bytes = entry.bytes { FuzzCheck.expect(bytes >= 0, "\(text()): negative bytes") }
    }
    let encoded: String
    do throws(DownloadCatalogue.Damage) {
        encoded = try catalogue.encoded()
    } catch {
        FuzzCheck.fail("\(text()) decodes but cannot be encoded: \(error)")
    }
    let again = try? DownloadCatalogue(decoding: Array(encoded.utf8))
    FuzzCheck.expect(again == catalogue, "\(text()) encodes as \(encoded.debugDescription), which decodes differently")
    return 0
}
