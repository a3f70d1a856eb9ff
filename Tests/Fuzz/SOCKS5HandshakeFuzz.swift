// SOCKS5HandshakeFuzz: the libFuzzer entry point for the SOCKS5 handshake's reply parsing.
// Test tooling for the transport layer. Not a SwiftPM target: Tests/Fuzz/run-socks5-fuzz.sh compiles this
// file together with Sources/HTTPWireTransport/SOCKS5Handshake.swift and TransportError.swift into one
// module, so the machine is used without an import.
//
// Each input is a byte stream a proxy might send after the client's greeting: the method choice, maybe an
// RFC 1929 status, the CONNECT reply. Its first byte picks the client's side (credentials or not, a name or
// an address). The stream is fed twice — in the largest pieces the machine asks for, and one byte at a time
// — and both runs must end the same way: established after the same number of bytes, or the same error.
// Besides "no crash, no sanitizer report": the machine never asks for more bytes than one answer can hold
// (2, or 4 + 1 + 255 + 2 for a reply), never reads past the end of the handshake, ends on end of stream, and
// fails only with the three SOCKS cases of TransportError.

import Glibc

/// How one run ended.
enum SOCKS5FuzzOutcome: Equatable {
    case established(consumed: Int)
    case failed(TransportError)
}

/// libFuzzer calls this once per generated input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSOCKS5Handshake(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    guard let selector = input.first else { return 0 }
    let answers = Array(input.dropFirst())
    let destination: SOCKS5Handshake.Destination
    switch selector % 3 {
    case 0: destination = .name("origin.test")
    case 1: destination = .ipv4([127, 0, 0, 1])
    default: destination = .ipv6([UInt8](repeating: 0, count: 15) + [1])
    }
    let credentials = selector & 0x80 != 0 ? (user: "alice", password: "s3cret") : nil
    let whole = SOCKS5HandshakeFuzz.run(answers, destination: destination, credentials: credentials, piece: .max)
    let bytewise = SOCKS5HandshakeFuzz.run(answers, destination: destination, credentials: credentials, piece: 1)
    if whole != bytewise {
        SOCKS5HandshakeFuzz.fail("whole \(whole) but byte by byte \(bytewise) for \(answers)")
    }
    return 0
}

enum SOCKS5HandshakeFuzz {
    /// The most bytes one answer may need: a reply with a 255-byte name (RFC 1928 §6).
    static let largestAnswer = 4 + 1 + 255 + 2

    static func run(
        _ answers: [UInt8], destination: SOCKS5Handshake.Destination, credentials: (user: String, password: String)?,
        piece: Int
    ) -> SOCKS5FuzzOutcome {
        var handshake: SOCKS5Handshake
        do {
            handshake = try SOCKS5Handshake(destination: destination, port: 443, credentials: credentials)
        } catch {
            fail("the handshake refused a valid destination: \(error)")
        }
        var action = handshake.start()
        var consumed = 0
        while true {
            let asked: Int
            switch action {
            case .send(_, let count): asked = count
            case .receive(let count): asked = count
            case .established: return .established(consumed: consumed)
            }
            guard asked > 0, asked <= largestAnswer else { fail("asked for \(asked) bytes") }
            let count = min(asked, piece, answers.count - consumed)
            let bytes = answers[consumed..<consumed + count]
            consumed += count
            do {
                action = try handshake.bytesReceived(bytes)
            } catch {
                switch error {
                case .socksHandshakeFailed, .socksAuthenticationFailed, .socksConnectFailed:
                    return .failed(error)
                default:
                    fail("a failure that is not a SOCKS one: \(error)")
                }
            }
            if count == 0 { fail("the handshake went on after the end of the stream") }
        }
    }

    static func fail(_ message: String) -> Never {
        fputs("SOCKS5HandshakeFuzz: \(message)\n", stderr)
        abort()
    }
}
