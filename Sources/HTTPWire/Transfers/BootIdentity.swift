// BootIdentity: which boot of the machine this is — the kernel's random boot identifier, read once.
// Downloads layer: one read of a /proc file through the transport's `FileSystem`; no other I/O.
//
// A progress mark (`dest.part.mark`) counts bytes that were written to the part file but not yet flushed
// with fdatasync. Such bytes live in the kernel's page cache: they survive the death of the process that
// wrote them — `kill -9`, a crash, the out-of-memory killer — but not a power loss, a kernel panic or a
// reboot. The kernel draws a new random identifier at every boot (/proc/sys/kernel/random/boot_id), so a
// mark stamped with it can be trusted exactly while the identifier is unchanged: same boot, same page
// cache, nothing written was lost. After a reboot the mark is ignored and the fsynced record decides.

import HTTPWireCodec
import HTTPWireTransport

/// The identifier of the running boot.
///
/// ```swift
/// let mark = record.counting(written, bootID: BootIdentity.current)   // nil: no marks on this system
/// ```
enum BootIdentity {
    /// Where Linux publishes it: 36 characters, a random UUID drawn at boot.
    static let path = "/proc/sys/kernel/random/boot_id"

    /// The current boot's identifier; nil where it cannot be read (not Linux, /proc not mounted), in which
    /// case no mark is written or trusted and only fsynced records count. Read on first use, which happens
    /// on the blocking worker (the marks are written and read there).
    static let current: String? = {
        guard let bytes = try? FileSystem.contents(ofPath: path, limit: 64) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self).filter { $0 != "\n" }
        let isIdentifier =
            text.utf8.count == 36 && text.utf8.allSatisfy { ByteClasses.hexValue($0) != nil || $0 == 0x2D }
        return isIdentifier ? text : nil
    }()
}
