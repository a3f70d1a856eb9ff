// HTTPFields: an ordered list of header (or trailer) fields.
// Codec layer: a value type, no I/O.
//
// RFC 9110 §5.3: a recipient may combine fields with the same name only where the field's definition allows
// a list, and the order of same-named fields is significant. So HTTPWire keeps fields exactly as received,
// in order and with duplicates, and answers case-insensitive questions about them (§5.1: names are
// case-insensitive). Validation of names and values happens when a message is encoded.

/// One field line: a name and its value, as sent or received.
public struct HTTPField: Sendable, Hashable {
    /// The field name as written, for example `Content-Type`. Compared case-insensitively.
    public var name: String
    /// The field value with surrounding whitespace removed (RFC 9112 §5.1).
    public var value: String

    /// Creates a field. Nothing is validated here; ``RequestEncoder`` rejects names that are not tokens and
    /// values with CR, LF or NUL before any byte reaches the wire.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// The fields of a message head or trailer section, in order, duplicates kept.
///
/// ```swift
/// var fields = HTTPFields()
/// fields.append(name: "Accept", value: "application/json")
/// fields["accept"]  // "application/json": names are case-insensitive
/// ```
public struct HTTPFields: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    private var storage: [HTTPField]

    /// An empty field list.
    public init() { storage = [] }

    /// Fields from a list, order kept.
    public init(_ fields: [HTTPField]) { storage = fields }

    /// Makes room for `count` fields in all, so that appending up to that many allocates once.
    package mutating func reserveCapacity(_ count: Int) { storage.reserveCapacity(count) }

    /// Fields from a literal such as `["Accept": "text/plain"]`, in the order written.
    public init(dictionaryLiteral elements: (String, String)...) {
        storage = elements.map { HTTPField(name: $0.0, value: $0.1) }
    }

    /// The position of the first field (0), for `RandomAccessCollection`.
    public var startIndex: Int { storage.startIndex }
    /// The position after the last field: the number of fields.
    public var endIndex: Int { storage.endIndex }
    /// The field at `position`, in the order the fields were added or received (RFC 9110 §5.3: order
    /// matters for fields of the same name).
    public subscript(position: Int) -> HTTPField { storage[position] }

    /// The first value of the field called `name` (any case), or nil. Setting replaces every field of that
    /// name with one field at the position of the first (or at the end), and `nil` removes them.
    public subscript(name: String) -> String? {
        get { storage.first { Self.namesMatch($0.name, name) }?.value }
        set {
            if let newValue {
                set(name: name, value: newValue)
            } else {
                remove(name: name)
            }
        }
    }

    /// Every value of the field called `name`, in order.
    public func values(for name: String) -> [String] {
        storage.compactMap { Self.namesMatch($0.name, name) ? $0.value : nil }
    }

    /// True when at least one field is called `name`.
    public func contains(_ name: String) -> Bool {
        storage.contains { Self.namesMatch($0.name, name) }
    }

    /// The comma-separated list elements of every field called `name`, trimmed and lowercased, empty
    /// elements dropped (RFC 9110 §5.6.1). Used for `Connection` and `Transfer-Encoding`.
    public func tokens(for name: String) -> [String] {
        var result: [String] = []
        for field in storage where Self.namesMatch(field.name, name) {
            for element in field.value.split(separator: ",") {
                let trimmed = element.trimmingWhitespace()
                if !trimmed.isEmpty { result.append(trimmed.lowercasedASCII()) }
            }
        }
        return result
    }

    /// Appends a field, keeping any existing fields of the same name.
    public mutating func append(name: String, value: String) {
        storage.append(HTTPField(name: name, value: value))
    }

    /// Appends a field.
    public mutating func append(_ field: HTTPField) {
        storage.append(field)
    }

    /// Replaces all fields called `name` with a single one, placed where the first one was.
    public mutating func set(name: String, value: String) {
        if let first = storage.firstIndex(where: { Self.namesMatch($0.name, name) }) {
            storage[first].value = value
            var index = storage.index(after: first)
            while index < storage.endIndex {
                if Self.namesMatch(storage[index].name, name) {
                    storage.remove(at: index)
                } else {
                    index += 1
                }
            }
        } else {
            storage.append(HTTPField(name: name, value: value))
        }
    }

    /// Removes every field called `name`.
    public mutating func remove(name: String) {
        storage.removeAll { Self.namesMatch($0.name, name) }
    }

    /// ASCII case-insensitive comparison of two field names (RFC 9110 §5.1).
    @inline(__always)
    public static func namesMatch(_ left: String, _ right: String) -> Bool {
        var leftBytes = left.utf8.makeIterator()
        var rightBytes = right.utf8.makeIterator()
        while true {
            switch (leftBytes.next(), rightBytes.next()) {
            case (nil, nil): return true
            case (let a?, let b?):
                if ByteClasses.lowercased(a) != ByteClasses.lowercased(b) { return false }
            default: return false
            }
        }
    }
}

extension StringProtocol {
    /// The text without leading and trailing SP and HTAB (RFC 9110 §5.6.3 OWS).
    package func trimmingWhitespace() -> String {
        let bytes = Array(utf8)
        var start = 0
        var end = bytes.count
        while start < end, ByteClasses.isWhitespace(bytes[start]) { start += 1 }
        while end > start, ByteClasses.isWhitespace(bytes[end - 1]) { end -= 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// ASCII-only lowercasing: HTTP tokens are ASCII, and this avoids Unicode case tables.
    package func lowercasedASCII() -> String {
        String(decoding: utf8.map(ByteClasses.lowercased), as: UTF8.self)
    }
}
