// CacheControl: the libFuzzer target for `Cache-Control` parsing (RFC 9111 §5.2), the field every response
// an `HTTPCache` considers carries from the server. Test tooling for the codec layer, built by
// Tests/Fuzz/fuzz.sh against HTTPWireCodec; not a SwiftPM target.
//
// An input is one or more field values, one per LF (a server may send the field several times). Properties:
// - every directive name is a non-empty lowercase token;
// - a `delta-seconds` reading is between 0 and 2^31 (RFC 9111 §1.2.2: never an overflow);
// - writing the directives back in the canonical form (arguments quoted, quoted-pairs for `"` and `\`) and
//   parsing that gives the same directives: nothing the parser returned depends on how it was spelled.
//
// fuzz-module: HTTPWireCodec
// fuzz-seeds: Fixtures/fuzz/CacheControl
// fuzz-max-len: 2048

@testable import HTTPWireCodec

/// libFuzzer calls this once per generated input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCacheControl(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    var fields = HTTPFields()
    for line in input.text.split(separator: "\n", omittingEmptySubsequences: false) {
        fields.append(name: "Cache-Control", value: String(line))
    }
    let parsed = CacheControl(fields)
    for directive in parsed.directives {
        FuzzCheck.expect(
            ByteClasses.isToken(directive.name) && directive.name == directive.name.lowercased(),
            "directive name \(directive.name.debugDescription)")
        if case .value(let seconds) = parsed.seconds(directive.name) {
            FuzzCheck.expect(
                seconds >= 0 && seconds <= CacheControl.maximumSeconds, "\(directive.name) = \(seconds)")
        }
    }
    let written = parsed.directives.map(canonical).joined(separator: ", ")
    let again = CacheControl(parsing: written)
    FuzzCheck.expect(
        again.directives == parsed.directives, "\(written.debugDescription) parses to \(again), not \(parsed)")
    return 0
}

/// `name` or `name="argument"`, with `"` and `\` escaped.
private func canonical(_ directive: CacheControl.Directive) -> String {
    guard let argument = directive.argument else { return directive.name }
    var quoted = "\""
    for scalar in argument.unicodeScalars {
        if scalar == "\"" || scalar == "\\" { quoted.unicodeScalars.append("\\") }
        quoted.unicodeScalars.append(scalar)
    }
    return directive.name + "=" + quoted + "\""
}
