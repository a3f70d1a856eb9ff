// URLEncodedFormEncoder: an `Encodable` value as the ordered name/value pairs of a form body or a query
// (bodies layer).
//
// Forms have no standard for structure, only for flat pairs, so this file picks the conventions most
// servers read (Rails, PHP, Express's `qs`, Go's `url.Values` for the flat part): properties in declaration
// order become `name=value`; a nested value becomes `parent[child]=value`; an array repeats its name
// (`tag=a&tag=b`, what URLSearchParams and Go read) or, with `.brackets`, appends `[]` (`tag[]=a`, what
// Rails and PHP read). Scalars are written as text: `true`/`false`, numbers as Swift prints them, a `Date`
// as ISO 8601 in UTC (`2024-05-01T12:00:00Z`), `Data` as Base64, a `URL` as its absolute string. Optionals
// that are nil are left out, as JSON's synthesized encoding does. The escaping happens later, in
// `URLEncodedForm` or `TargetURL.appendingQueryItems`; nothing here touches a connection.

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Encodes a value's properties as form pairs (``QueryItem``s), for ``URLEncodedForm`` and query strings.
///
/// ```swift
/// struct Filter: Encodable { var q: String; var tags: [String]; var page: Int? }
/// let items = try URLEncodedFormEncoder().encode(Filter(q: "swift", tags: ["http", "tls"], page: nil))
/// // q=swift, tags=http, tags=tls   (page is nil: left out)
/// var request = HTTPRequest(url: "https://api.example.test/search")
/// request.queryItems = items                      // ?q=swift&tags=http&tags=tls
/// ```
public struct URLEncodedFormEncoder: Sendable {
    /// How the elements of an array are named.
    public enum ArrayKeys: Sendable, Hashable {
        /// `tag=a&tag=b`: the name repeated (URLSearchParams, Go, Python's `parse_qs`).
        case repeated
        /// `tag[]=a&tag[]=b` (Rails, PHP).
        case brackets
    }

    /// How array elements are named. Default ``ArrayKeys/repeated``.
    public var arrayKeys: ArrayKeys = .repeated

    /// An encoder with the defaults.
    public init() {}

    /// The pairs for `value`, in encoding order. Throws `EncodingError.invalidValue` for a value that has
    /// no names (a bare string or number at the top).
    public func encode(_ value: some Encodable) throws -> [QueryItem] {
        let sink = FormPairSink(arrayKeys: arrayKeys)
        try FormPairEncoder(sink: sink, name: nil, codingPath: []).encodeValue(value)
        return sink.items
    }
}

/// The pairs written so far; one per `encode` call, used by one thread.
private final class FormPairSink {
    let arrayKeys: URLEncodedFormEncoder.ArrayKeys
    var items: [QueryItem] = []

    init(arrayKeys: URLEncodedFormEncoder.ArrayKeys) { self.arrayKeys = arrayKeys }
}

/// The `Encoder` for one position: `name` is the pair name values at this position get (nil at the top).
private struct FormPairEncoder: Encoder {
    let sink: FormPairSink
    let name: String?
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(KeyedPairs<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer { UnkeyedPairs(encoder: self) }

    func singleValueContainer() -> any SingleValueEncodingContainer { SinglePair(encoder: self) }

    /// The name of the child `key`: `key` at the top, `name[key]` below it.
    func childName(_ key: String) -> String { name.map { "\($0)[\(key)]" } ?? key }

    /// The encoder for the child at `key`.
    func child(_ key: any CodingKey, name childName: String) -> FormPairEncoder {
        FormPairEncoder(sink: sink, name: childName, codingPath: codingPath + [key])
    }

    /// Writes `text` under this position's name.
    func write(_ text: String) throws {
        guard let name else {
            throw EncodingError.invalidValue(
                text, .init(codingPath: codingPath, debugDescription: "a form needs named values at the top level"))
        }
        sink.items.append(QueryItem(name: name, value: text))
    }

    /// Encodes `value` here, writing the Foundation types that have a natural text form as that text.
    func encodeValue(_ value: some Encodable) throws {
        switch value {
        case let date as Date: try write(date.formatted(Date.ISO8601FormatStyle()))
        case let data as Data: try write(data.base64EncodedString())
        case let url as URL: try write(url.absoluteString)
        default: try value.encode(to: self)
        }
    }
}

/// A keyed container: each key becomes a name (`key`, or `parent[key]`).
private struct KeyedPairs<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: FormPairEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    private func child(_ key: Key) -> FormPairEncoder {
        encoder.child(key, name: encoder.childName(key.stringValue))
    }

