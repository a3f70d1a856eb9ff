// ReceivedBytes: the bytes a decoder has been fed and not yet consumed, and whether the peer has closed.
// Codec layer: a value type shared by ResponseDecoder and RequestDecoder; no I/O.
//
// Feeding keeps the caller's bytes by reference (an ArraySlice of their array) whenever nothing is waiting,
// so body events can be slices of the caller's own buffer: no copy on the hot path. Only a line split across
// two feeds is copied together. Once everything is consumed the reference is dropped, so a transport that
// reads into one reusable array never pays a copy-on-write on its next read.

/// Received, not yet decoded bytes plus the end-of-stream flag.
struct ReceivedBytes: Sendable {
    /// The bytes waiting to be decoded.
    var bytes: ArraySlice<UInt8> = []
    /// True once an empty feed said the peer closed.
    private(set) var isEndOfStream = false

    /// Adds fed bytes; an empty slice marks the end of the stream. Feeding after the end is a programming
    /// error of the caller.
    mutating func feed(_ newBytes: ArraySlice<UInt8>) {
        guard !newBytes.isEmpty else {
            isEndOfStream = true
            return
        }
        precondition(!isEndOfStream, "bytes fed after the end of the stream")
        if bytes.isEmpty {
            bytes = newBytes  // no copy: body slices will be slices of the caller's bytes
        } else {
            bytes.append(contentsOf: newBytes)
        }
    }

    /// Moves bytes still waiting into storage of their own (dropping the reference to the caller's buffer
    /// either way), so the caller may write to that buffer again without a copy-on-write.
    mutating func detach() {
        guard !bytes.isEmpty else {
            bytes = []
            return
        }
        // Appended, not `Array(bytes)`: that shares the storage when the slice spans the whole array.
        var own: [UInt8] = []
        own.reserveCapacity(bytes.count)
        own.append(contentsOf: bytes)
        bytes = own[...]
    }

    /// Drops the reference to the caller's buffer once it is used up.
    mutating func releaseIfConsumed() {
        if bytes.isEmpty { bytes = [] }
    }
}
