import Testing

@testable import HTTPWire

@Suite struct ContentDispositionTests {
    @Test(
        "reads the suggested name (RFC 6266 §4.1, RFC 8187)",
        arguments: [
            ("attachment; filename=report.pdf", "report.pdf"),
            ("attachment; filename=\"annual report.pdf\"", "annual report.pdf"),
            ("attachment; filename=\"a\\\"b\\\\c.txt\"", "a\"b\\c.txt"),
            ("ATTACHMENT; FILENAME=Upper.txt", "Upper.txt"),
            ("attachment;filename=tight.txt;", "tight.txt"),
            ("inline; filename=my file.txt ; size=3", "my file.txt"),
            ("attachment; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf", "résumé.pdf"),
            ("attachment; filename*=utf-8'en'%E2%82%AC%20rates.txt", "€ rates.txt"),
            ("attachment; filename*=iso-8859-1''caf%E9.txt", "café.txt"),
            ("attachment; filename=\"fallback.txt\"; filename*=UTF-8''preferred.txt", "preferred.txt"),
            ("attachment; filename*=UTF-8''preferred.txt; filename=\"fallback.txt\"", "preferred.txt"),
            ("attachment; filename*=KOI8-R''%F0.txt; filename=plain.txt", "plain.txt"),
            ("attachment; filename*=UTF-8''%FF%FE.txt; filename=plain.txt", "plain.txt"),
            ("attachment; filename*=UTF-8''bad%2.txt; filename=plain.txt", "plain.txt"),
            ("attachment; filename=first.txt; filename=second.txt", "first.txt"),
        ])
    func parses(value: String, expected: String) throws {
        let disposition = try #require(ContentDisposition(parsing: value))
        #expect(disposition.fileName == expected)
    }

    @Test("reads the type and tolerates a missing name")
    func typeOnly() throws {
        let disposition = try #require(ContentDisposition(parsing: " Inline "))
        #expect(disposition.type == "inline")
        #expect(disposition.fileName == nil)
    }

    @Test(
        "refuses malformed field values",
        arguments: [
            "", "; filename=a", "attachment; filename=\"open", "attachment filename=a", "attachment; =a",
            "attachment; filename",
        ])
    func refuses(value: String) {
        #expect(ContentDisposition(parsing: value) == nil)
    }

    @Test(
        "sanitised names never leave the destination directory",
        arguments: [
            ("../../etc/passwd", "passwd"),
            ("/etc/passwd", "passwd"),
            ("..\\..\\windows\\system32\\evil.dll", "evil.dll"),
            ("C:\\Users\\me\\report.pdf", "report.pdf"),
            ("dir/../../x.txt", "x.txt"),
            (".bashrc", "bashrc"),
            ("...hidden", "hidden"),
            ("  spaced.txt  ", "spaced.txt"),
            ("evil.txt\u{0}.exe", "evil.txt_.exe"),
            ("bell\u{7}\u{1B}[31mred", "bell__[31mred"),
            ("photo\u{202E}gpj.exe", "photo_gpj.exe"),
            ("naïve café.txt", "naïve café.txt"),
        ])
    func sanitises(name: String, expected: String) {
        let safe = ContentDisposition.sanitizedFileName(name)
        #expect(safe == expected)
        #expect(safe.map { !$0.contains("/") && !$0.contains("\\") && !$0.hasPrefix(".") } == true)
    }

    @Test("names with nothing usable left are refused", arguments: ["", "..", ".", "/", "a/", "../..", "dir\\", " . "])
    func nothingLeft(name: String) {
        #expect(ContentDisposition.sanitizedFileName(name) == nil)
    }

    @Test("percent-encoded slashes in filename* are decoded, then stripped")
    func encodedTraversal() {
        let value = "attachment; filename*=UTF-8''..%2F..%2F.ssh%2Fauthorized_keys"
        #expect(ContentDisposition(parsing: value)?.fileName == "../../.ssh/authorized_keys")
        #expect(ContentDisposition.downloadFileName(fieldValue: value, urlLastPathSegment: nil) == "authorized_keys")
        let backslashes = "attachment; filename*=UTF-8''..%5C..%5Cboot.ini"
        #expect(ContentDisposition.downloadFileName(fieldValue: backslashes, urlLastPathSegment: nil) == "boot.ini")
        let nul = "attachment; filename*=UTF-8''a%00b.txt"
        #expect(ContentDisposition.downloadFileName(fieldValue: nul, urlLastPathSegment: nil) == "a_b.txt")
    }

    @Test("long names are cut to 255 UTF-8 bytes, keeping the extension and whole characters")
    func truncates() throws {
        let long = String(repeating: "é", count: 300) + ".tar.gz"
        let safe = try #require(ContentDisposition.sanitizedFileName(long))
        #expect(safe.utf8.count <= ContentDisposition.maxFileNameBytes)
        #expect(safe.utf8.count >= ContentDisposition.maxFileNameBytes - 1)
        #expect(safe.hasSuffix("é.gz"))
        let noExtension = String(repeating: "x", count: 400)
        #expect(ContentDisposition.sanitizedFileName(noExtension) == String(repeating: "x", count: 255))
    }

    @Test("falls back to the URL's last segment, then to \"download\"")
    func fallbacks() {
        #expect(ContentDisposition.downloadFileName(fieldValue: nil, urlLastPathSegment: "file.zip") == "file.zip")
        #expect(
            ContentDisposition.downloadFileName(fieldValue: "attachment", urlLastPathSegment: "file.zip") == "file.zip")
        #expect(
            ContentDisposition.downloadFileName(fieldValue: "attachment; filename=..", urlLastPathSegment: "a.zip")
                == "a.zip")
        #expect(ContentDisposition.downloadFileName(fieldValue: "garbage;;", urlLastPathSegment: "../b.zip") == "b.zip")
        #expect(ContentDisposition.downloadFileName(fieldValue: nil, urlLastPathSegment: nil) == "download")
        #expect(ContentDisposition.downloadFileName(fieldValue: nil, urlLastPathSegment: "") == "download")
        #expect(
            ContentDisposition.downloadFileName(fieldValue: "attachment; filename=x.pdf", urlLastPathSegment: "y")
                == "x.pdf")
    }
}
