// ParsedCommand: what wire's command line asked for, checked for shape but not yet acted on (edge layer).
// Plain values only: the parser (Arguments.swift) fills them, Commands.swift acts on them. Nothing here
// opens a file, resolves a host or validates a URL; those mistakes surface when the command runs.

/// The subcommands of wire, in the order the top-level help lists them.
enum CommandName: String, CaseIterable, Sendable {
    case get, head, post, put, delete, upload, download, serve, demo
}

/// One `-H "Name: value"` request field, as typed. The client validates name and value before sending
/// (RFC 9110 §5.1, §5.5), so a field with a bad byte fails there with the rule it broke.
struct HeaderArgument: Equatable, Sendable {
    var name: String
    var value: String
}

/// One `-F` form part: `name=value`, or `name=@path` with optional `;type=` and `;filename=` (curl's syntax).
struct FormArgument: Equatable, Sendable {
    var name: String
    /// The text of a `name=value` part; nil for a file part.
    var value: String?
    /// The file of a `name=@path` part; nil for a text part.
    var path: String?
    /// `;type=MIME`: the part's Content-Type, instead of the one guessed from the file name.
    var contentType: String?
    /// `;filename=NAME`: the file name sent in Content-Disposition, instead of the path's last component.
    var fileName: String?
}

/// Which `.netrc` file `-n` or `--netrc-file` names.
enum NetrcSource: Equatable, Sendable {
    /// `-n`: `$HOME/.netrc`; no file means no credentials.
    case home
    /// `--netrc-file FILE`: a missing file is an error (exit 26), since it was named.
    case file(String)
}

/// Where a request body comes from.
enum BodyArgument: Equatable, Sendable {
    /// `--json TEXT`: sent as is, with `Content-Type: application/json` unless `-H` gives another.
    case json(String)
    /// `--data TEXT`: sent as is.
    case text(String)
    /// `--data @FILE`: the file's bytes.
    case file(String)
    /// `-T FILE`: the file's bytes, with no Content-Type (curl sends none: the file could be anything).
    case upload(String)
}

/// Everything the command line said for one command. Defaults are the values used when an option is absent.
struct ParsedCommand: Equatable, Sendable {
    var command: CommandName
    /// The URLs, in the order given (one for every command but `get`).
    var urls: [String] = []
    var headers: [HeaderArgument] = []
    var output: String?
    var include = false
    var verbose = false
    var fail = false
    /// `--fail-with-body`: as `fail`, after the body has been written.
    var failWithBody = false
    /// `--compressed`: offer gzip and deflate and decode them (off by default, as in curl).
    var compressed = false
    var timeoutSeconds: Double?
    var connectTimeoutSeconds: Double?
    var caFile: String?
    /// RFC 9110 §15.4 leaves the limit to the client; 10 is what the library uses too.
    var maxRedirects = 10
    /// `--progress` (true), `--no-progress` (false), or neither (nil: decided by whether stderr is a terminal).
    var progress: Bool?
    var parallel = 1
    var body: BodyArgument?
    var form: [FormArgument] = []
    var directory: String?
    var restart = false
    var sha256: String?
    var retries = 0
    /// `-n` (`~/.netrc`, which may be missing) or `--netrc-file FILE` (which must exist).
    var netrc: NetrcSource?
    /// `-C -`: resume (what `wire download` does anyway); kept to refuse it beside `--restart`.
    var continueAt = false
    /// `--retry-delay S`: a fixed wait between retries instead of the policy's doubling one.
    var retryDelaySeconds: Double?
    /// `--limit-rate`, in bytes per second.
    var limitRate: Int64?
    /// `--segments N`: connections for one download (DownloadOptions.segments).
    var segments = 1
    /// `--segment-probe S`: how long the first connection runs alone (DownloadOptions.segmentProbe); nil
    /// for the library's default.
    var segmentProbeSeconds: Double?
    /// `-i FILE` for download: a file listing URLs, one a line.
    var inputFile: String?
    var port = 0
    var tls = false
    var log = false
    var serveDirectory: String?
    /// `-x URL`: replaces every proxy of the environment.
    var proxy: String?
    /// `--noproxy LIST`: replaces `no_proxy`.
    var noProxy: String?
    /// `-U USER:PASSWORD`, split at the first colon.
    var proxyUser: (user: String, password: String)? {
        get { proxyUserText.map { Self.splitCredentials($0) } }
        set { proxyUserText = newValue.map { "\($0.user):\($0.password)" } }
    }
    private var proxyUserText: String?
    /// `--pinnedpubkey`: curl's `sha256//BASE64[;sha256//BASE64...]`, checked by the parser.
    var pinnedPublicKeys: String?

