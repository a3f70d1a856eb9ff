// WriteOut: `-w/--write-out FORMAT`, curl's report after each transfer — the format parsed once, then
// filled in from a response's status and metrics (edge layer).
//
// The variables are curl's names, in curl's units: times in seconds with six decimals (microseconds),
// measured from the start of the request (`time_connect` includes the name lookup, `time_total`
// everything); sizes in bytes; speeds in bytes per second, as a whole number (curl 8's form). The times come
// from the library's `RequestMetrics`, one monotonic clock reading per event. A time that did not happen —
// no TLS on plain HTTP, no connect on a reused connection — prints as 0.000000, as curl prints it. `\n`,
// `\r`, `\t` and `\\` are the escapes curl reads; `%%` is a percent sign. An unknown variable is a usage
// error when the line is parsed (curl warns and prints nothing), so a typo cannot pass unnoticed.

import HTTPWire

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

    /// The report for one response.
    func render(status: Int, url: String, contentType: String?, metrics: RequestMetrics) -> String {
        var output = ""
        for segment in segments {
            switch segment {
            case .text(let text): output += text
            case .variable(let variable):
                output += value(of: variable, status: status, url: url, contentType: contentType, metrics: metrics)
            }
        }
        return output
    }

    private func value(
        of variable: Variable, status: Int, url: String, contentType: String?, metrics: RequestMetrics
    ) -> String {
        switch variable {
        case .httpCode, .responseCode: return status < 100 ? "000" : String(status)
        case .timeNameLookup: return Self.seconds(metrics.nameLookup)
        case .timeConnect: return Self.seconds(metrics.connect)
        case .timeAppConnect: return Self.seconds(metrics.tlsHandshake)
        case .timeStartTransfer: return Self.seconds(metrics.firstByte)
        case .timeTotal: return Self.seconds(metrics.complete)
        case .sizeDownload: return String(metrics.receivedBodyBytes)
        case .speedDownload: return String(Int64((metrics.bytesPerSecond ?? 0).rounded()))
        case .numConnects: return String(metrics.connectionsOpened)
        case .numRedirects: return String(metrics.redirects)
        case .urlEffective: return url
        case .contentType: return contentType ?? ""
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
