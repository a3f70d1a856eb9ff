// swift-tools-version:6.0
// HTTPWire: an HTTP/1.1 client written from the socket up.
// No package dependencies: the codec needs only the standard library, the transport adds the system's
// OpenSSL (libssl-dev, installed by `make`), the library adds FoundationEssentials.
//
// The targets are the layers, and their dependencies point down only, so the compiler refuses an upward
// import: HTTPWireCodec (bytes and HTTP/1.1 grammar) <- HTTPWireTransport (descriptors, epoll, timers, TLS,
// disk files; no HTTP) <- HTTPWire (pool, exchange, bodies, client API, uploads, downloads) <- the edge
// (wire, FixtureServer, Examples, benchmarks). Cross-target internals are `package`, never `public`.
import PackageDescription

/// The release link's inputs of `wire` (see the wire target): the order in which it places the functions it
/// runs, and the folder searched first for libraries.
let wireLinkOrder = Context.packageDirectory + "/Sources/wire/Link/wire.order"
let wireLinkLibraries = Context.packageDirectory + "/Sources/wire/Link"

/// The library's own async functions run on their caller's executor (SE-0461, `nonisolated(nonsending)`),
/// so a call from one library function to another is not an executor switch. Without it each async call on a
/// GET's path enters and leaves through `swift_task_switch`, and under the reactor's task executor preference
/// (as the CLI runs) each switch reads the preference under the task's status-record lock: 31 switches a GET
/// before, 11 after, ~7% of a small GET's instructions (docs/benchmarks.md, "Hops"). The public async API is
/// `@concurrent`, so a caller on the main actor still leaves it for the library's executor, as before.
let stayOnTheCallersExecutor: [SwiftSetting] = [.enableUpcomingFeature("NonisolatedNonsendingByDefault")]

