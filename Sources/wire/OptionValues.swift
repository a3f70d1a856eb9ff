// OptionValues: how wire reads the value of each option that takes one — numbers, durations, byte counts,
// `--resolve` and `--connect-to` entries, `-H` fields, `-F` parts, `-X` methods (edge layer). Each reader
// checks its text and says what was wrong in one line (a UsageError, exit 2); none opens a file or a socket.
// The parser that walks the words and calls them is in Arguments.swift.

import HTTPWire
import HTTPWireCodec

extension CommandParser {
    /// `--data-urlencode`: `name=text` encodes the text after the first `=`; `=text` and `text` encode it
    /// all. curl's `name@file` form would read a file while parsing, which this parser never does.
    func urlEncodedData(_ text: String) throws(UsageError) -> String {
        if let equals = text.firstIndex(of: "=") {
            let name = String(text[..<equals])
            let encoded = PercentEncoding.encode(text[text.index(after: equals)...], for: .form)
            return name.isEmpty ? encoded : name + "=" + encoded
        }
        if text.contains("@") { throw error("--data-urlencode NAME@FILE is not supported; use -d @FILE") }
        return PercentEncoding.encode(text, for: .form)
    }

    /// `--resolve HOST:PORT:ADDR[,ADDR...]` (curl's syntax; an IPv6 HOST or ADDR in brackets): the
    /// `"host:port"` key and the addresses, each checked to be an IP literal here, since a name would need
    /// the DNS lookup the option exists to skip. curl's `+`/`-` prefixes and `*` host are not supported.
    func resolveEntry(_ text: String) throws(UsageError) -> (String, [String]) {
        let bad = error("--resolve needs HOST:PORT:ADDRESS[,ADDRESS...] with IP addresses, not \"\(text)\"")
        var rest = Substring(text)
        let host: Substring
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw bad }
            host = rest[...close]
            rest = rest[rest.index(after: close)...]
        } else {
            host = rest.prefix { $0 != ":" }
            rest = rest.dropFirst(host.count)
        }
        let parts = rest.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard !host.isEmpty, host != "*", !host.hasPrefix("+"), !host.hasPrefix("-"), parts.count == 3,
            parts[0].isEmpty, let port = Int(parts[1]), (1...65535).contains(port)
        else { throw bad }
        var addresses: [String] = []
        for piece in parts[2].split(separator: ",") {
            guard let address = Self.ipLiteral(piece) else { throw bad }
            addresses.append(address)
        }
        guard !addresses.isEmpty else { throw bad }
        return ("\(host.lowercased()):\(port)", addresses)
    }

    /// `--connect-to HOST1:PORT1:HOST2:PORT2` (curl's syntax; any field may be empty, an IPv6 host is in
    /// brackets): the `ClientConfiguration.hostOverrides` key and value, `"HOST1:PORT1"` → `"HOST2:PORT2"`.
    func connectToEntry(_ text: String) throws(UsageError) -> (String, String) {
        let bad = error("--connect-to needs HOST1:PORT1:HOST2:PORT2 (any part may be empty), not \"\(text)\"")
        var fields: [Substring] = []
        var rest = Substring(text)
        while fields.count < 4 {
            let field: Substring
            if rest.hasPrefix("[") {
                guard let close = rest.firstIndex(of: "]") else { throw bad }
                field = rest[...close]
            } else {
                field = rest.prefix { $0 != ":" }
            }
            fields.append(field)
            rest = rest.dropFirst(field.count)
            if fields.count < 4 {
                guard rest.first == ":" else { throw bad }
                rest = rest.dropFirst()
            }
        }
        guard rest.isEmpty else { throw bad }
        for port in [fields[1], fields[3]] where !port.isEmpty {
            guard let number = Int(port), (1...65535).contains(number) else { throw bad }
        }
        for host in [fields[0], fields[2]] where host.contains(where: { "/?#@ ".contains($0) }) { throw bad }
        return ("\(fields[0].lowercased()):\(fields[1])", "\(fields[2].lowercased()):\(fields[3])")
    }

    /// `text` (brackets around IPv6 allowed) as an IPv4 or IPv6 literal in the form a URL's host takes, or
    /// nil for a name or anything else. The URL parser does the reading, so this file needs no socket API
    /// (the fuzz target builds it without the transport).
    static func ipLiteral(_ text: Substring) -> String? {
        let bare = text.hasPrefix("[") && text.hasSuffix("]") ? text.dropFirst().dropLast() : text
        guard !bare.isEmpty, !bare.contains(where: { "/?#@[]%".contains($0) }) else { return nil }
        guard let url = try? TargetURL(bare.contains(":") ? "http://[\(bare)]/" : "http://\(bare)/") else {
            return nil
        }
        let host = url.host
        let isIPv4 =
            host.split(separator: ".", omittingEmptySubsequences: false).count == 4
            && host.utf8.allSatisfy { $0 == UInt8(ascii: ".") || (0x30...0x39).contains($0) }
        return host.contains(":") || isIPv4 ? host : nil
    }

    /// `-X METHOD`: a token (RFC 9110 §9.1), sent as typed (methods are case-sensitive).
    func methodToken(_ text: String) throws(UsageError) -> String {
        let isToken =
            !text.isEmpty
            && text.utf8.allSatisfy { byte in
                (0x21...0x7E).contains(byte) && !"\"(),/:;<=>?@[\\]{}".utf8.contains(byte)
            }
        guard isToken else { throw error("-X needs a method name such as PATCH, not \"\(text)\"") }
        return text
    }

    /// `Name: value`. Whitespace around the value is not part of it (RFC 9110 §5.5); a name cannot hold
    /// whitespace (RFC 9110 §5.1, token). The client checks the remaining bytes before sending.
    func header(_ text: String) throws(UsageError) -> HeaderArgument {
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex,
            !text[..<colon].contains(where: { $0 == " " || $0 == "\t" })
        else { throw error("header \"\(text)\" is not \"Name: value\"") }
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        let value = text[text.index(after: colon)...].drop(while: isBlank).reversed().drop(while: isBlank)
        return HeaderArgument(name: String(text[..<colon]), value: String(value.reversed()))
    }

    func seconds(_ text: String, _ option: String) throws(UsageError) -> Double {
        guard let number = Double(text), number > 0, number.isFinite else {
            throw error("option \(option) needs a positive number of seconds, not \"\(text)\"")
        }
        return number
    }

    func number(_ text: String, _ option: String, in range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let number = Int(text), range.contains(number) else {
            let bound = range.upperBound == Int.max ? "\(range.lowerBound) or more" : "\(range)"
            throw error("option \(option) needs a whole number, \(bound), not \"\(text)\"")
        }
        return number
    }

    /// curl's units for `--limit-rate` and `--max-filesize`: a whole number of bytes (per second, for a rate),
    /// optionally followed by K, M or G (either case), each 1024 times the one before; at least 1.
    func byteCount(_ text: String, for option: String, example: String) throws(UsageError) -> Int64 {
        let shifts: [Character: Int64] = ["k": 10, "K": 10, "m": 20, "M": 20, "g": 30, "G": 30]
        let shift = text.last.flatMap { shifts[$0] } ?? 0
        let digits = shift > 0 ? String(text.dropLast()) : text
        guard !digits.isEmpty, digits.utf8.count <= 12, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let number = Int64(digits), number > 0
        else { throw error("\(option) needs \(example), not \"\(text)\"") }
        return number << shift
    }

    /// 64 ASCII hexadecimal digits, kept lowercase so comparing with a computed digest is a string compare.
    func sha256(_ text: String) throws(UsageError) -> String {
        let isHex = text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0 | 0x20) }
        guard text.utf8.count == 64, isHex else { throw error("--sha256 needs 64 hexadecimal digits") }
        return text.lowercased()
    }

    /// `-F name=value` or `-F name=@path;type=image/png;filename=a.png` (curl's syntax). A text value is
    /// taken whole, semicolons included; attributes are read only after `@path`.
    func form(_ text: String) throws(UsageError) -> FormArgument {
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
            throw error("form part \"\(text)\" is not name=value or name=@file")
        }
        let name = String(text[..<equals])
        let rest = text[text.index(after: equals)...]
        guard rest.hasPrefix("@") else { return FormArgument(name: name, value: String(rest)) }
        var pieces = rest.dropFirst().split(separator: ";", omittingEmptySubsequences: false).map(String.init)
        var part = FormArgument(name: name, path: pieces.removeFirst())
        if part.path?.isEmpty ?? true { throw error("form part \(name) names no file after @") }
        for piece in pieces {
            if piece.hasPrefix("type="), piece.count > 5 {
                part.contentType = String(piece.dropFirst(5))
            } else if piece.hasPrefix("filename="), piece.count > 9 {
                part.fileName = String(piece.dropFirst(9))
            } else {
                throw error("form attribute \"\(piece)\" is not type=MIME or filename=NAME")
            }
        }
        return part
    }
}
