// NoProxyList: the hosts that bypass the proxy, as curl reads `no_proxy` (client layer).
//
// The list is comma-separated (blanks around entries are ignored). `*` alone matches every host. A name
// matches itself and every name below it: `example.test` and `.example.test` both match `example.test` and
// `api.example.test`, never `badexample.test` (the match is on whole labels, so one suffix cannot capture an
// unrelated domain). An address literal (`127.0.0.1`, `::1`, `[::1]`) matches itself. `host:port` (or
// `[v6]:port`) matches that host on that port only — an addition to curl, which ignores ports here. Names
// are compared in ASCII lower case, with one trailing dot dropped. An address range in CIDR notation
// (`10.0.0.0/8`, `fd00::/8`, `[fd00::]/8`; RFC 4632 §3.1 and RFC 4291 §2.3) matches every address literal of
// its family that shares its first bits, as curl (7.86 and later) reads it.
// Plain values: no resolving, so `localhost` and `127.0.0.1` are different entries, as in curl, and a range
// matches only a URL whose host is an address.

import HTTPWireCodec

/// A parsed `no_proxy` list.
///
/// ```swift
/// let bypass = NoProxyList("localhost, .internal.test, 10.0.0.7, cache.test:8080, 192.168.0.0/16")
/// bypass.matches(host: "api.internal.test", port: 443)   // true
/// bypass.matches(host: "cache.test", port: 80)           // false: only port 8080 goes direct
/// bypass.matches(host: "192.168.4.20", port: 80)         // true: inside 192.168.0.0/16
/// ```
package struct NoProxyList: Sendable, Hashable {
    /// One entry: a host (lowercased, no brackets, no leading or trailing dot) and maybe a port.
    private struct Entry: Sendable, Hashable {
        var host: String
        var port: Int?
    }

    /// An address range: the address's bytes (4 or 16) and how many leading bits must match.
    private struct AddressRange: Sendable, Hashable {
        var bytes: [UInt8]
        var prefixLength: Int

        /// Whether `address` (of the same length) starts with the range's `prefixLength` bits.
        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            let wholeBytes = prefixLength / 8
            guard address[..<wholeBytes] == bytes[..<wholeBytes] else { return false }
            let restBits = prefixLength % 8
            guard restBits > 0 else { return true }
            let mask = UInt8(0xFF) << (8 - restBits)
            return address[wholeBytes] & mask == bytes[wholeBytes] & mask
        }
    }

    private let matchesEverything: Bool
    private let entries: [Entry]
    private let ranges: [AddressRange]

    /// Parses `text`; nil or empty is an empty list. Entries that cannot be read (an empty host, a port that
    /// is not a number) are skipped, as curl skips what it cannot match.
    package init(_ text: String?) {
        var entries: [Entry] = []
        var ranges: [AddressRange] = []
        var everything = false
        for piece in (text ?? "").split(separator: ",") {
            let item = piece.trimmingBlanks()
            if item == "*" {
                everything = true
            } else if item.contains("/") {
                if let range = Self.range(item) { ranges.append(range) }
            } else if let entry = Self.entry(item) {
                entries.append(entry)
            }
        }
        self.matchesEverything = everything
        self.entries = entries
        self.ranges = ranges
    }

    /// Whether a request to `host` (as the URL parser gives it: lowercased, IPv6 without brackets) on
    /// `port` goes direct.
    package func matches(host: String, port: Int) -> Bool {
        if matchesEverything { return true }
        let name = Self.normalised(Substring(host))
        let matchesName = entries.contains { entry in
            if let entryPort = entry.port, entryPort != port { return false }
            return name == entry.host || name.hasSuffix("." + entry.host)
        }
        if matchesName || ranges.isEmpty { return matchesName }
        guard let address = Self.addressBytes(Substring(host)) else { return false }
        return ranges.contains { $0.contains(address) }
    }

    /// `address/length`, the address bracketed or not: nil when either part is not valid (a length past the
    /// address's bits included), as curl skips such an entry.
    private static func range(_ item: Substring) -> AddressRange? {
        guard let slash = item.lastIndex(of: "/"), let length = Int(item[item.index(after: slash)...]) else {
            return nil
        }
        var address = item[..<slash]
        if address.hasPrefix("["), address.hasSuffix("]") { address = address.dropFirst().dropLast() }
        guard let bytes = addressBytes(address), (0...bytes.count * 8).contains(length) else { return nil }
        return AddressRange(bytes: bytes, prefixLength: length)
    }

    /// The 4 bytes of an IPv4 literal or the 16 of an IPv6 one; nil for a name.
    private static func addressBytes(_ text: Substring) -> [UInt8]? {
        let bytes = Array(text.utf8)[...]
        if let octets = TargetURL.IPAddressText.parseIPv4(bytes) { return octets }
        guard let groups = TargetURL.IPAddressText.parseIPv6(bytes) else { return nil }
        return groups.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }

    /// `host`, `.host`, `host:port`, `[v6]`, `[v6]:port` or a bare IPv6 literal.
    private static func entry(_ item: Substring) -> Entry? {
        var host = item
        var port: Int?
        if item.hasPrefix("[") {
            guard let close = item.firstIndex(of: "]") else { return nil }
            host = item[item.index(after: item.startIndex)..<close]
            let rest = item[item.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let number = Int(rest.dropFirst()) else { return nil }
                port = number
            }
        } else if item.filter({ $0 == ":" }).count == 1, let colon = item.firstIndex(of: ":") {
            // One colon: host:port. More than one: an IPv6 literal without brackets, and no port.
            guard let number = Int(item[item.index(after: colon)...]) else { return nil }
            host = item[..<colon]
            port = number
        }
        while host.hasPrefix(".") { host = host.dropFirst() }
        let normalised = normalised(host)
        guard !normalised.isEmpty else { return nil }
        return Entry(host: normalised, port: port)
    }

    /// ASCII-lowercased, one trailing dot dropped (`example.test.` is `example.test`, RFC 1034 §3.1).
    private static func normalised(_ host: Substring) -> String {
        let trimmed = host.hasSuffix(".") ? host.dropLast() : host
        return String(trimmed.map { $0.isASCII ? Character($0.lowercased()) : $0 })
    }
}

extension Substring {
    /// The text without spaces and tabs at either end.
    fileprivate func trimmingBlanks() -> Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
