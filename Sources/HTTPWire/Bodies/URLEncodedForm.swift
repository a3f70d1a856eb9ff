// URLEncodedForm: an `application/x-www-form-urlencoded` body — ordered name/value pairs, as HTML forms
// and AFNetworking send them — and its bytes (bodies layer).
//
// The serialisation is the WHATWG URL standard's (§5.2, the urlencoded serializer): each name and value is
// UTF-8, a space becomes `+`, and every byte outside the unreserved set becomes `%XX`; pairs are joined as
// `name=value` with `&`. Where HTTPWire follows RFC 3986 instead: the set left raw is RFC 3986's unreserved
// (`A-Z a-z 0-9 - . _ ~`), so `~` stays raw and `*` is escaped — WHATWG does the opposite, and every form
// decoder reads both alike. Order and repeated names are kept (`tag=a&tag=b`): RFC 1866 §8.2.1 sends
// pairs in the order of the form, and servers read repeats as lists. Nothing here touches a connection.

import HTTPWireCodec

/// Ordered name/value pairs sent as `application/x-www-form-urlencoded`.
///
/// ```swift
/// let form: URLEncodedForm = ["user": "ada lovelace", "note": "1+1=2"]
/// form.encodedText                       // "user=ada+lovelace&note=1%2B1%3D2"
/// let response = try await client.post("login", form: form)   // Content-Type set for you
/// ```
///
/// From an `Encodable` value (see ``URLEncodedFormEncoder`` for how nested values and arrays are written):
///
/// ```swift
/// struct Search: Encodable { var q: String; var page: Int }
/// let form = try URLEncodedForm(encoding: Search(q: "café", page: 2))   // q=caf%C3%A9&page=2
/// ```
public struct URLEncodedForm: Sendable, Hashable, ExpressibleByDictionaryLiteral {
    /// The pairs, in the order they are sent; names may repeat.
    public var items: [QueryItem]

    /// The media type of the encoded body (WHATWG URL §5; IANA registers no charset parameter for it).
    public static let contentType = "application/x-www-form-urlencoded"

    /// A form of `items`, in order.
    public init(_ items: [QueryItem] = []) {
        self.items = items
    }

    /// A form from a literal, in the order written: `["a": "1", "b": "2"]`.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.items = elements.map { QueryItem(name: $0.0, value: $0.1) }
    }

    /// A form from the properties of `value`, as ``URLEncodedFormEncoder`` writes them.
    public init(encoding value: some Encodable) throws {
        self.items = try URLEncodedFormEncoder().encode(value)
    }

    /// Adds a pair after the others.
    public mutating func append(name: String, value: String) {
        items.append(QueryItem(name: name, value: value))
    }

    /// The body as text: `name=value&name=value`, escaped as described above.
    public var encodedText: String {
        var text = ""
        for (index, item) in items.enumerated() {
            if index > 0 { text += "&" }
            text += PercentEncoding.encode(item.name, for: .form)
            text += "="
            text += PercentEncoding.encode(item.value, for: .form)
        }
        return text
    }

    /// The body's bytes (ASCII, since everything else is escaped).
    public var encodedBytes: [UInt8] { Array(encodedText.utf8) }
}
