// HeadText: a response head as wire prints it for `wire head` and `-i` (edge layer).
// The status line, then one `Name: value` line per field in the order received — what the server sent,
// minus the CRLFs of the wire format (RFC 9112 §4, §5). Formatting only; nothing is written here.

import HTTPWireCodec

/// The printed form of a response head.
enum HeadText {
    /// `HTTP/1.1 200 OK`, then each field on its own line; every line ends in "\n" (`-D` asks for "\r\n",
    /// the wire's own line end).
    ///
    /// ```swift
    /// let response = try await client.head(url)
    /// print(HeadText.lines(version: response.version, status: response.status, reason: response.reason,
    ///                      fields: response.fields), terminator: "")
    /// ```
    static func lines(
        version: HTTPVersion, status: Status, reason: String, fields: HTTPFields, lineEnd: String = "\n"
    ) -> String {
        // RFC 9112 §4: the reason phrase may be empty; the status line then ends after the code's space.
        var text = "\(version) \(status.rawValue) \(reason)" + lineEnd
        for field in fields { text += "\(field.name): \(field.value)" + lineEnd }
        return text
    }
}
