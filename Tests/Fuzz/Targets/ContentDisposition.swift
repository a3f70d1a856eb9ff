// ContentDisposition: the libFuzzer target for the download file name a server suggests (RFC 6266, RFC 8187).
// Test tooling for the downloads layer (HTTPWire/Transfers), built by Tests/Fuzz/fuzz.sh; not a SwiftPM target.
//
// ContentDisposition.swift lives in the HTTPWire library, which needs OpenSSL and the whole transport to
// build. It depends on nothing but the codec, though, so this target builds a partial `HTTPWire` module from
// that one file (the second fuzz-module line) instead of the library: the same source, unedited, with the
// same module name, so the target keeps working when it is pointed at the full module later.
//
// An input is a Content-Disposition value, then (after the first LF) a URL's last path segment. The name
// is hostile input that ends up as a path on disk, so whatever the bytes, the name chosen for a download
// must be usable inside the destination folder and nowhere else: never empty, no `/` or `\`, no leading
// `.` (no hidden file, no `..`), no C0, DEL, C1 or bidirectional-override character, at most 255 UTF-8
// bytes. Sanitising a safe name again changes nothing, and a parsed disposition type is a lowercase token.
//
// The failures this target found (". .bashrc" saved as ".bashrc"; a name cut to 255 bytes inside a run of
// spaces; a "/" or a leading "." followed by a combining mark) are fixed, and their inputs are seeds:
// Fixtures/fuzz/ContentDisposition/fuzz-*. The checks read scalars and bytes, never Characters, for the
// same reason the sanitiser now does.
//
// fuzz-module: HTTPWireCodec
// fuzz-module: HTTPWire Sources/HTTPWire/Transfers/ContentDisposition.swift
// fuzz-seeds: Fixtures/fuzz/ContentDisposition
// fuzz-max-len: 512

import HTTPWireCodec

@testable import HTTPWire

/// libFuzzer calls this once per generated input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzContentDisposition(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let (value, segment) = input.halves
    let parsed = ContentDisposition(parsing: value)
    if let parsed {
        FuzzCheck.expect(
            ByteClasses.isToken(parsed.type) && parsed.type == parsed.type.lowercased(),
            "type \(parsed.type.debugDescription) of \(value.debugDescription)")
        if let name = parsed.fileName { ContentDispositionFuzz.checkSanitized(name) }
    }
    ContentDispositionFuzz.checkSanitized(value)
    _ = ContentDisposition.decodeExtendedValue(value)
    let chosen = ContentDisposition.downloadFileName(fieldValue: value, urlLastPathSegment: segment)
    if let problem = ContentDispositionFuzz.problem(with: chosen) {
        FuzzCheck.fail("download name \(chosen.debugDescription): \(problem)")
    }
    return 0
}

/// The file-name checks behind the entry point.
enum ContentDispositionFuzz {
    /// The sanitised form of `name`, when there is one, is safe and a fixed point of sanitising.
    static func checkSanitized(_ name: String) {
        guard let safe = ContentDisposition.sanitizedFileName(name) else { return }
        if let problem = problem(with: safe) {
            FuzzCheck.fail("\(name.debugDescription) sanitised to \(safe.debugDescription): \(problem)")
        }
        let again = ContentDisposition.sanitizedFileName(safe)
        FuzzCheck.expect(again == safe, "sanitising \(safe.debugDescription) again gives \(String(describing: again))")
    }

    /// Why `name` is not safe to create inside a download folder, or nil when it is.
    static func problem(with name: String) -> String? {
        if name.isEmpty { return "empty" }
        if name.utf8.count > ContentDisposition.maxFileNameBytes { return "\(name.utf8.count) bytes" }
        if name.unicodeScalars.first == "." { return "starts with a dot" }
        for scalar in name.unicodeScalars {
            switch scalar.value {
            case 0x2F, 0x5C: return "a path separator"
            case 0x00...0x1F, 0x7F...0x9F: return "control character U+\(String(scalar.value, radix: 16))"
            case 0x202A...0x202E, 0x2066...0x2069: return "bidirectional control U+\(String(scalar.value, radix: 16))"
            default: continue
            }
        }
        return nil
    }
}
