// FixtureRequest: a received request head, split into the path segments and query parameters that
// choose a fixture route and its behaviour (edge layer, fixture server).
//
// Routes are driven by the URL alone (`/bytes/1024?seed=7`), so that a test, a curl command line and
// `wire demo` can all ask for the same behaviour. Parsing here is deliberately forgiving: a parameter
// that is missing or not a number takes its default, because the fixture exists to exercise the client,
// not to police its own callers. This file reads no bytes from a socket and writes none.

import HTTPWireCodec

/// A request head with its target taken apart for routing.
///
/// ```swift
/// let request = FixtureRequest(head: head)     // target "/drip?bytes=10&interval_ms=50"
/// request.segments                              // ["drip"]
/// request.integer("bytes", default: 100)        // 10
/// ```
struct FixtureRequest {
    /// The head as the decoder produced it.
    let head: RequestHead
    /// The percent-decoded path segments, without empty ones: `/files/a%20b.txt` gives `["files", "a b.txt"]`.
    let segments: [String]
    /// The query parameters, percent-decoded, `+` read as a space (HTML form encoding); the last of a
    /// repeated name wins.
    let query: [String: String]

    /// Splits `head.target` (origin-form, RFC 9112 §3.2.1) into segments and query parameters.
    init(head: RequestHead) {
        self.head = head
        var target = Substring(head.target)
        // An absolute-form target (RFC 9112 §3.2.2, a client talking to a proxy) routes by its path. Only a
        // target that does not start with "/" is one: an origin-form target may carry "://" in its query
        // (`/redirect-to?url=http://…`).
        if !target.hasPrefix("/"), let schemeEnd = target.firstRange(of: "://") {
            let afterAuthority = target[schemeEnd.upperBound...].firstIndex(of: "/") ?? target.endIndex
            target = target[afterAuthority...]
        }
        let path: Substring
        var query: [String: String] = [:]
        if let mark = target.firstIndex(of: "?") {
            path = target[..<mark]
            for pair in target[target.index(after: mark)...].split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = Self.percentDecoded(parts[0], plusIsSpace: true)
                query[name] = parts.count > 1 ? Self.percentDecoded(parts[1], plusIsSpace: true) : ""
            }
        } else {
            path = target
        }
        self.segments = path.split(separator: "/").map { Self.percentDecoded($0, plusIsSpace: false) }
        self.query = query
    }

    /// The request method.
    var method: Method { head.method }

    /// Whether the response must have no body (RFC 9110 §9.3.2: HEAD gets the GET head only).
    var isHead: Bool { head.method == .head }

    /// The query parameter `name` as an integer, or `defaultValue` when missing or not a number.
    func integer(_ name: String, default defaultValue: Int) -> Int {
        query[name].flatMap { Int($0) } ?? defaultValue
    }

    /// The query parameter `name` as a 64-bit integer, or `defaultValue`.
    func integer64(_ name: String, default defaultValue: Int64) -> Int64 {
        query[name].flatMap { Int64($0) } ?? defaultValue
    }

    /// Whether the query parameter `name` is present and not "0" or "false" (`?raw=1`, `?trailers`).
    func flag(_ name: String) -> Bool {
        guard let value = query[name] else { return false }
        return value != "0" && value != "false"
    }

    /// The path segment at `index`, if there is one.
    func segment(_ index: Int) -> String? {
        segments.indices.contains(index) ? segments[index] : nil
    }

    /// Decodes `%XX` escapes (RFC 3986 §2.1); malformed escapes stay as written, and invalid UTF-8 becomes
    /// U+FFFD, since the result only names a route or a file.
    static func percentDecoded(_ text: Substring, plusIsSpace: Bool) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "+") && plusIsSpace {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), iterator.count >= 2,
                let high = hexValue(iterator[iterator.startIndex]),
                let low = hexValue(iterator[iterator.startIndex + 1])
            {
                bytes.append(high << 4 | low)
                iterator = iterator.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
