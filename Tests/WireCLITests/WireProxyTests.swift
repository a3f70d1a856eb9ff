// WireProxyTests: wire's proxy and pinning options run as a user runs them — `-x` through tinyproxy and
// dante on loopback (started by Fixtures/proxies/proxy-loopback.sh), `-U`, `--noproxy`, the proxy
// variables of the environment as curl reads them, and `--pinnedpubkey` — checking the exit status and the
// one `wire: error: ...` line on stderr. The origins are in-process fixture servers.

import FixtureServer
import Foundation
import HTTPWire
import TestSupport
import Testing

// Serialized like the other wire suites: each case starts processes on two shared cores.
@Suite(.serialized) struct WireProxyTests {
    /// Runs wire with `environment` added to this process's.
    private func wire(_ arguments: [String], environment: [String: String] = [:]) async throws -> WireResult {
        WireResult(try await Subprocess.run(try WireProcess.executablePath(), arguments, environment: environment))
    }

    @Test("-x sends an http:// request through tinyproxy in absolute form", .timeLimit(.scaledMinutes(2)))
    func httpProxy() async throws {
        try await withProxy(.tinyproxy) { proxy in
            try await withFixtureServer { origin in
                let url = origin.baseURL + "bytes/64"
                let result = try await wire(["get", "-x", "http://127.0.0.1:\(proxy.port)", url])
                #expect(result.status == 0, "\(result.standardError)")
                #expect(result.outputBytes.count == 64)
                #expect(proxy.log.contains("GET \(url)"), "\(proxy.log)")
            }
        }
    }

    @Test(
        "tinyproxy with Basic auth: without -U exit 56 and the one line; with -U the request passes",
        .timeLimit(.scaledMinutes(2)))
    func proxyUser() async throws {
        try await withProxy(.tinyproxy, options: ["alice", "s3cret"]) { proxy in
            try await withFixtureServer { origin in
                let url = origin.baseURL + "json"
                let refused = try await wire(["get", "-x", "127.0.0.1:\(proxy.port)", url])
                #expect(refused.status == 56)
                #expect(
                    refused.standardError
                        == "wire: error: proxy http://127.0.0.1:\(proxy.port) requires authentication (407): give user:password in the proxy URL\n"
                )
                let passed = try await wire(["get", "-x", "127.0.0.1:\(proxy.port)", "-U", "alice:s3cret", url])
                #expect(passed.status == 0, "\(passed.standardError)")
                #expect(passed.standardOutput.contains("hello from the HTTPWire fixture server"))
            }
        }
    }

    @Test(
        "the environment as curl reads it: http_proxy and all_proxy used, HTTP_PROXY ignored, no_proxy and --noproxy bypass",
        .timeLimit(.scaledMinutes(2)))
    func environment() async throws {
        try await withProxy(.tinyproxy) { proxy in
            try await withFixtureServer { origin in
                let url = origin.baseURL + "bytes/8"
                let proxyURL = "http://127.0.0.1:\(proxy.port)"
                func requestsAtProxy() -> Int { proxy.log.components(separatedBy: "GET \(url)").count - 1 }

                #expect(try await wire(["get", url], environment: ["http_proxy": proxyURL]).status == 0)
                #expect(requestsAtProxy() == 1)
                #expect(try await wire(["get", url], environment: ["ALL_PROXY": proxyURL]).status == 0)
                #expect(requestsAtProxy() == 2)
                // httpoxy: HTTP_PROXY may come from a request's Proxy: header in a CGI program.
                #expect(try await wire(["get", url], environment: ["HTTP_PROXY": proxyURL]).status == 0)
                #expect(requestsAtProxy() == 2)
                let bypass = ["http_proxy": proxyURL, "no_proxy": "localhost,127.0.0.1"]
                #expect(try await wire(["get", url], environment: bypass).status == 0)
                #expect(requestsAtProxy() == 2)
                // --noproxy replaces no_proxy; -x replaces the variables.
                let overridden = try await wire(["get", "--noproxy", "example.test", url], environment: bypass)
                #expect(overridden.status == 0)
                #expect(requestsAtProxy() == 3)
                #expect(try await wire(["get", "--noproxy", "*", "-x", proxyURL, url]).status == 0)
                #expect(requestsAtProxy() == 3)
            }
        }
    }

    @Test(
        "-x socks5h:// and socks4:// go through dante; its refusals (credentials, SOCKS4a) are exit 97",
        .timeLimit(.scaledMinutes(2)))
    func socks() async throws {
        try await withFixtureServer { origin in
            let url = "http://localhost:\(origin.port)/bytes/32"
            try await withProxy(.dante) { proxy in
                for scheme in ["socks5h", "socks4"] {
                    let result = try await wire(["get", "-x", "\(scheme)://127.0.0.1:\(proxy.port)", url])
                    #expect(result.status == 0, "\(scheme): \(result.standardError)")
                    #expect(result.outputBytes.count == 32)
                }
                // dante speaks SOCKS4 but not its 4a extension: the name it is sent is refused.
                let refused = try await wire(["get", "-x", "socks4a://127.0.0.1:\(proxy.port)", url])
                #expect(refused.status == 97)
                #expect(
                    refused.standardError
                        == "wire: error: socks4 proxy: refused the connection: request rejected or failed (reply 91)\n")
            }
            try await withProxy(.dante, options: ["username"]) { proxy in
                let result = try await wire(["get", "-x", "socks5h://127.0.0.1:\(proxy.port)", url])
                #expect(result.status == 97)
                #expect(
                    result.standardError
                        == "wire: error: socks5 authentication failed: the proxy accepts none of the offered methods (no authentication)\n"
                )
            }
        }
    }

    @Test("a proxy that does not resolve exits 5 with the one line", .timeLimit(.scaledMinutes(1)))
    func unresolvedProxy() async throws {
        let result = try await wire(["get", "-x", "http://no-such-proxy.invalid:3128", "http://origin.test/"])
        #expect(result.status == 5)
        #expect(result.standardError == "wire: error: could not resolve proxy no-such-proxy.invalid\n")
    }

    @Test(
        "--pinnedpubkey: the server's pin passes, another exits 90 naming the server's, a malformed one is usage",
        .timeLimit(.scaledMinutes(3)))
    func pinnedPublicKey() async throws {
        let directory = try #require(await TestCertificates.directory, "make-certs.sh failed")
        let leafPin = try await ProxyHarness.pin(ofCertificate: "\(directory)/leaf.pem")
        let otherPin = "sha256//" + Data(repeating: 7, count: 32).base64EncodedString()
        let tls = TLSServerConfiguration(
            certificateChain: .file(path: "\(directory)/leaf.pem"), privateKey: .file(path: "\(directory)/leaf.key"))
        try await withFixtureServer(tls: tls) { server in
            let base = ["get", server.baseURL + "json", "--cacert", "\(directory)/ca.pem", "--pinnedpubkey"]
            let passed = try await wire(base + ["\(otherPin);\(leafPin)"])
            #expect(passed.status == 0, "\(passed.standardError)")
            let refused = try await wire(base + [otherPin])
            #expect(refused.status == 90)
            #expect(refused.standardError == "wire: error: the server's public key \(leafPin) matches no pinned key\n")
            let malformed = try await wire(base + ["sha256//short"])
            #expect(malformed.status == 2)
            #expect(
                malformed.standardError.hasPrefix(
                    "wire: error: --pinnedpubkey needs sha256//BASE64 pins (the base64 of 32 bytes), separated by ;"),
                "\(malformed.standardError)")
        }
    }
}
