// MediaType: the libFuzzer target for the Content-Type check of multipart parts (RFC 9110 §8.3.1).
// Test tooling for the bodies layer (HTTPWire/Bodies), built by Tests/Fuzz/fuzz.sh; not a SwiftPM target.
//
// MediaType.swift lives in the HTTPWire library but needs only the codec, so this target builds a partial
// `HTTPWire` module from that one file (see ContentDisposition.swift in this folder for why).
//
// A MediaType value is written into a request head as it is, so the check is the only thing between a
// caller's string and header injection. Whatever the input: a value that passes is exactly the input, made
// of field-value bytes only (no CR, LF, NUL or other control byte but HTAB), without surrounding
// whitespace, and starts with `token "/" token`. The type guessed from a file name always passes the
// check itself.
//
// fuzz-module: HTTPWireCodec
// fuzz-module: HTTPWire Sources/HTTPWire/Bodies/MediaType.swift
// fuzz-seeds: Fixtures/fuzz/MediaType
// fuzz-max-len: 256

import HTTPWire
import HTTPWireCodec

/// libFuzzer calls this once per generated input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMediaType(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = FuzzInput(data, size).text
    if let type = MediaType(text) {
        let bytes = Array(type.value.utf8)
        FuzzCheck.expect(type.value == text, "\(text.debugDescription) became \(type.value.debugDescription)")
        FuzzCheck.expect(bytes.allSatisfy(ByteClasses.isFieldValueByte), "\(text.debugDescription): a control byte")
        FuzzCheck.expect(
            !ByteClasses.isWhitespace(bytes.first!) && !ByteClasses.isWhitespace(bytes.last!),
            "\(text.debugDescription): surrounding whitespace")
        let essence = bytes.prefix { $0 != UInt8(ascii: ";") }
        let parts = essence.split(separator: UInt8(ascii: "/"), maxSplits: 1, omittingEmptySubsequences: false)
        FuzzCheck.expect(
            parts.count == 2 && !parts[0].isEmpty && parts[0].allSatisfy(ByteClasses.isTokenByte),
            "\(text.debugDescription): the type is not a token")
    }
    let guessed = MediaType.forFileName(text)
    FuzzCheck.expect(MediaType(guessed.value) == guessed, "the table's \(guessed.value) fails the check")
    return 0
}
