// ClientSettings: how the common options of wire's request commands become an HTTPClient (edge layer).
// -H, -v, --timeout, --connect-timeout, --cacert, -k, --max-redirects, --retry, -u, -A, -e and -b/-c map one
// to one onto ClientConfiguration and HTTPRequest fields; --fail becomes a status check, -X the method, -G the query,
// -w a report after each transfer. Each command file then makes one library call with the client this file
// builds. Nothing here sends a request or writes a body.

import HTTPWire
import HTTPWireCodec

/// What the `-w` report reads of a response; the streamed and the collected kinds both have it.
protocol WriteOutSubject {
    var status: Status { get }
    var version: HTTPVersion { get }
    var url: TargetURL { get }
    var fields: HTTPFields { get }
    var metrics: RequestMetrics { get }
}

extension HTTPResponse: WriteOutSubject {}
extension HTTPStreamingResponse: WriteOutSubject {}

/// The bridge from parsed options to the library's configuration, shared by every request command.
enum ClientSettings {
    /// The client configuration the options ask for.
    ///
    /// `--cacert FILE` replaces the system trust store, as curl's option does: a user naming a CA bundle
    /// means "trust exactly these", and a test CA must not be diluted by the system's hundred roots.
    static func configuration(for command: ParsedCommand) -> ClientConfiguration {
        var configuration = ClientConfiguration()
        // -A replaces wire's User-Agent; -A "" sends none (curl's rule). -e adds a Referer.
        let userAgent = command.userAgent ?? "wire/" + Help.version
        configuration.defaultFields = [:]
        if !userAgent.isEmpty { configuration.defaultFields["User-Agent"] = userAgent }
        if let referer = command.referer { configuration.defaultFields["Referer"] = referer }
        // -k: no certificate or name check (RFC 9110 §4.3.4 is then not met: any interceptor is "the
        // server"). Pins given with --pinnedpubkey are still checked.
        if command.insecure { configuration.tls.verifiesPeer = false }
        configuration.addressOverrides = command.resolve
        configuration.hostOverrides = command.connectTo
        // --unix-socket: every connection dials the socket file; proxies are then not used (the library's rule).
        configuration.unixSocketPath = command.unixSocket
        configuration.addressFamily = command.ipVersion == 4 ? .ipv4 : command.ipVersion == 6 ? .ipv6 : .any
        // --max-filesize: a body collected in memory (--parallel, upload's answer) stops at the limit too.
        if let limit = command.maxFileSize {
            configuration.maxCollectedBodyBytes = Int(min(Int64(configuration.maxCollectedBodyBytes), limit))
        }
        // --retry N: a download retries its own attempts (resuming from the bytes on disk, DownloadOptions);
        // every other command through the client's policy.
        if command.command != .download { configuration.retry = retryPolicy(for: command) }
        if let seconds = command.timeoutSeconds { configuration.timeouts.total = .seconds(seconds) }
        if let seconds = command.connectTimeoutSeconds { configuration.timeouts.connect = .seconds(seconds) }
        // -E/--cert [--key]: mutual TLS. Without --key the key is read from the certificate's file, as curl does.
        if let certificate = command.clientCertificate {
            configuration.tls.clientCertificateChain = .file(path: certificate)
            configuration.tls.clientPrivateKey = .file(path: command.clientKey ?? certificate)
        }
        if let caFile = command.caFile {
            configuration.tls.trustsSystemRoots = false
            configuration.tls.additionalTrustRoots = [.file(path: caFile)]
        }
        configuration.redirects = RedirectPolicy(maxRedirects: command.maxRedirects)
        // --parallel N needs N connections to one origin at once; the pool's default allows 8.
        configuration.pool.maxConnectionsPerOrigin = max(configuration.pool.maxConnectionsPerOrigin, command.parallel)
        configuration.pool.maxIdleConnectionsPerOrigin = configuration.pool.maxConnectionsPerOrigin
        if command.verbose { configuration.logger = verboseLine }
        applyProxyOptions(command, to: &configuration)
        if command.compressed { configuration.contentDecoding = .on }
        if let pins = command.pinnedPublicKeys.flatMap(PublicKeyPin.list) { configuration.tls.pinnedPublicKeys = pins }
        // --oauth2-bearer: RFC 6750's Bearer, to the URL's origin only (as -u's Basic).
        if let token = command.bearerToken { configuration.authorization = .bearer(token) }
        // -u: Basic credentials (RFC 7617), sent to the URL's origin only, never after a redirect elsewhere;
        // with --digest, sent only as the answer to a Digest challenge (RFC 7616), never in clear.
        if let user = command.user {
            if command.digest {
                configuration.middleware.append(DigestAuthMiddleware(user: user.name, password: user.password))
            } else {
                configuration.authorization = .basic(user: user.name, password: user.password)
            }
        }
        // -b 'a=1; b=2': sent as typed, to the URL's origin (a redirect elsewhere drops the field).
        if let cookies = CookieOptions.cookieText(for: command) { configuration.defaultFields["Cookie"] = cookies }
        return configuration
    }

