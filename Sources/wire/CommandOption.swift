// CommandOption: the table of wire's options — spellings, value, one-line summary, and which commands
// accept each (edge layer). The parser and the help text both read this table, so an option cannot be
// accepted without being documented, or documented without being accepted. No parsing happens here.

/// One option of wire's command line. The parser switches over these cases exhaustively, so adding a case
/// forces both its parsing and (through `summary`) its help line to be written.
enum CommandOption: CaseIterable {
    case header, output, include, verbose, fail, timeout, connectTimeout, caFile, maxRedirects
    case progress, noProgress, parallel, json, data, form, directory, restart, sha256, retry, limitRate
    case port, tls, log, help
    case proxy, noProxy, proxyUser, pinnedPublicKey
    case user, dataURLEncode, get, request, headOnly, location, writeOut
    case cookie, cookieJar, compressed, segments, segmentProbe, inputFile
    case silent, showError, insecure, userAgent, referer, dataRaw, uploadFile, remoteName, resolve
    case failWithBody, http11, createDirs, dumpHeader, continueAt, retryDelay, netrc, netrcFile, unixSocket
    case digest, basic, ipv4, ipv6, cert, key, maxFileSize, parallelFlag, parallelMax, range, oauth2Bearer
    case connectTo, failEarly, noBuffer

    /// Every spelling the option is recognised by, the short one (if any) first, as curl users type them.
    var spellings: [String] {
        switch self {
        case .header: return ["-H", "--header"]
        case .output: return ["-o", "--output"]
        case .include: return ["-i", "--include"]
        case .verbose: return ["-v", "--verbose"]
        case .fail: return ["-f", "--fail"]
        case .timeout: return ["-m", "--timeout", "--max-time"]
        case .connectTimeout: return ["--connect-timeout"]
        case .caFile: return ["--cacert"]
        case .maxRedirects: return ["--max-redirects"]
        case .progress: return ["-#", "--progress", "--progress-bar"]
        case .noProgress: return ["--no-progress"]
        case .parallel: return ["--parallel"]
        // curl's --parallel is a flag; wire's takes N, so curl's -Z is the flag here.
        case .parallelFlag: return ["-Z"]
        case .parallelMax: return ["--parallel-max"]
        case .range: return ["-r", "--range"]
        case .oauth2Bearer: return ["--oauth2-bearer"]
        case .json: return ["--json"]
        // wire's -d already sends a file's bytes as they are, which is what curl's --data-binary adds.
        case .data: return ["-d", "--data", "--data-binary"]
        case .dataRaw: return ["--data-raw"]
        case .uploadFile: return ["-T", "--upload-file"]
        case .remoteName: return ["-O", "--remote-name"]
        case .resolve: return ["--resolve"]
        case .connectTo: return ["--connect-to"]
        case .failEarly: return ["--fail-early"]
        case .noBuffer: return ["-N", "--no-buffer"]
        case .unixSocket: return ["--unix-socket"]
        case .digest: return ["--digest"]
        // Accepted so scripts written for curl run unchanged: Basic is what -u sends without --digest.
        case .basic: return ["--basic"]
        case .cert: return ["-E", "--cert"]
        case .maxFileSize: return ["--max-filesize"]
        case .key: return ["--key"]
        case .ipv4: return ["-4", "--ipv4"]
        case .ipv6: return ["-6", "--ipv6"]
        case .failWithBody: return ["--fail-with-body"]
        // Accepted so scripts written for curl run unchanged: wire speaks HTTP/1.1 only.
        case .http11: return ["--http1.1"]
        case .createDirs: return ["--create-dirs"]
        case .dumpHeader: return ["-D", "--dump-header"]
        case .continueAt: return ["-C", "--continue-at"]
        case .retryDelay: return ["--retry-delay"]
        // A missing ~/.netrc is no error for either spelling, so --netrc-optional is the same option.
        case .netrc: return ["-n", "--netrc", "--netrc-optional"]
        case .netrcFile: return ["--netrc-file"]
        case .form: return ["-F", "--form"]
        case .directory: return ["--dir"]
        case .restart: return ["--restart"]
        case .sha256: return ["--sha256"]
        case .retry: return ["--retry"]
        case .limitRate: return ["--limit-rate"]
        case .port: return ["--port"]
        case .tls: return ["--tls"]
        case .log: return ["--log"]
        case .help: return ["-h", "--help"]
        case .proxy: return ["-x", "--proxy"]
        case .noProxy: return ["--noproxy"]
        case .proxyUser: return ["-U", "--proxy-user"]
        case .pinnedPublicKey: return ["--pinnedpubkey"]
        case .user: return ["-u", "--user"]
        case .dataURLEncode: return ["--data-urlencode"]
        case .get: return ["-G", "--get"]
        case .request: return ["-X", "--request"]
        case .headOnly: return ["-I", "--head"]
        case .location: return ["-L", "--location"]
        case .writeOut: return ["-w", "--write-out"]
        case .cookie: return ["-b", "--cookie"]
        case .cookieJar: return ["-c", "--cookie-jar"]
        case .compressed: return ["--compressed"]
        case .segments: return ["--segments"]
        case .segmentProbe: return ["--segment-probe"]
        // aria2's spelling; `-i` is `--include` for the other commands.
        case .inputFile: return ["-i", "--input-file"]
        case .silent: return ["-s", "--silent"]
        case .showError: return ["-S", "--show-error"]
        case .insecure: return ["-k", "--insecure"]
        case .userAgent: return ["-A", "--user-agent"]
        case .referer: return ["-e", "--referer"]
        }
    }

