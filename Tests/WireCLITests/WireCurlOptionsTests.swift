// WireCurlOptionsTests: the options wire takes in curl's spelling — -u, -d (a form), --data-urlencode,
// -G, -X, -I, -L and -w/--write-out — parsed in-process, then run as a user runs them against a fixture
// server in this process, checking what the server received and what wire printed.

import FixtureServer
import Foundation
import HTTPWire
import TestSupport
import Testing

@testable import wire

@Suite struct WireCurlOptionsTests {
    @Test("-d pieces are joined with &; --data-urlencode encodes after the first =; -G moves them to the query")
    func dataParsing() throws {
        let posted = try parsedCommand(["post", "u", "-d", "a=1", "--data-urlencode", "q=a b&c+d", "-d", "z"])
        #expect(posted.body == .text("a=1&q=a+b%26c%2Bd&z"))
        let queried = try parsedCommand(["get", "http://h/p?x=1#frag", "-G", "-d", "a=b", "--data-urlencode", "=ü"])
        #expect(queried.body == nil)
        #expect(ClientSettings.url(queried.urls[0], for: queried) == "http://h/p?x=1&a=b&%C3%BC")
        #expect(ClientSettings.url("http://h/p", for: queried) == "http://h/p?a=b&%C3%BC")
        #expect(usageMessage(["get", "u", "-d", "a=b"])?.contains("-G") == true)
        #expect(usageMessage(["post", "u", "-d", "@file", "-d", "a"])?.contains("@FILE") == true)
    }

    @Test("-u splits at the first colon; -X takes a method token; -I is head; -L is accepted")
    func otherParsing() throws {
        let parsed = try parsedCommand(["get", "u", "-u", "ada:pa:ss", "-X", "PATCH", "-L"])
        #expect(parsed.user?.name == "ada" && parsed.user?.password == "pa:ss")
        #expect(ClientSettings.method(for: parsed, default: .get) == Method(rawValue: "PATCH"))
        #expect(try parsedCommand(["get", "-I", "u"]).command == .head)
        #expect(usageMessage(["get", "u", "-u", "ada"])?.contains("USER:PASSWORD") == true)
        #expect(usageMessage(["get", "u", "-X", "BAD METHOD"])?.contains("-X") == true)
        #expect(usageMessage(["get", "u", "-w", "%{nope}"])?.contains("unknown variable %{nope}") == true)
        #expect(usageMessage(["get", "u", "-w", "%{http_code"])?.contains("unterminated") == true)
    }

    @Test("-w renders curl's units: seconds with six decimals, bytes, whole bytes per second")
    func writeOutRendering() throws {
        let format = try WriteOut.parse("%{http_code} %{time_connect} %{time_total} %{size_download}\\n%%")
        var metrics = RequestMetrics()
        metrics.connect = .microseconds(1_234)
        metrics.complete = .milliseconds(2_500)
        metrics.receivedBodyBytes = 5_000
        #expect(
            format.render(status: 404, url: "http://a/", contentType: nil, metrics: metrics)
                == "404 0.001234 2.500000 5000\n%")
        #expect(WriteOut.seconds(nil) == "0.000000")
        let speed = try WriteOut.parse("%{speed_download}")
        #expect(speed.render(status: 200, url: "", contentType: nil, metrics: metrics) == "2000")
    }

    @Test("post -d sends a form; --data-urlencode and -u arrive as curl sends them", .timeLimit(.scaledMinutes(1)))
    func formAndUser() async throws {
        try await withFixtureServer { server in
            let result = try await WireProcess.run([
                "post", server.baseURL + "echo", "-d", "name=Ada", "--data-urlencode", "note=1 + 1 = 2",
                "-u", "ada:s3cret",
            ])
            #expect(result.status == 0, "\(result.standardError)")
            let echo = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
            #expect(echo?["method"] as? String == "POST")
            #expect(echo?["body"] as? String == "name=Ada&note=1+%2B+1+%3D+2")
            let headers = (echo?["headers"] as? [[String]]) ?? []
            #expect(headers.contains(["Content-Type", "application/x-www-form-urlencoded"]))
            let basic = "Basic " + Data("ada:s3cret".utf8).base64EncodedString()
            #expect(headers.contains(["Authorization", basic]))
        }
    }

    @Test("-G puts the data in the query of a GET; -X changes the method", .timeLimit(.scaledMinutes(1)))
    func queryAndMethod() async throws {
        try await withFixtureServer { server in
            let result = try await WireProcess.run([
                "get", server.baseURL + "echo?page=2", "-G", "-d", "q=swift", "--data-urlencode", "tag=a&b",
                "-X", "OPTIONS",
            ])
            #expect(result.status == 0, "\(result.standardError)")
            let echo = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
            #expect(echo?["method"] as? String == "OPTIONS")
            #expect(echo?["target"] as? String == "/echo?page=2&q=swift&tag=a%26b")
            #expect(echo?["body"] as? String == "")
        }
    }

    @Test(
        "-I prints the heads of a HEAD request, the redirect's first; -L is accepted and redirects are followed",
        .timeLimit(.scaledMinutes(1))
    )
    func headAndLocation() async throws {
        try await withFixtureServer { server in
            let result = try await WireProcess.run(["get", "-I", "-L", server.baseURL + "redirect/1"])
            #expect(result.status == 0, "\(result.standardError)")
            // As curl -IL prints them: the 302's head, an empty line, then the final head.
            #expect(result.standardOutput.hasPrefix("HTTP/1.1 302 Found\nLocation: /json\n"))
            #expect(result.standardOutput.contains("\n\nHTTP/1.1 200 OK\n"))
            #expect(server.requestLog.map(\.method) == [.head, .head])
        }
    }

    @Test("-w prints the status, sizes, times and connections after the body", .timeLimit(.scaledMinutes(1)))
    func writeOut() async throws {
        try await withFixtureServer { server in
            let format =
                "\\n%{http_code} %{size_download} %{num_connects} %{num_redirects} %{time_connect} "
                + "%{time_starttransfer} %{time_total} %{speed_download}\\n"
            let result = try await WireProcess.run([
                "get", server.baseURL + "redirect-to?url=/bytes/1234", "-w", format,
            ])
            #expect(result.status == 0, "\(result.standardError)")
            // The body (1,234 bytes), then the report on a line of its own: the last "\n" before the final one.
            let output = result.outputBytes
            try #require(output.count > 1234 && output.last == 0x0A)
            let reportStart = try #require(output.dropLast().lastIndex(of: 0x0A)) + 1
            #expect(reportStart - 1 == 1234)
            let report = String(decoding: output[reportStart..<(output.count - 1)], as: UTF8.self)
                .split(separator: " ").map(String.init)
            try #require(report.count == 8, "\(report)")
            #expect(report[0] == "200")
            #expect(report[1] == "1234")
            #expect(report[2] == "1" && report[3] == "1")
            let times = report[4...6].compactMap(Double.init)
            #expect(times.count == 3)
            #expect(times == times.sorted(), "connect <= first byte <= total")
            #expect(report[4...6].allSatisfy { $0.split(separator: ".").last?.count == 6 })
            #expect(Int(report[7]) != nil)

            // --fail keeps curl's exit 22.
            let failed = try await WireProcess.run([
                "get", server.baseURL + "status/404", "--fail", "-w", "%{http_code}",
            ])
            #expect(failed.status == 22)
        }
    }
}