let package = Package(
    name: "HTTPWire",
    products: [
        .library(name: "HTTPWireCodec", targets: ["HTTPWireCodec"]),
        .library(name: "HTTPWire", targets: ["HTTPWire"]),
        // An in-process loopback server for the tests of apps that use HTTPWire (FixtureServer + your routes).
        .library(name: "HTTPWireTesting", targets: ["HTTPWireTesting"]),
        .executable(name: "wire", targets: ["wire"]),
    ],
    targets: [
        // OpenSSL 3 from libssl-dev. The module map links ssl and crypto directly, so the build does not
        // depend on pkg-config being present; shim.h wraps the macros Swift cannot import.
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL"),
        // epoll, eventfd, splice and sendfile need _GNU_SOURCE and headers Glibc does not export.
        .systemLibrary(name: "CSystem", path: "Sources/CSystem"),
        // zlib from zlib1g-dev, for gzip and deflate response bodies; shim.h wraps inflateInit2/deflateInit2.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib"),
        // The sans-IO HTTP/1.1 codec: bytes in, events out. Standard library only.
        .target(name: "HTTPWireCodec"),
        // Sockets, the epoll reactor and its timers, OpenSSL, disk files, the syscall wrapper. Knows no HTTP:
        // it does not import the codec.
        .target(
            name: "HTTPWireTransport", dependencies: ["COpenSSL", "CSystem"], swiftSettings: stayOnTheCallersExecutor),
        .target(
            name: "HTTPWire", dependencies: ["HTTPWireCodec", "HTTPWireTransport", "CZlib"],
            swiftSettings: stayOnTheCallersExecutor),
        .target(name: "FixtureServer", dependencies: ["HTTPWire", "HTTPWireCodec", "HTTPWireTransport", "CZlib"]),
        .target(
            name: "HTTPWireTesting", dependencies: ["HTTPWire", "HTTPWireCodec", "HTTPWireTransport", "FixtureServer"]),
        // Release builds of the CLI carry the Swift runtime and FoundationEssentials inside the binary
        // (-static-stdlib, plus the two C-shim libraries FoundationEssentials needs when linked statically):
        // ~2.5 MiB less peak RSS on every row and no loading of eleven Swift libraries at start-up, for a
        // binary of 16.6 MB stripped instead of 2.8 MB (docs/benchmarks.md, "Memory"). Release only: the test
        // bundle links the wire target too, next to the toolchain's shared Swift Testing, and two runtimes in
        // one process would not work. `make` adds --static-swift-stdlib to every release build anyway.
        // The release link also keeps the process's resident pages few (docs/benchmarks.md, "Memory"): lld
        // places the functions the harness's scenarios run first and together (Link/wire.order, written by
        // Link/collect.sh; a name no longer in the code is skipped), packs the 40,000 relative relocations of
        // a position-independent binary as RELR (glibc 2.36: 8 KB read at start-up, not 940 KB), exports no
        // symbols (-static-stdlib asks for -export-dynamic, which put 3,800 of wire's symbols, 320 KB of
        // tables, in the dynamic symbol table that nothing looks up), and takes the runtime's few libstdc++
        // functions from the static archive (Link/libstdc++.so, a linker script found first on -L).
        .executableTarget(
            name: "wire", dependencies: ["HTTPWire", "HTTPWireTransport", "CSystem", "FixtureServer", "Examples"],
            exclude: ["Link"],
            linkerSettings: [
                .unsafeFlags(
                    [
                        "-static-stdlib", "-l_FoundationCShims", "-l_FoundationCollections",
                        "-use-ld=lld", "-Xlinker", "--symbol-ordering-file=\(wireLinkOrder)",
                        "-Xlinker", "--no-warn-symbol-ordering", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                        "-Xlinker", "--no-export-dynamic", "-L\(wireLinkLibraries)",
                    ],
                    .when(configuration: .release))
            ]),
        // The examples, one scenario per file and each a function on the public API: `swift run RunExample NAME
        // ARGS` runs one against any server, and `wire demo` runs every one against its server and checks it.
        .target(name: "Examples", dependencies: ["HTTPWire"]),
        .executableTarget(name: "RunExample", dependencies: ["Examples", "HTTPWire"]),
        .executableTarget(name: "CodecBench", dependencies: ["HTTPWireCodec"], path: "Sources/Benchmarks/CodecBench"),
        // `make bench`: NetBench drives curl, WireBench (HTTPWire), URLSessionBench and the wire CLI as separate
        // processes against nginx and BenchServer (the fixture server in its own process). URLSession lives in
        // its own target so the library never links FoundationNetworking.
        .executableTarget(name: "NetBench", path: "Sources/Benchmarks/NetBench"),
        .executableTarget(
            name: "WireBench", dependencies: ["HTTPWire", "HTTPWireTransport"], path: "Sources/Benchmarks/WireBench"),
        // `make bench-scale`: one client holding 100, 1,000 and 10,000 kept-alive connections (memory per idle
        // connection, requests/s, the reactor's loop latency) against Fixtures/nginx/nginx-scale.sh.
        .executableTarget(
            name: "ScaleBench", dependencies: ["HTTPWire", "HTTPWireTransport"], path: "Sources/Benchmarks/ScaleBench"),
        .executableTarget(name: "URLSessionBench", path: "Sources/Benchmarks/URLSessionBench"),
        .executableTarget(name: "BenchServer", dependencies: ["FixtureServer"], path: "Sources/Benchmarks/BenchServer"),
        .executableTarget(
            name: "UploadBench", dependencies: ["HTTPWire", "HTTPWireCodec", "HTTPWireTransport", "FixtureServer"],
            path: "Sources/Benchmarks/UploadBench"),
        // Tests find Fixtures/ through #filePath, so the corpus stays one folder at the top level.
        .testTarget(name: "HTTPWireCodecTests", dependencies: ["HTTPWireCodec"]),
        // What both client-level test targets share: the one time scale, waits on conditions, subprocesses and
        // other blocking calls run off the cooperative pool, and a closed port nobody else can take.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(
            name: "HTTPWireTests",
            dependencies: ["HTTPWire", "HTTPWireTransport", "FixtureServer", "HTTPWireTesting", "TestSupport"]),
        // Depends on wire so tests can `@testable import wire` (ProgressBar, Arguments) and so the wire binary
        // is built next to the test bundle, where the tests run it as a user would.
        .testTarget(
            name: "WireCLITests",
            dependencies: ["HTTPWire", "HTTPWireTransport", "FixtureServer", "wire", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
