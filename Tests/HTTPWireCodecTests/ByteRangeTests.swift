import HTTPWireCodec
import Testing

@Suite struct ByteRangeTests {
    @Test("formats the three range shapes as Range field values")
    func formats() throws {
        #expect(try #require(ByteRange(from: 0)).headerValue == "bytes=0-")
        #expect(try #require(ByteRange(from: 1_048_576)).headerValue == "bytes=1048576-")
        #expect(try #require(ByteRange(first: 10, last: 19)).headerValue == "bytes=10-19")
        #expect(try #require(ByteRange(first: 7, last: 7)).description == "bytes=7-7")
        #expect(try #require(ByteRange(suffixLength: 500)).headerValue == "bytes=-500")
    }

    @Test("refuses to build ranges that RFC 9110 §14.1.1 calls invalid")
    func refusesInvalidConstruction() {
        #expect(ByteRange(from: -1) == nil)
        #expect(ByteRange(first: 20, last: 19) == nil)
        #expect(ByteRange(first: -1, last: 5) == nil)
        #expect(ByteRange(suffixLength: -3) == nil)
    }

    @Test(
        "parses a single range",
        arguments: [
            ("bytes=500-", ByteRange.Bounds.from(first: 500)),
            ("bytes=0-499", .closed(first: 0, last: 499)),
            ("bytes=-500", .suffix(length: 500)),
            ("BYTES=5-5", .closed(first: 5, last: 5)),
            ("  bytes=1-2\t", .closed(first: 1, last: 2)),
            ("bytes=, 3-,", .from(first: 3)),
            ("bytes=9223372036854775807-", .from(first: Int64.max)),
        ])
    func parsesSingle(value: String, bounds: ByteRange.Bounds) throws {
        guard case .single(let range) = try ByteRange.parseField(value) else {
            Issue.record("\(value) was not parsed as one range")
            return
        }
        #expect(range.bounds == bounds)
    }

    @Test("round-trips formatted ranges through the parser")
    func roundTrips() throws {
        let ranges = [ByteRange(from: 42), ByteRange(first: 0, last: 0), ByteRange(suffixLength: 1)]
        for range in ranges {
            let range = try #require(range)
            #expect(try ByteRange.parseField(range.headerValue) == .single(range))
        }
    }

    @Test("reports multiple ranges so a server can ignore them")
    func multiple() throws {
        #expect(try ByteRange.parseField("bytes=0-9,20-29") == .multiple(count: 2))
        #expect(try ByteRange.parseField("bytes=0-0, -1 , 5-") == .multiple(count: 3))
    }

    @Test("reports other range units, which a server must ignore")
    func otherUnit() throws {
        #expect(try ByteRange.parseField("items=0-9") == .otherUnit("items"))
    }

    @Test(
        "rejects malformed Range values",
        arguments: [
            "", "bytes", "bytes=", "bytes=,", "bytes=-", "bytes=abc", "bytes=5", "bytes=10-5", "bytes=+1-2",
            "bytes=1-2-3", "bytes = 1-2", "bytes=1 -2", "bytes=- 5", "bytes=99999999999999999999-",
            "bytes=-99999999999999999999", "by tes=1-2", "bytes=0-1,x",
        ])
    func rejectsMalformed(value: String) {
        #expect(throws: CodecError.self) { try ByteRange.parseField(value) }
    }

