// DownloadManagerItem: what a `DownloadManager` says about one of its downloads — its identity, where it
// goes, how urgent it is, its state and its progress.
// Downloads layer: plain values; the manager creates and updates them, an app's list view reads them.
// This file must not do anything.

/// One download owned by a ``DownloadManager``.
///
/// ```swift
/// for item in manager.items {
///     print(item.id, item.destination, item.state, item.progress.fraction ?? 0)
/// }
/// ```
public struct DownloadManagerItem: Sendable, Hashable, Identifiable {
    /// An item's identity: stable across restarts (it is stored in the catalogue).
    public struct ID: Sendable, Hashable, Comparable, CustomStringConvertible {
        /// The number, counting from 1 in the order items were added.
        public let rawValue: Int
        /// An identifier with the given number.
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static func < (left: ID, right: ID) -> Bool { left.rawValue < right.rawValue }
        public var description: String { "#\(rawValue)" }
    }

    /// Where an item is; each case says what comes next.
    public enum State: Sendable, Hashable {
        /// Waiting for a free slot (overall and for its host). Next: running, paused, cancelled.
        case queued
        /// Transferring. Next: completed, failed, paused, cancelled.
        case running
        /// Stopped by ``DownloadManager/pause(_:)``; the bytes so far are kept. Next: queued (resume).
        case paused
        /// Stopped by ``DownloadManager/cancel(_:)``; the bytes so far are kept, and the item is not
        /// started again unless resumed. Next: queued (resume).
        case cancelled
        /// Ended with `error`; the bytes so far are kept. `isRetryable` says whether trying again may help
        /// (a dropped connection, a timeout, a 503), as opposed to a 404 or a full disk. Next: queued.
        case failed(HTTPWireError, isRetryable: Bool)
        /// The file is complete at ``DownloadManagerItem/destination``: its size, and its SHA-256 when
        /// the download's options asked for one (it matched). Final, until removed.
        case completed(bytes: Int64, sha256: SHA256Digest?)
    }

    /// The item's identity.
    public let id: ID
    /// The URL as given.
    public let url: String
    /// The file the bytes go to.
    public let destination: String
    /// Higher runs first among queued items; equal priorities run in the order they were added.
    public let priority: Int
    /// Where the item is now.
    public internal(set) var state: State
    /// Bytes so far (kept from earlier runs included), the total when known, speed and time left.
    public internal(set) var progress: TransferProgress
}
