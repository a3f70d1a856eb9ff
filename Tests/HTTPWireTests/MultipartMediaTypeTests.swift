// MultipartMediaTypeTests: the extension table and the check that keeps bad Content-Type values off the wire.

import Testing

@testable import HTTPWire

@Suite struct MultipartMediaTypeTests {
    @Test(
        "file extensions map to their registered types",
        arguments: [
            ("photo.png", "image/png"), ("photo.JPG", "image/jpeg"), ("a.jpeg", "image/jpeg"), ("a.gif", "image/gif"),
            ("a.webp", "image/webp"), ("IMG_0001.HEIC", "image/heic"), ("a.svg", "image/svg+xml"),
            ("doc.pdf", "application/pdf"), ("data.json", "application/json"), ("notes.txt", "text/plain"),
            ("index.html", "text/html"), ("site.css", "text/css"), ("app.js", "text/javascript"),
            ("clip.mp4", "video/mp4"), ("song.mp3", "audio/mpeg"), ("a.zip", "application/zip"),
            ("backup.tar.gz", "application/gzip"), ("table.csv", "text/csv"), ("feed.xml", "application/xml"),
            ("module.wasm", "application/wasm"),
        ])
    func knownExtensions(fileName: String, expected: String) {
        #expect(MediaType.forFileName(fileName).value == expected)
    }

    @Test(
        "unknown or missing extensions fall back to application/octet-stream",
        arguments: ["README", ".bashrc", "archive.unknownext", "trailing.", ""])
    func unknownExtensions(fileName: String) {
        #expect(MediaType.forFileName(fileName) == MediaType.octetStream)
        #expect(MediaType.octetStream.value == "application/octet-stream")
    }

    @Test(
        "well-formed types are accepted as written",
        arguments: ["text/plain", "text/plain; charset=utf-8", "application/vnd.api+json", "image/svg+xml"])
    func validTypes(value: String) throws {
        let type = try #require(MediaType(value))
        #expect(type.value == value)
        #expect(type.description == value)
    }

    @Test(
        "types that could break a header or are not type/subtype are refused",
        arguments: [
            "text/plain\r\nX-Evil: 1", "text/plain; charset=\"a\nb\"", "text/plain\u{0}", "text", "/plain", "text/",
            "te xt/plain", "text/pl ain", "", "text/plain\u{7F}", "text/plain ", " text/plain",
        ])
    func invalidTypes(value: String) {
        #expect(MediaType(value) == nil)
    }
}
