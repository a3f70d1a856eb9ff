// TargetURL: the libFuzzer target for URL parsing and RFC 3986 §5 reference resolution.
// Test tooling for the codec layer, built by Tests/Fuzz/fuzz.sh against HTTPWireCodec; not a SwiftPM target.
//
// An input is a URL as a user types it, then (after the first LF) a reference as a server's `Location`
// sends it. The URL is parsed on its own, then used as the base the reference is resolved against (the
// RFC's example base when it does not parse). Every URL that comes out — parsed, resolved, or with query
// items appended — must be one the client can send and the pool can key on:
// - its request target is what the encoder accepts (visible ASCII, starts with `/`, no dot segments left);
// - the host is lowercase, the port 1–65535, the Host value holds no byte that could end a field line;
// - it is a fixed point: parsing its own description gives it back, and so does resolving the empty
//   reference (the same document) against it;
// - the file name taken from it (`lastPathSegment`) can never climb out of a download folder;
// - a URL the one-scan path reads as already normal gives what the general parser gives.
//
// fuzz-module: HTTPWireCodec
// fuzz-seeds: Fixtures/fuzz/TargetURL
// fuzz-max-len: 512

@testable import HTTPWireCodec

/// libFuzzer calls this once per generated input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTargetURL(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let (first, second) = input.halves
    let parsed = try? TargetURL(first)
    if let parsed { TargetURLFuzz.check(parsed, from: "parsing \(first.debugDescription)") }
    // The one-scan path for URLs already in normal form must give what the general parser gives.
    if let normal = TargetURL.normalForm(first) {
        let general = try? TargetURL(parsingInGeneral: first)
        FuzzCheck.expect(
            normal == general,
            "normal form of \(first.debugDescription): \(normal) but the general parser gives \(String(describing: general))"
        )
    }
    guard let reference = second else { return 0 }
    let base = parsed ?? TargetURLFuzz.exampleBase
    if let resolved = try? base.resolving(reference) {
        TargetURLFuzz.check(resolved, from: "resolving \(reference.debugDescription) against \(base)")
    }
    let appended = base.appendingQueryItems([(name: first, value: reference)])
    TargetURLFuzz.check(appended, from: "appending query items to \(base)")
    return 0
}

/// The checks behind the entry point.
enum TargetURLFuzz {
    /// RFC 3986 §5.4's base URL, for references whose first line is not a URL.
    static let exampleBase = try! TargetURL("http://a/b/c/d;p?q")

    /// Everything a URL handed to the client must satisfy; `origin` says how it was made (built only for a
    /// failure message: escaping the input on every run cost more than some of the checks).
    static func check(_ url: TargetURL, from origin: @autoclosure () -> String) {
        func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
            FuzzCheck.expect(condition, "\(origin()): \(message())\n url: \(url.description.debugDescription)")
        }
        let target = url.pathAndQuery
        do throws(CodecError) {
            try RequestEncoder.validateTarget(target)
        } catch {
            expect(false, "the encoder refuses the request target: \(error)")
        }
        expect(target.utf8.first == UInt8(ascii: "/"), "the request target does not start with /")
        let path = String(target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0])
        expect(URLReferenceResolver.removeDotSegments(path) == path, "dot segments left in \(path)")
        expect(!url.host.isEmpty && url.host == url.host.lowercased(), "host \(url.host.debugDescription)")
        expect((1...65535).contains(url.port), "port \(url.port)")
        expect(
            url.hostFieldValue.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F },
            "Host value \(url.hostFieldValue.debugDescription)")

        // The description leaves user information out (a password must never reach a log), so it parses
        // back to the URL without it; resolving keeps or drops it, nothing else changes.
        var withoutCredentials = url
        withoutCredentials.userInfo = nil
        let description = url.description
        expect(
            (try? TargetURL(description)) == withoutCredentials, "parsing the description gives \(parse(description))")
        let resolved = try? url.resolving("")
        expect(
            resolved == url || resolved == withoutCredentials, "resolving the empty reference gives another URL")

        if let name = url.lastPathSegment {
            expect(
                !name.isEmpty && name != "." && name != ".." && !name.contains("/") && !name.utf8.contains(0),
                "unsafe file name \(name.debugDescription)")
        }
    }

    /// What parsing `text` gives, for a failure message.
    static func parse(_ text: String) -> String {
        do throws(CodecError) {
            return try TargetURL(text).description
        } catch {
            return "\(error)"
        }
    }
}