    /// `user:password` split at the first colon (a password may contain colons); no colon, no password.
    static func splitCredentials(_ text: String) -> (user: String, password: String) {
        guard let colon = text.firstIndex(of: ":") else { return (text, "") }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }

    /// `-u USER:PASSWORD`, split at the first colon.
    var user: (name: String, password: String)? {
        get { userName.map { ($0, userPassword) } }
        set {
            userName = newValue?.name
            userPassword = newValue?.password ?? ""
        }
    }
    var userName: String?
    var userPassword = ""
    /// The `-d` and `--data-urlencode` pieces, already encoded, in order; joined with `&` (curl's rule).
    var dataPieces: [String] = []
    /// `-G`: the data goes into the query.
    var dataInQuery = false
    /// `-X METHOD`: the method token sent instead of the command's.
    var method: String?
    /// `-w FORMAT`, parsed.
    var writeOut: WriteOut?
    /// `-b` values in order: cookie text (`a=1; b=2`) or cookie-file paths (see `CookieOptions`).
    var cookies: [String] = []
    /// `-c FILE`: where the jar is written when the command ends.
    var cookieJarPath: String?
    /// `-s`: no progress bar (unless `--progress` says otherwise) and no message on stderr; the exit code,
    /// `-v` and `-w` still speak, as with curl.
    var silent = false
    /// `-S`: with `-s`, the `wire: error: …` line is printed all the same (curl's `-sS`).
    var showError = false
    /// `-k`: the server's certificate and name are not checked (pins, when given, still are).
    var insecure = false
    /// `-A TEXT`: the User-Agent to send instead of `wire/VERSION`; empty sends none.
    var userAgent: String?
    /// `-e URL`: the Referer to send.
    var referer: String?
    /// `--resolve HOST:PORT:ADDR,...`, as `ClientConfiguration.addressOverrides`: `"host:port"` to literals.
    var resolve: [String: [String]] = [:]
    /// `--digest`: `-u`'s credentials answer a Digest challenge (`DigestAuthMiddleware`) instead of going
    /// as Basic; `--basic` turns it back off, as in curl.
    var digest = false
    /// `-Z`: fetch at once, up to `parallelMax` (curl's flag; wire's own `--parallel N` says how many).
    var parallelFlag = false
    /// `--fail-early`: `wire get` stops at the first URL that fails, instead of going on to the others.
    var failEarly = false
    /// `-N`: every piece of a body is written as it arrives, not gathered (curl's `--no-buffer`).
    var noBuffer = false
    /// `--parallel-max N`: -Z's limit; nil for curl's default, 50.
    var parallelMax: Int?
    /// `-r RANGE`: sent as `Range: bytes=RANGE` (unless -H gave a Range).
    var range: String?
    /// `--oauth2-bearer TOKEN`: `Authorization: Bearer TOKEN` for the URL's origin.
    var bearerToken: String?
    /// `--max-filesize BYTES`: a body larger than this fails the command with exit 63.
    var maxFileSize: Int64?
    /// `-E/--cert FILE`: the PEM certificate chain presented for mutual TLS (curl's `--cert`; no passphrase).
    var clientCertificate: String?
    /// `--key FILE`: its unencrypted PEM private key; nil means the certificate file holds the key too.
    var clientKey: String?
    /// `-4` or `-6`: connect over that IP version only (`ClientConfiguration.addressFamily`); nil for both.
    /// A number rather than the library's enum: this file is also built into the Arguments fuzz target,
    /// which has no `ClientConfiguration`.
    var ipVersion: Int?
    /// `--connect-to H1:P1:H2:P2`, as `ClientConfiguration.hostOverrides`: `"h1:p1"` to `"h2:p2"`.
    var connectTo: [String: String] = [:]
    /// `--unix-socket PATH`, as `ClientConfiguration.unixSocketPath`: every connection goes through PATH.
    var unixSocket: String?
    /// `-D FILE`: where each response head is written as received (`-` for standard output).
    var dumpHeader: String?
    /// `--create-dirs`: missing directories above `-o`/`-O`'s file, or `--dir` itself, are made first.
    var createDirs = false
    /// `-O`: the body goes to a file named as the URL's last path segment; `Commands.run` turns it into
    /// `output` (the parser never parses a URL).
    var remoteName = false

    /// Whether failures are reported on stderr: always, unless `-s` without `-S`.
    var showsErrors: Bool { !silent || showError }

    init(command: CommandName) { self.command = command }
}
