// UnacceptableResponse: the payload of `HTTPWireError.unacceptableResponse` — a response that failed its
// request's validation, kept small enough to throw (client layer).
//
// It carries what a caller needs to understand the failure and recover: the status and the whole head (a
// `Retry-After`, a `WWW-Authenticate` challenge), the URL that answered, and the first
// `UnacceptableResponse.bodyPreviewLimit` bytes of the body — where APIs put their JSON error document. The
// preview is bounded because an error value is copied and logged: a hostile or careless server must not be
// able to make an error hold megabytes. Nothing here reads from the network; the client filled it.

import HTTPWireCodec

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A response its request's ``ResponseValidation`` (or ``HTTPResponse/decode(_:using:)``) refused.
///
/// ```swift
/// struct APIError: Decodable { var message: String }
/// do {
///     let user = try await client.get("users/42", options: RequestOptions(validation: .successful))
///         .decode(User.self)
/// } catch HTTPWireError.unacceptableResponse(let response) {
///     print(response.status, try response.decode(APIError.self).message)   // 404 "no such user"
/// }
/// ```
public struct UnacceptableResponse: Sendable, Hashable, CustomStringConvertible {
    /// Which part of the rule the response broke.
    public enum Rule: Sendable, Hashable {
        /// The status is not among the accepted ones.
        case status(acceptedStatuses: Set<Int>)
        /// The `Content-Type` (nil: missing) is none of the accepted ones.
        case contentType(received: String?, acceptedTypes: [String])
    }

    /// The longest body preview kept: 64 KiB, room for any JSON error document, small enough to throw.
    public static let bodyPreviewLimit = 64 * 1024

    /// The final response head: status, reason, version, fields.
    public let head: ResponseHead
    /// The URL that gave the response (after redirects).
    public let url: TargetURL
    /// The first ``bodyPreviewLimit`` bytes of the body (all of it when ``isBodyPreviewComplete``).
    public let bodyPreview: [UInt8]
    /// Whether ``bodyPreview`` is the whole body. False when the body was longer than the limit, or when
    /// reading it failed; the connection is then closed rather than reused.
    public let isBodyPreviewComplete: Bool
    /// What failed.
    public let rule: Rule

    /// Creates the payload (the client does; tests and mocks can too).
    public init(head: ResponseHead, url: TargetURL, bodyPreview: [UInt8], isBodyPreviewComplete: Bool, rule: Rule) {
        self.head = head
        self.url = url
        self.bodyPreview = Array(bodyPreview.prefix(Self.bodyPreviewLimit))
        self.isBodyPreviewComplete = isBodyPreviewComplete && bodyPreview.count <= Self.bodyPreviewLimit
        self.rule = rule
    }

    /// The status the server answered with.
    public var status: Status { head.status }

    /// The preview as UTF-8 text (invalid sequences replaced).
    public var bodyPreviewText: String { String(decoding: bodyPreview, as: UTF8.self) }

    /// Decodes the server's error document (the body preview) as JSON into `type`. Throws the decoder's
    /// error when the body is not that shape, or was cut at the preview limit.
    public func decode<Value: Decodable>(_ type: Value.Type, using decoder: JSONDecoder = JSONDecoder()) throws -> Value
    {
        try decoder.decode(type, from: Data(bodyPreview))
    }

    /// One lowercase line: `status 404 not accepted (accepted: 200-299)` or
    /// `content type text/html not accepted (accepted: application/json)`.
    public var description: String {
        switch rule {
        case .status(let accepted):
            return "status \(head.status.rawValue) not accepted (accepted: \(Self.ranges(accepted)))"
        case .contentType(let received, let accepted):
            let shown = received.map { "content type \($0)" } ?? "no content type"
            return "\(shown) not accepted (accepted: \(accepted.joined(separator: ", ")))"
        }
    }

    /// `[200, 201, ..., 299, 304]` as `200-299, 304`.
    static func ranges(_ statuses: Set<Int>) -> String {
        var parts: [String] = []
        var run: (first: Int, last: Int)?
        func close(_ run: (first: Int, last: Int)) {
            parts.append(run.first == run.last ? "\(run.first)" : "\(run.first)-\(run.last)")
        }
        for status in statuses.sorted() {
            if let current = run, status == current.last + 1 {
                run = (current.first, status)
            } else {
                if let current = run { close(current) }
                run = (status, status)
            }
        }
        if let current = run { close(current) }
        return parts.isEmpty ? "none" : parts.joined(separator: ", ")
    }
}