    /// The placeholder for the option's value in help text; nil for a flag that takes no value.
    var valueName: String? {
        switch self {
        case .header: return "\"Name: value\""
        case .output, .caFile, .inputFile, .uploadFile, .dumpHeader, .netrcFile, .cert, .key: return "FILE"
        case .timeout, .connectTimeout, .segmentProbe, .retryDelay: return "S"
        case .maxRedirects, .parallel, .retry, .port, .segments, .parallelMax: return "N"
        case .range: return "FIRST-[LAST]|-SUFFIX"
        case .oauth2Bearer: return "TOKEN"
        case .json, .data, .dataRaw: return "TEXT"
        case .form: return "name=value|name=@path[;type=MIME][;filename=NAME]"
        case .directory: return "DIR"
        case .sha256: return "HEX"
        case .limitRate: return "RATE"
        case .maxFileSize: return "BYTES"
        case .include, .verbose, .fail, .progress, .noProgress, .restart, .tls, .log, .help, .get, .headOnly,
            .location, .compressed, .silent, .showError, .insecure, .remoteName, .failWithBody, .http11, .createDirs,
            .netrc, .digest, .basic, .ipv4, .ipv6, .parallelFlag, .failEarly, .noBuffer:
            return nil
        case .proxy: return "URL"
        case .noProxy: return "LIST"
        case .proxyUser: return "USER:PASSWORD"
        case .pinnedPublicKey: return "sha256//BASE64[;sha256//...]"
        case .user: return "USER:PASSWORD"
        case .dataURLEncode: return "[NAME]=TEXT"
        case .request: return "METHOD"
        case .writeOut: return "FORMAT"
        case .cookie: return "'NAME=VALUE[; ...]'|FILE"
        case .cookieJar: return "FILE"
        case .userAgent: return "TEXT"
        case .continueAt: return "-"
        case .referer: return "URL"
        case .resolve: return "HOST:PORT:ADDR[,ADDR...]"
        case .connectTo: return "HOST1:PORT1:HOST2:PORT2"
        case .unixSocket: return "PATH"
        }
    }