    mutating func encodeNil(forKey key: Key) throws { try child(key).write("") }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try child(key).write(value ? "true" : "false") }
    mutating func encode(_ value: String, forKey key: Key) throws { try child(key).write(value) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try child(key).write("\(value)") }
    mutating func encode(_ value: Float, forKey key: Key) throws { try child(key).write("\(value)") }
    mutating func encode(_ value: Int, forKey key: Key) throws { try child(key).write("\(value)") }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try child(key).write("\(value)") }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try child(key).write("\(value)") }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try child(key).write("\(value)") }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try child(key).write("\(value)") }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try child(key).write("\(value)") }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try child(key).write("\(value)") }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try child(key).write("\(value)") }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try child(key).write("\(value)") }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try child(key).write("\(value)") }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try child(key).encodeValue(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        child(key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        child(key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { encoder }
    mutating func superEncoder(forKey key: Key) -> any Encoder { child(key) }
}

/// An unkeyed container (an array): every element gets the array's name, or the name with `[]`.
private struct UnkeyedPairs: UnkeyedEncodingContainer {
    let encoder: FormPairEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }
    private(set) var count = 0

    init(encoder: FormPairEncoder) { self.encoder = encoder }

    /// The encoder for the next element.
    private mutating func next() -> FormPairEncoder {
        defer { count += 1 }
        let elementName = encoder.name.map { encoder.sink.arrayKeys == .brackets ? $0 + "[]" : $0 }
        return FormPairEncoder(
            sink: encoder.sink, name: elementName, codingPath: codingPath + [IndexKey(intValue: count)])
    }

    mutating func encodeNil() throws { try next().write("") }
    mutating func encode(_ value: Bool) throws { try next().write(value ? "true" : "false") }
    mutating func encode(_ value: String) throws { try next().write(value) }
    mutating func encode(_ value: Double) throws { try next().write("\(value)") }
    mutating func encode(_ value: Float) throws { try next().write("\(value)") }
    mutating func encode(_ value: Int) throws { try next().write("\(value)") }
    mutating func encode(_ value: Int8) throws { try next().write("\(value)") }
    mutating func encode(_ value: Int16) throws { try next().write("\(value)") }
    mutating func encode(_ value: Int32) throws { try next().write("\(value)") }
    mutating func encode(_ value: Int64) throws { try next().write("\(value)") }
    mutating func encode(_ value: UInt) throws { try next().write("\(value)") }
    mutating func encode(_ value: UInt8) throws { try next().write("\(value)") }
    mutating func encode(_ value: UInt16) throws { try next().write("\(value)") }
    mutating func encode(_ value: UInt32) throws { try next().write("\(value)") }
    mutating func encode(_ value: UInt64) throws { try next().write("\(value)") }
    mutating func encode<T: Encodable>(_ value: T) throws { try next().encodeValue(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
        NestedKey
    > {
        next().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { next().unkeyedContainer() }
    mutating func superEncoder() -> any Encoder { next() }
}

/// A single value: written under the position's name.
private struct SinglePair: SingleValueEncodingContainer {
    let encoder: FormPairEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws { try encoder.write("") }
    mutating func encode(_ value: Bool) throws { try encoder.write(value ? "true" : "false") }
    mutating func encode(_ value: String) throws { try encoder.write(value) }
    mutating func encode(_ value: Double) throws { try encoder.write("\(value)") }
    mutating func encode(_ value: Float) throws { try encoder.write("\(value)") }
    mutating func encode(_ value: Int) throws { try encoder.write("\(value)") }
    mutating func encode(_ value: Int8) throws { try encoder.write("\(value)") }
    mutating func encode(_ value: Int16) throws { try encoder.write("\(value)") }
    mutating func encode(_ value: Int32) throws { try encoder.write("\(value)") }
    mutating func encode(_ value: Int64) throws { try encoder.write("\(value)") }
    mutating func encode(_ value: UInt) throws { try encoder.write("\(value)") }
    mutating func encode(_ value: UInt8) throws { try encoder.write("\(value)") }
    mutating func encode(_ value: UInt16) throws { try encoder.write("\(value)") }
    mutating func encode(_ value: UInt32) throws { try encoder.write("\(value)") }
    mutating func encode(_ value: UInt64) throws { try encoder.write("\(value)") }
    mutating func encode<T: Encodable>(_ value: T) throws { try encoder.encodeValue(value) }
}

/// The coding key of an array element, for `codingPath` in errors.
private struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "\(intValue ?? 0)" }

    init(intValue: Int) { self.intValue = intValue }

    init?(stringValue: String) { nil }
}
