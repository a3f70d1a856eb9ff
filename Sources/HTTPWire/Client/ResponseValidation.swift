// ResponseValidation: which final responses a request accepts — statuses and content types (client layer).
//
// HTTP itself has no failed responses: a 404 is a complete, correct answer (RFC 9110 §15), and the client
// returns it like a 200 unless asked otherwise. App code usually wants the opposite — "give me the user, or
// throw" — so validation is an opt-in rule, per client (`ClientConfiguration.validation`) or per request
// (`RequestOptions.validation`), checked on the final head after redirects and retries. A failing response
// becomes `HTTPWireError.unacceptableResponse`, with the head and a bounded preview of the body, so the
// server's JSON error can still be decoded. Pure decisions: nothing here reads a body or a socket.

import HTTPWireCodec

/// The statuses and content types a request accepts; any other final response throws
/// ``HTTPWireError/unacceptableResponse(_:)``.
///
/// ```swift
/// var configuration = ClientConfiguration()
/// configuration.validation = ResponseValidation(statuses: 200..<300, contentTypes: ["application/json"])
/// ```
///
/// Content types are compared by `type/subtype`, case-insensitively and without parameters, so
/// `application/json; charset=utf-8` matches `application/json`; `image/*` and `*/*` match any subtype or
/// type. A response without `Content-Type` passes only when it announces no body (a 204, a HEAD, a
/// `Content-Length: 0`): a body nobody labelled is not the JSON the caller asked for.
public struct ResponseValidation: Sendable, Hashable {
    /// The accepted status codes.
    public var acceptableStatuses: Set<Int>
    /// The accepted media types (`application/json`, `text/*`), or nil to accept any.
    public var acceptableContentTypes: [String]?

    /// A rule accepting `statuses` (default 200–299) and, when given, only `contentTypes`.
    public init(statuses: some Sequence<Int> = 200..<300, contentTypes: [String]? = nil) {
        self.acceptableStatuses = Set(statuses)
        self.acceptableContentTypes = contentTypes
    }

    /// 2xx only, any content type: what "it worked" means for most API calls.
    public static let successful = ResponseValidation()

    /// Every status and content type: turns a client's validation off for one request.
    public static let acceptingAll = ResponseValidation(statuses: 100..<1000)

    /// Why a response failed the rule, or nil when it passes. `announcesNoBody`: the response has no body
    /// by its framing (HEAD, 204, 304, `Content-Length: 0`).
    func violation(of head: ResponseHead, announcesNoBody: Bool) -> UnacceptableResponse.Rule? {
        guard acceptableStatuses.contains(head.status.rawValue) else {
            return .status(acceptedStatuses: acceptableStatuses)
        }
        guard let accepted = acceptableContentTypes else { return nil }
        guard let received = head.fields["Content-Type"] else {
            return announcesNoBody ? nil : .contentType(received: nil, acceptedTypes: accepted)
        }
        let essence = Self.essence(received)
        let matches = accepted.contains { pattern in Self.matches(essence, pattern: Self.essence(pattern)) }
        return matches ? nil : .contentType(received: received, acceptedTypes: accepted)
    }

    /// `type/subtype` of a media type, lowercased, parameters and whitespace removed (RFC 9110 §8.3.1:
    /// type and subtype are case-insensitive).
    static func essence(_ mediaType: String) -> String {
        let bytes = mediaType.utf8.prefix { $0 != UInt8(ascii: ";") }
        let trimmed = bytes.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed()
        return String(decoding: trimmed.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// Whether `essence` matches `pattern`: equal, `type/*` for any subtype, or `*/*`.
    private static func matches(_ essence: String, pattern: String) -> Bool {
        if pattern == "*/*" || pattern == essence { return true }
        guard pattern.hasSuffix("/*") else { return false }
        return essence.hasPrefix(pattern.dropLast())
    }
}