    @Test("resolves ranges against a representation length (RFC 9110 §14.1.2)")
    func selection() throws {
        let from500 = try #require(ByteRange(from: 500))
        #expect(from500.selection(forLength: 1000) == .bytes(500...999))
        #expect(from500.selection(forLength: 500) == .unsatisfiable)
        #expect(from500.selection(forLength: 501) == .bytes(500...500))

        let closed = try #require(ByteRange(first: 100, last: 5000))
        #expect(closed.selection(forLength: 1000) == .bytes(100...999))
        #expect(closed.selection(forLength: 100) == .unsatisfiable)
        #expect(try #require(ByteRange(first: 0, last: 9)).selection(forLength: 1000) == .bytes(0...9))

        let suffix = try #require(ByteRange(suffixLength: 300))
        #expect(suffix.selection(forLength: 1000) == .bytes(700...999))
        #expect(suffix.selection(forLength: 200) == .bytes(0...199))
        #expect(suffix.selection(forLength: 0) == .emptyRepresentation)
        #expect(try #require(ByteRange(suffixLength: 0)).selection(forLength: 1000) == .unsatisfiable)
        #expect(try #require(ByteRange(from: 0)).selection(forLength: 0) == .unsatisfiable)
    }
}

@Suite struct ContentRangeTests {
    @Test("parses the three forms of RFC 9110 §14.4")
    func parses() throws {
        let known = try ContentRange(parsing: "bytes 100-199/1000")
        #expect(known.range == 100...199)
        #expect(known.completeLength == 1000)
        #expect(known.byteCount == 100)

        let unknown = try ContentRange(parsing: "bytes 100-199/*")
        #expect(unknown.range == 100...199)
        #expect(unknown.completeLength == nil)

        let unsatisfied = try ContentRange(parsing: "bytes */1000")
        #expect(unsatisfied.range == nil)
        #expect(unsatisfied.completeLength == 1000)
        #expect(unsatisfied.byteCount == 0)

        #expect(try ContentRange(parsing: "Bytes 0-0/1").range == 0...0)
        #expect(try ContentRange(parsing: "bytes */0").completeLength == 0)
    }

    @Test("formats what it parses")
    func roundTrips() throws {
        for value in ["bytes 100-199/1000", "bytes 0-0/*", "bytes */1000", "bytes 999-999/1000"] {
            #expect(try ContentRange(parsing: value).headerValue == value)
        }
        #expect(ContentRange(range: 0...9, completeLength: 10)?.description == "bytes 0-9/10")
        #expect(ContentRange(unsatisfiedCompleteLength: 7)?.headerValue == "bytes */7")
    }

    @Test(
        "rejects values that break the grammar or the ordering rules",
        arguments: [
            "", "bytes", "bytes ", "bytes 100-199", "bytes 100-199/", "bytes 200-100/1000",
            "bytes 100-199/199", "bytes 100-199/150", "bytes */*", "bytes 100-/1000", "bytes -199/1000",
            "bytes=100-199/1000", "items 1-2/3", "bytes  100-199/1000", "bytes 100 - 199/1000",
            "bytes 1-2/3/4", "bytes -1-2/3", "bytes 0-99999999999999999999/*", "bytes */-1", "bytes 1-2/+3",
            "bytes 0-9223372036854775807/*", "bytes 9223372036854775807-9223372036854775807/*",
        ])
    func rejects(value: String) {
        #expect(throws: CodecError.self) { try ContentRange(parsing: value) }
    }

    @Test("refuses to build invalid ranges")
    func refusesInvalidConstruction() {
        #expect(ContentRange(range: 0...9, completeLength: 9) == nil)
        #expect(ContentRange(range: -1...9, completeLength: nil) == nil)
        #expect(ContentRange(unsatisfiedCompleteLength: -1) == nil)
        // RFC 9110 §14.4: the complete length is at least last + 1, which must fit in an Int64.
        #expect(ContentRange(range: 0...Int64.max, completeLength: nil) == nil)
        #expect(ContentRange(range: 0...(Int64.max - 1), completeLength: nil)?.byteCount == Int64.max)
    }

    @Test("names the bad value in the error")
    func errorText() {
        #expect(throws: CodecError.invalidContentRange(preview: "bytes 5-4/10")) {
            try ContentRange(parsing: "bytes 5-4/10")
        }
        #expect(CodecError.invalidRange(preview: "x").description == "invalid range: \"x\"")
    }
}
