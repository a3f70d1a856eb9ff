// WriteOut: `-w/--write-out FORMAT`, curl's report after each transfer — the format parsed once, then
// filled in from a response's status and metrics (edge layer).
//
// The variables are curl's names, in curl's units: times in seconds with six decimals (microseconds),
// measured from the start of the request (`time_connect` includes the name lookup, `time_total`
// everything); sizes in bytes; speeds in bytes per second, as a whole number (curl 8's form). The times come
// from the library's `RequestMetrics`, one monotonic clock reading per event. A time that did not happen —
// no TLS on plain HTTP, no connect on a reused connection — prints as 0.000000, as curl prints it. `\n`,
// `\r`, `\t` and `\\` are the escapes curl reads; `%{exitcode}` and `%{errormsg}` tell how the transfer ended
// (a report is written after a failure too); `%%` is a percent sign. An unknown variable is a usage
// error when the line is parsed (curl warns and prints nothing), so a typo cannot pass unnoticed.

import HTTPWire
import HTTPWireCodec

/// A parsed `-w` format.
///
/// ```swift
/// let format = try WriteOut.parse("%{http_code} %{time_total}\n")
/// print(format.render(status: 200, url: "http://a/", contentType: nil, metrics: response.metrics), terminator: "")
/// ```
struct WriteOut: Equatable, Sendable {
    /// The variables wire knows, by their curl names.
    enum Variable: String, CaseIterable, Sendable {
        case httpCode = "http_code"
        case responseCode = "response_code"
        case timeNameLookup = "time_namelookup"
        case timeConnect = "time_connect"
        case timeAppConnect = "time_appconnect"
        case timeStartTransfer = "time_starttransfer"
        case timeTotal = "time_total"
        case sizeDownload = "size_download"
        case speedDownload = "speed_download"
        case numConnects = "num_connects"
        case numRedirects = "num_redirects"
        case urlEffective = "url_effective"
        case contentType = "content_type"
        case httpVersion = "http_version"
        case numHeaders = "num_headers"
        case numRetries = "num_retries"
        case remoteIP = "remote_ip"
        case remotePort = "remote_port"
        case localIP = "local_ip"
        case localPort = "local_port"
        case exitCode = "exitcode"
        case errorMessage = "errormsg"
    }

    /// What a report is filled in from: the response, when one came, and how the transfer ended.
    struct Transfer {
        /// The status code; 0 when no response came (printed as `000`).
        var status = 0
        /// The response's version; nil when no response came (`%{http_version}` prints `0`, as curl).
        var version: HTTPVersion?
        var url = ""
        var fields: HTTPFields = [:]
        var metrics = RequestMetrics()
        /// The process exit status the transfer's outcome maps to (0 for a success): `%{exitcode}`.
        var exitCode: Int32 = 0
        /// The error's one-line description, empty for a success: `%{errormsg}`.
        var errorMessage = ""
    }

    /// A piece of the format: literal text or a variable.
    enum Segment: Equatable, Sendable {
        case text(String)
        case variable(Variable)
    }

    let segments: [Segment]

    /// Parses `format`, or throws the message of the usage error.
    static func parse(_ format: String) throws(WriteOutError) -> WriteOut {
        var segments: [Segment] = []
        var text = ""
        var rest = Substring(format)
        while let character = rest.popFirst() {
            switch character {
            case "\\":
                switch rest.first {
                case "n": text += "\n"
                case "r": text += "\r"
                case "t": text += "\t"
                case "\\": text += "\\"
                default:
                    text += "\\"
                    continue
                }
                rest = rest.dropFirst()
            case "%" where rest.first == "%":
                text += "%"
                rest = rest.dropFirst()
            case "%" where rest.first == "{":
                guard let close = rest.firstIndex(of: "}") else {
                    throw WriteOutError(message: "-w: unterminated %{ in \"\(format)\"")
                }
                let name = String(rest[rest.index(after: rest.startIndex)..<close])
                guard let variable = Variable(rawValue: name) else {
                    let known = Variable.allCases.map(\.rawValue).joined(separator: ", ")
                    throw WriteOutError(message: "-w: unknown variable %{\(name)} (known: \(known))")
                }
                if !text.isEmpty { segments.append(.text(text)) }
                text = ""
                segments.append(.variable(variable))
                rest = rest[rest.index(after: close)...]
            default:
                text.append(character)
            }
        }
        if !text.isEmpty { segments.append(.text(text)) }
        return WriteOut(segments: segments)
    }

    /// The report for one response that ended well, from its status, URL, Content-Type and metrics.
    func render(status: Int, url: String, contentType: String?, metrics: RequestMetrics) -> String {
        var fields = HTTPFields()
        if let contentType { fields.append(name: "Content-Type", value: contentType) }
        return render(Transfer(status: status, version: .http1_1, url: url, fields: fields, metrics: metrics))
    }

    /// The report for one transfer.
    func render(_ transfer: Transfer) -> String {
        var output = ""
        for segment in segments {
            switch segment {
            case .text(let text): output += text
            case .variable(let variable): output += value(of: variable, transfer)
            }
        }
        return output
    }

    private func value(of variable: Variable, _ transfer: Transfer) -> String {
        let metrics = transfer.metrics
        switch variable {
        case .httpCode, .responseCode: return transfer.status < 100 ? "000" : String(transfer.status)
        case .timeNameLookup: return Self.seconds(metrics.nameLookup)
        case .timeConnect: return Self.seconds(metrics.connect)
        case .timeAppConnect: return Self.seconds(metrics.tlsHandshake)
        case .timeStartTransfer: return Self.seconds(metrics.firstByte)
        case .timeTotal: return Self.seconds(metrics.complete)
        case .sizeDownload: return String(metrics.receivedBodyBytes)
        case .speedDownload: return String(Int64((metrics.bytesPerSecond ?? 0).rounded()))
        case .numConnects: return String(metrics.connectionsOpened)
        case .numRedirects: return String(metrics.redirects)
        case .urlEffective: return transfer.url
        case .contentType: return transfer.fields["Content-Type"] ?? ""
        case .httpVersion: return transfer.version.map { "\($0.major).\($0.minor)" } ?? "0"
        case .numHeaders: return String(transfer.fields.count)
        case .numRetries: return String(metrics.retries)
        // Empty and 0 when no response came, as curl prints them when it never connected.
        case .remoteIP: return metrics.remoteAddress ?? ""
        case .remotePort: return String(metrics.remotePort ?? 0)
        case .localIP: return metrics.localAddress ?? ""
        case .localPort: return String(metrics.localPort ?? 0)
        case .exitCode: return String(transfer.exitCode)
        case .errorMessage: return transfer.errorMessage
        }
    }

    /// `0.012345`: seconds with six decimals, the microseconds truncated as curl prints them.
    static func seconds(_ duration: Duration?) -> String {
        guard let duration else { return "0.000000" }
        let (whole, attoseconds) = duration.components
        let micros = String(attoseconds / 1_000_000_000_000)
        return "\(whole)." + String(repeating: "0", count: 6 - micros.count) + micros
    }
}

/// A `-w` format mistake; the parser turns it into a `UsageError`.
struct WriteOutError: Error {
    let message: String
}
