// ContentDispositionFuzzRegressionTests: the inputs the ContentDisposition fuzz target failed on, replayed with
// the names the rules of `sanitizedFileName` promise for them.
// Downloads layer tests (HTTPWire/Transfers): files from Fixtures/fuzz/ContentDisposition/fuzz-*; no network, no files written.
//
// Both were bugs of `sanitizedFileName`, fixed with the rules of RFC 6266 §4.3 cited in
// ContentDisposition.swift; these tests keep them fixed. Each fuzz-* file of that folder needs a test here.

import HTTPWire
import Testing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

@Suite struct ContentDispositionFuzzRegressionTests {
    /// `Fixtures/fuzz/ContentDisposition` at the repository root, found from this file's path.
    static let directory: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)  // this file, HTTPWireTests, Tests
        return parts.joined(separator: "/") + "/Fixtures/fuzz/ContentDisposition"
    }()

    /// The files this suite replays.
    static let files = [
        "fuzz-dot-combining-mark", "fuzz-dot-space-dot-bashrc", "fuzz-name-cut-before-trailing-spaces",
        "fuzz-slash-combining-mark",
    ]

    /// The field value stored in one regression file.
    static func value(_ file: String) throws -> String {
        let data = try #require(FileManager.default.contents(atPath: directory + "/" + file))
        return String(decoding: data, as: UTF8.self)
    }

    @Test("every fuzz-* file of the ContentDisposition seeds is replayed here")
    func everyFileIsReplayed() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.directory)
        #expect(Set(names.filter { $0.hasPrefix("fuzz-") }) == Set(Self.files))
    }

    @Test("a dot, a space and a dot before a name leave no hidden file: \". .bashrc\" is saved as \"bashrc\"")
    func dotSpaceDot() throws {
        let value = try Self.value("fuzz-dot-space-dot-bashrc")
        let name = ContentDisposition.downloadFileName(fieldValue: value, urlLastPathSegment: nil)
        #expect(name == "bashrc")
    }

    @Test("a name cut to 255 bytes ends without spaces and is its own sanitised form")
    func cutBeforeTrailingSpaces() throws {
        let value = try Self.value("fuzz-name-cut-before-trailing-spaces")
        let name = ContentDisposition.downloadFileName(fieldValue: value, urlLastPathSegment: nil)
        #expect(name == String(repeating: "a", count: 250))
        #expect(ContentDisposition.sanitizedFileName(name) == name)
    }

    @Test("a slash followed by a combining mark is still a path separator: no folder in the name")
    func slashWithCombiningMark() throws {
        let value = try Self.value("fuzz-slash-combining-mark")
        let name = ContentDisposition.downloadFileName(fieldValue: value, urlLastPathSegment: nil)
        #expect(name == "\u{659}y")
        #expect(!name.unicodeScalars.contains("/"))
    }

    @Test("a \".\" followed by a combining mark is still a leading dot: no hidden file")
    func dotWithCombiningMark() throws {
        let value = try Self.value("fuzz-dot-combining-mark")
        let name = ContentDisposition.downloadFileName(fieldValue: value, urlLastPathSegment: nil)
        #expect(name == "\u{301}bashrc")
        #expect(name.utf8.first != UInt8(ascii: "."))
    }
}
