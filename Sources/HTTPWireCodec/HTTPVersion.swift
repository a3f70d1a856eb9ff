// HTTPVersion: the protocol version of a message (RFC 9112 §2.3).
// Codec layer: a value type, no I/O.

/// An HTTP version, `HTTP/<major>.<minor>`.
///
/// HTTPWire speaks HTTP/1.1 and accepts HTTP/1.0 responses, whose connections close after each response
/// unless the server sends `Connection: keep-alive` (RFC 9112 §9.3).
public struct HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    /// The major version digit.
    public var major: UInt8
    /// The minor version digit.
    public var minor: UInt8

    /// Creates a version from its two digits.
    public init(major: UInt8, minor: UInt8) {
        self.major = major
        self.minor = minor
    }

    /// HTTP/1.1, the version HTTPWire sends.
    public static let http1_1 = HTTPVersion(major: 1, minor: 1)
    /// HTTP/1.0, accepted from servers.
    public static let http1_0 = HTTPVersion(major: 1, minor: 0)

    /// `HTTP/1.1`.
    public var description: String { "HTTP/\(major).\(minor)" }
}
