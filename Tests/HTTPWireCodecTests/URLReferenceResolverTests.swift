// URLReferenceResolverTests: RFC 3986 §5.4 reference resolution examples, plus redirect-shaped cases.
//
// Expected values are the RFC's, adjusted for TargetURL's normalisation in two visible ways: the fragment
// is dropped (it is never sent), and an empty path is written "/" ("//g" gives "http://g/").

import HTTPWireCodec
import Testing

@Suite struct URLReferenceResolverTests {
    static let base = "http://a/b/c/d;p?q"

    /// RFC 3986 §5.4.1 Normal Examples (all but "g:h", which leaves http and is tested below).
    @Test(
        "RFC 3986 §5.4.1 normal examples",
        arguments: [
            ("g", "http://a/b/c/g"),
            ("./g", "http://a/b/c/g"),
            ("g/", "http://a/b/c/g/"),
            ("/g", "http://a/g"),
            ("//g", "http://g/"),
            ("?y", "http://a/b/c/d;p?y"),
            ("g?y", "http://a/b/c/g?y"),
            ("#s", "http://a/b/c/d;p?q"),
            ("g#s", "http://a/b/c/g"),
            ("g?y#s", "http://a/b/c/g?y"),
            (";x", "http://a/b/c/;x"),
            ("g;x", "http://a/b/c/g;x"),
            ("g;x?y#s", "http://a/b/c/g;x?y"),
            ("", "http://a/b/c/d;p?q"),
            (".", "http://a/b/c/"),
            ("./", "http://a/b/c/"),
            ("..", "http://a/b/"),
            ("../", "http://a/b/"),
            ("../g", "http://a/b/g"),
            ("../..", "http://a/"),
            ("../../", "http://a/"),
            ("../../g", "http://a/g"),
        ])
    func normalExamples(reference: String, expected: String) throws {
        #expect(try TargetURL(Self.base).resolving(reference).description == expected)
    }

    /// RFC 3986 §5.4.2 Abnormal Examples. "http:g" follows the non-strict reading (as browsers do).
    @Test(
        "RFC 3986 §5.4.2 abnormal examples",
        arguments: [
            ("../../../g", "http://a/g"),
            ("../../../../g", "http://a/g"),
            ("/./g", "http://a/g"),
            ("/../g", "http://a/g"),
            ("g.", "http://a/b/c/g."),
            (".g", "http://a/b/c/.g"),
            ("g..", "http://a/b/c/g.."),
            ("..g", "http://a/b/c/..g"),
            ("./../g", "http://a/b/g"),
            ("./g/.", "http://a/b/c/g/"),
            ("g/./h", "http://a/b/c/g/h"),
            ("g/../h", "http://a/b/c/h"),
            ("g;x=1/./y", "http://a/b/c/g;x=1/y"),
            ("g;x=1/../y", "http://a/b/c/y"),
            ("g?y/./x", "http://a/b/c/g?y/./x"),
            ("g?y/../x", "http://a/b/c/g?y/../x"),
            ("g#s/./x", "http://a/b/c/g"),
            ("g#s/../x", "http://a/b/c/g"),
            ("http:g", "http://a/b/c/g"),
        ])
    func abnormalExamples(reference: String, expected: String) throws {
        #expect(try TargetURL(Self.base).resolving(reference).description == expected)
    }

    @Test(
        "redirect Locations of every shape",
        arguments: [
            ("https://other.example:8443/x?y#z", "https://other.example:8443/x?y"),
            ("HTTPS://B.Example/", "https://b.example/"),
            ("//cdn.example/file", "https://cdn.example/file"),
            ("//cdn.example", "https://cdn.example/"),
            ("/login?next=/home", "https://a.example/login?next=/home"),
            ("next", "https://a.example/dir/next"),
            ("?page=2", "https://a.example/dir/page?page=2"),
            (
                "\u{4E0B}\u{8F7D}/\u{6587}\u{4EF6} 1.txt",
                "https://a.example/dir/%E4%B8%8B%E8%BD%BD/%E6%96%87%E4%BB%B6%201.txt"
            ),
            ("/caf\u{E9}?q=\u{E9} \u{E9}", "https://a.example/caf%C3%A9?q=%C3%A9%20%C3%A9"),
            ("/already%20encoded?x=%2B", "https://a.example/already%20encoded?x=%2B"),
            ("http://a.example:80/", "http://a.example/"),
        ])
    func redirects(reference: String, expected: String) throws {
        let base = try TargetURL("https://a.example/dir/page?old=1")
        #expect(try base.resolving(reference).description == expected)
    }

    @Test(
        "references that leave http or https are refused",
        arguments: [
            ("g:h", "unsupported scheme"),
            ("mailto:someone@example.com", "unsupported scheme"),
            ("ftp://files.example/x", "unsupported scheme"),
            ("https:relative", "missing host"),
            ("//us er@h/", "user name or password"),
            ("//bad host/", "invalid character"),
        ])
    func refused(reference: String, reasonWord: String) throws {
        let base = try TargetURL(Self.base)
        #expect {
            try base.resolving(reference)
        } throws: { error in
            guard case .invalidURL(let url, let reason) = error as? CodecError else { return false }
            // User information never appears in an error: it is replaced by `[redacted]`.
            return url == TargetURLTests.redacted(reference) && reason.contains(reasonWord)
        }
    }

    @Test("resolving an absolute URL gives the same value as parsing it")
    func absoluteMatchesParsing() throws {
        let text = "https://Example.com:443/a/./b/../c d?\u{E9}#f"
        #expect(try TargetURL("http://x/").resolving(text) == TargetURL(text))
    }
}