    /// One line for `wire <command> --help`.
    var summary: String {
        switch self {
        case .header: return "add a request field (repeatable)"
        case .output: return "write the body to FILE instead of standard output"
        case .include: return "print the status line and fields before the body (each redirect's head first)"
        case .verbose: return "print request and response heads on stderr, credentials redacted"
        case .fail: return "exit 22 when the status is 400 or more"
        case .timeout: return "give up after S seconds in total"
        case .connectTimeout: return "give up connecting (DNS, TCP, TLS) after S seconds"
        case .caFile: return "trust the CA certificates in this PEM bundle"
        case .maxRedirects: return "follow at most N redirects (default 10, 0 follows none)"
        case .progress: return "show a progress bar on stderr (default: when stderr is a terminal)"
        case .noProgress: return "never show a progress bar"
        case .parallel: return "fetch up to N URLs at once (get: bodies still appear in order)"
        case .parallelFlag: return "fetch URLs at once, up to --parallel-max (default 50), as curl -Z"
        case .parallelMax: return "with -Z, how many URLs at once (1 to 300)"
        case .range: return "ask for part of the body (Range: bytes=RANGE, RFC 9110 §14.2), as curl -r"
        case .oauth2Bearer: return "send Authorization: Bearer TOKEN (RFC 6750) to the URL's origin"
        case .failEarly:
            return "stop at the first URL that fails (default: go on, exit with the last URL's result, as curl)"
        case .noBuffer:
            return "write each piece of the body as it arrives, for a live stream (events, a log), as curl -N"
        case .json: return "send TEXT as the body, with Content-Type: application/json"
        case .data: return "send TEXT as a form body (repeatable, joined with &); @FILE sends the file's bytes"
        case .form: return "add a multipart/form-data part (repeatable)"
        case .directory: return "save into DIR under the name taken from the URL"
        case .restart: return "start again from byte 0 instead of resuming a partial file"
        case .sha256: return "check the finished file's SHA-256 against HEX"
        case .retry:
            return "retry up to N times after a timeout, a dropped connection or 408/429/5xx (download: resuming)"
        case .limitRate: return "read at most RATE bytes per second (suffix K, M or G: 1024 multiples, as curl)"
        case .port: return "listen on port N (default 0: the system picks a free port)"
        case .tls: return "serve HTTPS with a throwaway test CA (needs this checkout and openssl)"
        case .log: return "print one line per request on stderr, with its Range and If-Range"
        case .help: return "show this help"
        case .proxy:
            return "use this proxy: http://, socks5[h]:// or socks4[a]://[user:password@]host[:port] (port 1080)"
        case .noProxy:
            return "hosts to reach directly, comma-separated (* for all, 10.0.0.0/8 for a range); overrides no_proxy"
        case .proxyUser: return "the proxy's user name and password, overriding those in the proxy URL"
        case .pinnedPublicKey: return "refuse an https server whose public key's SHA-256 is none of these (exit 90)"
        case .user: return "send USER:PASSWORD as Basic authorization (to the URL's origin only; see --digest)"
        case .digest: return "with -u, answer the server's Digest challenge (RFC 7616) instead of sending Basic"
        case .basic: return "with -u, send Basic authorization (the default)"
        case .maxFileSize: return "fail with exit 63 when a body is larger than BYTES (announced, or as it arrives)"
        case .cert: return "present this PEM certificate (and chain) when the server asks for one (mutual TLS)"
        case .key: return "the unencrypted PEM private key of --cert (default: the --cert file itself)"
        case .ipv4: return "connect over IPv4 only (a name's IPv6 addresses are not tried)"
        case .ipv6: return "connect over IPv6 only (a name's IPv4 addresses are not tried)"
        case .dataURLEncode: return "like -d, but TEXT is form-encoded first (space as +, & = % escaped)"
        case .get: return "put the -d and --data-urlencode data in the URL's query instead of a body"
        case .request: return "send METHOD instead of the command's (wire post -X PATCH ...)"
        case .headOnly: return "send HEAD and print the status line and fields (wire head)"
        case .location: return "follow redirects (accepted for curl's spelling: wire follows them by default)"
        case .writeOut: return "print FORMAT after each transfer, with curl's %{variables} (listed below)"
        case .cookie:
            return "send these cookies (text with '=') or load a Netscape cookie file and keep cookies (repeatable)"
        case .cookieJar: return "write every cookie to FILE (Netscape format, as curl -c) when the command ends"
        case .compressed: return "ask for gzip or deflate and decode the body (exit 61 if it is corrupt or too large)"
        case .segments: return "fetch one file over up to N connections with Range requests (default 1)"
        case .segmentProbe:
            return "let the first connection run alone S seconds before the others may join (default 0.25; 0: at once)"
        case .inputFile: return "download every URL listed in FILE (one a line, # comments); resumes when run again"
        case .silent: return "no progress bar and no error message (the exit code still tells); see -S"
        case .showError: return "with -s, still print the error message when the command fails"
        case .insecure: return "skip the certificate check (anyone on the path can read the traffic: for tests only)"
        case .userAgent: return "send TEXT as User-Agent instead of wire/VERSION (\"\" sends none)"
        case .referer: return "send URL as Referer"
        case .dataRaw: return "like -d, but a leading @ is text, not a file name"
        case .failWithBody: return "like -f (exit 22 when the status is 400 or more), but the body is written first"
        case .netrc: return "send the login and password ~/.netrc gives for each host, when the request has none"
        case .netrcFile: return "like -n, from FILE (which must exist)"
        case .continueAt: return "resume from the bytes on disk (accepted as curl's -C -: wire download always resumes)"
        case .retryDelay: return "wait S seconds before every retry instead of 1 s doubling (curl's --retry-delay)"
        case .dumpHeader: return "write each response head to FILE as received, CRLFs and all (- for standard output)"
        case .createDirs: return "create the directories -o, -O or --dir name when they are missing (mode 0755)"
        case .http11: return "speak HTTP/1.1 (accepted for curl's spelling: wire speaks nothing else)"
        case .resolve: return "connect to ADDR for HOST:PORT instead of asking DNS; Host and TLS keep HOST (repeatable)"
        case .connectTo:
            return "connect to HOST2:PORT2 for HOST1:PORT1 (empty parts: any, or the same); Host and TLS keep HOST1"
        case .unixSocket:
            return "connect through the Unix-domain socket PATH instead of the network, no proxy (serve: listen on it)"
        case .remoteName:
            return "write the body to a file in the current directory named as the URL's last path segment"
        case .uploadFile: return "send FILE's bytes as the body, streamed, with no Content-Type (curl -T; put, or post)"
        }
    }

