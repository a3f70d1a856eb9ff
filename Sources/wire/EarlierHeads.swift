// EarlierHeads: the heads of the responses a request received before its final one — each redirect it
// followed, each attempt it retried — kept so that `-i`, `wire head` (`-I`) and `-D` show them, in order,
// before the final head, as `curl -iL`, `curl -IL` and `curl -D` do (edge layer).
//
// The library answers a call with its final response; the hops in between are seen by middleware, whose
// `handle(_:to:)` is shown every head (RFC 9110 §15.4: a 3xx the client follows is a complete response of
// its own). The recorder is a middleware installed only when one of those options is given, so a plain
// `wire get` pays nothing for it. Interim 1xx heads are not recorded (they belong to the final exchange, and
// curl shows them only with -v). Not used with `--parallel`: heads of concurrent URLs would interleave.

import HTTPWire
import HTTPWireCodec
import HTTPWireTransport

/// Records every non-interim response head of the current URL's call; the output takes them when the
/// final response is in.
final class EarlierHeads: HTTPMiddleware, Sendable {
    /// Heads received since the last `take()`, oldest first.
    private let heads = LockedState<[ResponseHead]>([])

    /// Whether `command` shows response heads (`-i`, `wire head`, `-D`) of requests made one at a time.
    static func isWanted(by command: ParsedCommand) -> Bool {
        let showsHeads = command.include || command.command == .head || command.dumpHeader != nil
        let isConcurrent = command.parallel > 1 && command.urls.count > 1
        return showsHeads && !isConcurrent && command.command != .download
    }

    @concurrent func handle(_ head: ResponseHead, to request: OutgoingRequest) async throws -> MiddlewareDecision {
        if head.status.rawValue >= 200 { heads.withLock { $0.append(head) } }
        return .proceed
    }

    /// The heads recorded since the last call — the final one excluded unless `includingLast` (a call that
    /// failed has no final response: every head it got came before the failure); empties the record for
    /// the next URL.
    func takeEarlier(includingLast: Bool = false) -> ArraySlice<ResponseHead> {
        heads.withLock { heads in
            defer { heads.removeAll(keepingCapacity: true) }
            return includingLast ? heads[...] : heads.dropLast()
        }
    }
}
