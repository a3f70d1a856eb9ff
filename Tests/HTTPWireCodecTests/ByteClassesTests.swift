import HTTPWireCodec
import Testing

@Suite struct ByteClassesTests {
    @Test("token bytes follow RFC 9110 §5.6.2")
    func tokens() {
        #expect(ByteClasses.isToken("Content-Type"))
        #expect(ByteClasses.isToken("!#$%&'*+-.^_`|~09azAZ"))
        #expect(!ByteClasses.isToken(""))
        #expect(!ByteClasses.isToken("Bad Name"))
        #expect(!ByteClasses.isToken("Bad:Name"))
        #expect(!ByteClasses.isToken("Bad\r\nName"))
    }

    @Test("field values refuse CR, LF, NUL and DEL but allow obs-text")
    func fieldValues() {
        for byte: UInt8 in [0x00, 0x0A, 0x0D, 0x7F, 0x01] { #expect(!ByteClasses.isFieldValueByte(byte)) }
        for byte: UInt8 in [0x20, 0x09, 0x41, 0x80, 0xFF] { #expect(ByteClasses.isFieldValueByte(byte)) }
    }

    @Test("previews escape control bytes and cut long input")
    func previews() {
        #expect(ByteClasses.escapedPreview([0x16, 0x03, 0x01, 0x0D, 0x0A]) == "\\x16\\x03\\x01\\r\\n")
        #expect(ByteClasses.escapedPreview(Array("abcdef".utf8), limit: 3) == "abc...")
    }
}

@Suite struct HTTPFieldsTests {
    @Test("lookup is case-insensitive and keeps order and duplicates")
    func lookup() {
        var fields: HTTPFields = ["Set-Cookie": "a=1", "Content-Type": "text/plain"]
        fields.append(name: "set-cookie", value: "b=2")
        #expect(fields["content-type"] == "text/plain")
        #expect(fields.values(for: "SET-COOKIE") == ["a=1", "b=2"])
        fields["Set-Cookie"] = "c=3"
        #expect(fields.values(for: "set-cookie") == ["c=3"])
        #expect(fields.map(\.name) == ["Set-Cookie", "Content-Type"])
        fields["set-cookie"] = nil
        #expect(!fields.contains("Set-Cookie"))
    }

    @Test("list tokens are split, trimmed and lowercased")
    func tokens() {
        let fields: HTTPFields = ["Connection": " Keep-Alive , ,Upgrade", "connection": "close"]
        #expect(fields.tokens(for: "Connection") == ["keep-alive", "upgrade", "close"])
    }
}