    /// The commands that accept this option. `help` is accepted by every command.
    var commands: Set<CommandName> {
        let requests: Set<CommandName> = [.get, .head, .post, .put, .delete, .upload, .download]
        switch self {
        // A HEAD response has no body: nothing to write to a file, include, or show progress for.
        case .output, .progress, .noProgress: return requests.subtracting([.head])
        // A download's body goes to its file alone; a head printed into it would corrupt it.
        case .include: return requests.subtracting([.head, .download])
        case .header, .verbose, .fail, .failWithBody, .http11, .timeout, .connectTimeout, .caFile, .maxRedirects, .user,
            .location, .retry:
            return requests
        case .silent, .showError, .insecure, .userAgent, .referer, .resolve, .connectTo: return requests
        case .unixSocket: return requests.union([.serve])
        case .digest, .basic, .ipv4, .ipv6, .cert, .key: return requests
        // A download's own limits are its file's; wire head has no body.
        case .maxFileSize: return requests.subtracting([.head, .download])
        case .writeOut: return requests.subtracting([.download])
        case .get, .headOnly: return [.get]
        case .dataURLEncode: return [.get, .post, .put, .delete]
        case .request: return [.get, .post, .put, .delete]
        case .parallel, .parallelFlag, .parallelMax: return [.get, .download]
        case .range: return [.get, .head]
        case .failEarly: return [.get]
        case .noBuffer: return requests.subtracting([.head, .download])
        case .oauth2Bearer: return requests
        case .json: return [.post, .put]
        case .data, .dataRaw: return [.get, .post, .put, .delete]
        case .uploadFile: return [.post, .put]
        // wire download names its file from the URL (or the server's Content-Disposition) already.
        case .remoteName: return [.get, .post, .put, .delete, .upload]
        case .createDirs: return requests.subtracting([.head])
        case .dumpHeader: return requests.subtracting([.download])
        case .continueAt: return [.download]
        case .netrc, .netrcFile: return requests
        case .retryDelay: return requests
        // curl's -F makes a multipart POST; `wire post -F` and `wire put -F` run as `wire upload`.
        case .form: return [.upload, .post, .put]
        case .directory, .restart, .sha256, .limitRate, .segments, .segmentProbe, .inputFile:
            return [.download]
        case .port, .tls, .log: return [.serve]
        case .help: return Set(CommandName.allCases)
        case .proxy, .noProxy, .proxyUser, .pinnedPublicKey, .cookie, .cookieJar: return requests
        case .compressed: return requests.subtracting([.head])
        }
    }

    /// The option spelled `word`, if any command knows it.
    static func named(_ word: String) -> CommandOption? {
        allCases.first { $0.spellings.contains(word) }
    }

    /// The option spelled `word` for `command`: the one that applies to it when two share a spelling
    /// (`-i` is `--include`, and `--input-file` for `wire download`), else any (for the error message).
    static func named(_ word: String, for command: CommandName) -> CommandOption? {
        allCases.first { $0.spellings.contains(word) && $0.commands.contains(command) } ?? named(word)
    }
}
