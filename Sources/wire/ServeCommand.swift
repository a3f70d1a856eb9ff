// ServeCommand: `wire serve [DIR] [--port N | --unix-socket PATH] [--tls] [--log]` (edge layer). One library call,
// `FixtureServer.start(...)`, then the server runs in the foreground until Ctrl-C. DIR is served under
// /files/ with Range, ETag and If-Range, next to the fixture routes (listed at start). `--log` prints one
// line per request on stderr, with the Range and If-Range fields a resuming client sends. `--tls` serves
// HTTPS with throwaway certificates (ThrowawayCertificates: it needs the repository's make-certs.sh).

import FixtureServer
import HTTPWire

/// Runs `wire serve`.
enum ServeCommand {
    static func run(_ command: ParsedCommand) async throws {
        var tls: TLSServerConfiguration?
        var caFile: String?
        if command.tls {
            let directory = try ThrowawayCertificates.make()
            caFile = directory + "/ca.pem"
            tls = TLSServerConfiguration(
                certificateChain: .file(path: directory + "/leaf.pem"), privateKey: .file(path: directory + "/leaf.key")
            )
        }
        let directory = command.serveDirectory ?? "."
        var log: (@Sendable (String) -> Void)?
        if command.log { log = { line in Terminal.writeError(line + "\n") } }
        let server = try await FixtureServer.start(
            port: command.port, tls: tls, directory: directory, unixSocketPath: command.unixSocket, log: log)
        var text = "wire: serving \(directory) at \(server.baseURL)files/ and the test routes at \(server.baseURL)\n"
        if let path = command.unixSocket {
            text += "wire: listening on the socket file \(path): wire get --unix-socket \(path) \(server.baseURL)json\n"
        }
        if let caFile { text += "wire: the certificate is issued by \(caFile): wire get --cacert \(caFile) URL\n" }
        text += "wire: press Ctrl-C to stop\n\nroutes:\n"
        let width = FixtureServer.routes.map(\.usage.count).max() ?? 0
        for route in FixtureServer.routes {
            text += "  " + route.usage + String(repeating: " ", count: width - route.usage.count) + "  "
            text += route.summary + "\n"
        }
        Terminal.writeOutput(text)
        // Ctrl-C cancels this task (main.swift); the sleep then throws and the server is stopped.
        while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
        await server.stop()
        Terminal.writeError("wire: server stopped\n")
    }
}