    /// `--retry N` as curl means it: up to N more attempts after a timeout, a failed or dropped connection,
    /// or a 408, 429, 500, 502, 503 or 504 answer, waiting 1 s, 2 s, 4 s… (or what `Retry-After` asks, RFC
    /// 9110 §10.2.3). Unlike curl, only idempotent requests are sent again (RFC 9110 §9.2.2): a POST that
    /// timed out may have been carried out, and sending it twice is the caller's decision, not a flag's.
    static func retryPolicy(for command: ParsedCommand) -> RetryPolicy {
        guard command.retries > 0 else { return .none }
        var policy = RetryPolicy(maxRetries: command.retries, retryableStatuses: [408, 429, 500, 502, 503, 504])
        // --retry-delay S: the same wait before every retry (curl turns its backoff off the same way).
        if let seconds = command.retryDelaySeconds {
            policy.initialBackoff = .seconds(seconds)
            policy.maxBackoff = .seconds(seconds)
        }
        return policy
    }

    /// `-x`, `--noproxy` and `-U` over the environment's proxies, as curl applies them: `-x` replaces every
    /// proxy variable (`no_proxy` still applies), `--noproxy` replaces `no_proxy`, `-U` the URLs' credentials.
    static func applyProxyOptions(_ command: ParsedCommand, to configuration: inout ClientConfiguration) {
        if let proxy = command.proxy {
            configuration.proxy.httpProxy = nil
            configuration.proxy.httpsProxy = nil
            configuration.proxy.allProxy = proxy
        }
        if let noProxy = command.noProxy { configuration.proxy.noProxy = noProxy }
        if let user = command.proxyUser {
            configuration.proxy.credentials = ProxyConfiguration.Credentials(user: user.user, password: user.password)
        }
    }

    /// The `-H` fields, in the order given.
    static func fields(for command: ParsedCommand) -> HTTPFields {
        var fields = HTTPFields()
        for header in command.headers { fields.append(name: header.name, value: header.value) }
        return fields
    }

    /// Runs `body` with a client configured from `command`, and shuts the client down after it returns
    /// (its idle connections are closed politely). After a failure the process is about to exit, and the
    /// kernel closes whatever is left: waiting for a connection stuck in a failed handshake would only
    /// delay the error.
    static func withClient<T>(
        for command: ParsedCommand, recordingHeadsFor output: BodyOutput? = nil,
        isolation: isolated (any Actor)? = #isolation, _ body: (HTTPClient) async throws -> T
    ) async throws -> T {
        var configuration = configuration(for: command)
        // -i, wire head and -D show the heads before the final one too: a middleware sees every head.
        if let earlierHeads = output?.earlierHeads { configuration.middleware.append(earlierHeads) }
        configuration.cookieJar = try await CookieOptions.jar(for: command)
        if let netrc = try await Netrc.load(for: command) {
            configuration.middleware.append(NetrcCredentials(netrc: netrc))
        }
        let client = HTTPClient(configuration: configuration)
        let result: T
        do {
            result = try await body(client)
        } catch {
            // -c FILE is written after a failure too (curl does): the cookies received so far are kept.
            try await CookieOptions.save(configuration.cookieJar, for: command, afterFailure: true)
            throw error
        }
        await client.shutdown()
        try await CookieOptions.save(configuration.cookieJar, for: command, afterFailure: false)
        return result
    }

    /// The method to send: `-X` when given, else the command's.
    static func method(for command: ParsedCommand, default method: Method) -> Method {
        command.method.map { Method(rawValue: $0) } ?? method
    }

    /// `url` with `-G`'s data appended to its query (after `&` when it has one), as curl does; the data is
    /// already encoded (`-d` as typed, `--data-urlencode` escaped).
    static func url(_ url: String, for command: ParsedCommand) -> String {
        guard command.dataInQuery, !command.dataPieces.isEmpty else { return url }
        let data = command.dataPieces.joined(separator: "&")
        let base = url.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
        return base + (base.contains("?") ? "&" : "?") + data
    }

    /// Writes the `-w` report of one response: to `output` when the body goes to standard output (so the
    /// report follows the body), else straight to standard output.
    static func writeOut(_ response: some WriteOutSubject, for command: ParsedCommand, into output: BodyOutput?) throws
    {
        guard let format = command.writeOut else { return }
        try emit(format.render(transfer(response)), into: output)
    }

