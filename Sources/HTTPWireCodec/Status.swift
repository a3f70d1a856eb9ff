// Status: the three-digit status code of a response (RFC 9110 §15).
// Codec layer: a value type, no I/O.
//
// The status code is what a client acts on; the reason phrase beside it on the wire is only a hint for
// humans (RFC 9112 §4: a client SHOULD ignore its content). This file names the common codes, sorts codes
// into their classes, and supplies the standard reason phrase for printing. It must not decide framing:
// which statuses carry no body is BodyFraming's business (RFC 9112 §6.3).

/// A response status code such as `200` or `404`.
///
/// ```swift
/// let status = Status(rawValue: 404)
/// status == .notFound      // true
/// status.kind              // .clientError
/// status.reasonPhrase      // "Not Found"
/// ```
public struct Status: Sendable, Hashable, RawRepresentable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    /// The numeric code. The decoder only produces values in 100...999 (RFC 9112 §4: `3DIGIT`, and codes
    /// below 100 are refused because they fit no class).
    public var rawValue: Int

    /// Wraps a code. Every integer is accepted; ``kind`` says how a client should treat it.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Wraps a code written as a literal, for example `let status: Status = 418`.
    public init(integerLiteral value: Int) { self.rawValue = value }

    /// The class of a status code: its first digit (RFC 9110 §15).
    public enum Kind: Sendable, Hashable {
        /// 1xx: interim response, the final one is still to come (§15.2).
        case informational
        /// 2xx: the request succeeded (§15.3).
        case successful
        /// 3xx: further action, usually a redirect, is needed (§15.4).
        case redirection
        /// 4xx: the request was wrong (§15.5).
        case clientError
        /// 5xx: the server failed (§15.6). Also codes 600 and above: RFC 9110 §15 says a client SHOULD
        /// treat an invalid code as a 5xx.
        case serverError
        /// Below 100: no class at all. The decoder never produces one.
        case invalid
    }

    /// The class of this code.
    public var kind: Kind {
        switch rawValue {
        case 100...199: return .informational
        case 200...299: return .successful
        case 300...399: return .redirection
        case 400...499: return .clientError
        case 500...: return .serverError
        default: return .invalid
        }
    }

    /// True for 1xx codes, which come before the final response (RFC 9110 §15.2).
    public var isInformational: Bool { kind == .informational }

    /// The reason phrase RFC 9110 §15 registers for this code, or an empty string for an unknown code.
    /// Used when HTTPWire writes a status line itself (the fixture server) and for printing.
    public var reasonPhrase: String {
        switch rawValue {
        case 100: return "Continue"
        case 101: return "Switching Protocols"
        case 102: return "Processing"
        case 103: return "Early Hints"
        case 200: return "OK"
        case 201: return "Created"
        case 202: return "Accepted"
        case 203: return "Non-Authoritative Information"
        case 204: return "No Content"
        case 205: return "Reset Content"
        case 206: return "Partial Content"
        case 300: return "Multiple Choices"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 303: return "See Other"
        case 304: return "Not Modified"
        case 307: return "Temporary Redirect"
        case 308: return "Permanent Redirect"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 406: return "Not Acceptable"
        case 408: return "Request Timeout"
        case 409: return "Conflict"
        case 410: return "Gone"
        case 411: return "Length Required"
        case 412: return "Precondition Failed"
        case 413: return "Content Too Large"
        case 414: return "URI Too Long"
        case 415: return "Unsupported Media Type"
        case 416: return "Range Not Satisfiable"
        case 417: return "Expectation Failed"
        case 421: return "Misdirected Request"
        case 422: return "Unprocessable Content"
        case 426: return "Upgrade Required"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        case 505: return "HTTP Version Not Supported"
        default: return ""
        }
    }

    /// `"404 Not Found"`, or just the number for an unregistered code.
    public var description: String {
        let phrase = reasonPhrase
        return phrase.isEmpty ? String(rawValue) : "\(rawValue) \(phrase)"
    }

    /// 100 Continue: the server will read the request body (RFC 9110 §15.2.1).
    public static let `continue`: Status = 100
    /// 101 Switching Protocols: HTTPWire never asks for it, so the decoder refuses it.
    public static let switchingProtocols: Status = 101
    /// 103 Early Hints (RFC 8297).
    public static let earlyHints: Status = 103
    /// 200 OK.
    public static let ok: Status = 200
    /// 201 Created.
    public static let created: Status = 201
    /// 204 No Content: never has a body (RFC 9112 §6.3 rule 1).
    public static let noContent: Status = 204
    /// 206 Partial Content: the answer to a Range request (RFC 9110 §15.3.7).
    public static let partialContent: Status = 206
    /// 301 Moved Permanently.
    public static let movedPermanently: Status = 301
    /// 302 Found.
    public static let found: Status = 302
    /// 303 See Other: follow with GET (RFC 9110 §15.4.4).
    public static let seeOther: Status = 303
    /// 304 Not Modified: never has a body (RFC 9112 §6.3 rule 1).
    public static let notModified: Status = 304
    /// 307 Temporary Redirect: method and body are kept.
    public static let temporaryRedirect: Status = 307
    /// 308 Permanent Redirect: method and body are kept.
    public static let permanentRedirect: Status = 308
    /// 400 Bad Request.
    public static let badRequest: Status = 400
    /// 401 Unauthorized.
    public static let unauthorized: Status = 401
    /// 403 Forbidden.
    public static let forbidden: Status = 403
    /// 404 Not Found.
    public static let notFound: Status = 404
    /// 416 Range Not Satisfiable: a resumed download that is already complete, for example.
    public static let rangeNotSatisfiable: Status = 416
    /// 500 Internal Server Error.
    public static let internalServerError: Status = 500
    /// 503 Service Unavailable.
    public static let serviceUnavailable: Status = 503
}