    /// Writes the `-w` report of a request that got no answer (no connection, a timeout before the head) as
    /// curl writes it — `000` and zeros, so `code=$(wire get -s -w '%{http_code}' URL)` always gets a code —
    /// and gives back `error` to throw: `catch { throw ClientSettings.noAnswer(error, url: …) }`.
    static func noAnswer(_ error: any Error, url: String, for command: ParsedCommand, into output: BodyOutput?)
        -> any Error
    {
        // The heads that did come (a redirect chain cut by --max-redirects, say) are shown all the same.
        try? output?.writeEarlierHeads(for: command, includingLast: true)
        report(error, of: WriteOut.Transfer(url: url), for: command, into: output)
        return error
    }

    /// Writes the `-w` report of `response` after its transfer failed (`--fail`'s 404, a body cut short: the
    /// report shows what came, as curl's does) and gives back `error` to throw. A failure to write the
    /// report is ignored: the transfer's own error decides the exit code.
    static func failed(
        _ error: any Error, after response: some WriteOutSubject, for command: ParsedCommand,
        into output: BodyOutput?
    ) -> any Error {
        if command.writeOut != nil { report(error, of: transfer(response), for: command, into: output) }
        return error
    }

    /// The `-w` report of `transfer` that ended with `error`: its exit code and one-line description filled
    /// in. Not being able to write it changes nothing: the transfer's own error decides the exit code.
    private static func report(
        _ error: any Error, of transfer: WriteOut.Transfer, for command: ParsedCommand, into output: BodyOutput?
    ) {
        guard let format = command.writeOut else { return }
        var failed = transfer
        failed.exitCode = ExitCode(for: error).rawValue
        failed.errorMessage = "\(error)"
        try? emit(format.render(failed), into: output)
    }

    /// Runs `transfer` (the response's head and body going out), then writes the `-w` report of `response`,
    /// after a failure too (`failed`). For the commands that make one request; `wire get`'s URL loop spells
    /// the same steps out inline, where a closure would cost each GET an async frame (callgrind: ~450
    /// instructions).
    static func reporting(
        _ response: some WriteOutSubject, for command: ParsedCommand, into output: BodyOutput?,
        isolation: isolated (any Actor)? = #isolation, _ transfer: () async throws -> Void
    ) async throws {
        do {
            try await transfer()
        } catch {
            throw failed(error, after: response, for: command, into: output)
        }
        try writeOut(response, for: command, into: output)
    }

    /// What `-w` reads of a response.
    private static func transfer(_ response: some WriteOutSubject) -> WriteOut.Transfer {
        WriteOut.Transfer(
            status: response.status.rawValue, version: response.version, url: response.url.description,
            fields: response.fields, metrics: response.metrics)
    }

    /// `text` after the body on standard output, or on standard output itself when the body goes to a file.
    private static func emit(_ text: String, into output: BodyOutput?) throws {
        if let output, output.path == nil {
            try output.write(text: text)
        } else {
            try output?.flush()
            Terminal.writeOutput(text)
        }
    }

    /// With `--fail`, a status of 400 or more ends the command with `HTTPWireError.httpStatus` (exit 22)
    /// before any of the body is written, as curl's `--fail` does.
    static func check(_ status: Status, for command: ParsedCommand) throws {
        if command.fail && status.rawValue >= 400 { throw HTTPWireError.httpStatus(status.rawValue) }
    }

    /// With `--fail-with-body`, a status of 400 or more ends the command with exit 22 after the body was
    /// written (curl 7.76's option: the error page is often what explains the failure).
    static func checkAfterBody(_ status: Status, for command: ParsedCommand) throws {
        if command.failWithBody && status.rawValue >= 400 { throw HTTPWireError.httpStatus(status.rawValue) }
    }

    /// One `-v` log event as curl shows it on stderr: `> ` before request-head lines, `< ` before
    /// response-head lines, and the client's own `* ` notes as they are. Credentials arrive redacted.
    @Sendable static func verboseLine(_ event: HTTPLogEvent) {
        Terminal.writeError(verboseText(event))
    }

    /// The text `verboseLine` writes for `event`, ending in a newline.
    static func verboseText(_ event: HTTPLogEvent) -> String {
        let prefix: String
        switch event.kind {
        case .requestHead: prefix = "> "
        case .responseHead: prefix = "< "
        case .connected, .reused, .redirect, .retry: prefix = ""
        }
        var text = ""
        for line in event.text.split(separator: "\n", omittingEmptySubsequences: false) {
            text += prefix + line + "\n"
        }
        return text
    }
}
