import HTTPWireCodec
import Testing

@testable import HTTPWire

@Suite struct ResumePlanTests {
    static let url = "https://example.test/big.iso"
    static let date = "Tue, 15 Nov 1994 08:12:31 GMT"

    static func record(
        entityTag: String? = "\"v7\"", lastModified: String? = nil, expectedLength: Int64? = 1000,
        committedBytes: Int64 = 400, url: String = url
    ) -> ResumeRecord {
        ResumeRecord(
            url: url, entityTag: entityTag, lastModified: lastModified, expectedLength: expectedLength,
            committedBytes: committedBytes)
    }

    // MARK: The request

    @Test("resumes with Range and a strong ETag in If-Range")
    func strongEntityTag() {
        let plan = ResumePlan(url: Self.url, record: Self.record(lastModified: Self.date), partialFileSize: 450)
        #expect(plan.start == .resume(offset: 400))
        #expect(plan.offset == 400)
        #expect(plan.requestFields["Range"] == "bytes=400-")
        #expect(plan.requestFields["If-Range"] == "\"v7\"")
        #expect(plan.requestFields.count == 2)
    }

    @Test("uses Last-Modified in If-Range only when there is no entity tag")
    func lastModifiedFallback() {
        let plan = ResumePlan(
            url: Self.url, record: Self.record(entityTag: nil, lastModified: Self.date), partialFileSize: 400)
        #expect(plan.start == .resume(offset: 400))
        #expect(plan.requestFields["If-Range"] == Self.date)
    }

    @Test("never sends a weak ETag, nor a date beside one (RFC 9110 §13.1.5)")
    func weakEntityTag() {
        let weak = Self.record(entityTag: "W/\"v7\"", lastModified: Self.date)
        let strict = ResumePlan(url: Self.url, record: weak, partialFileSize: 400)
        #expect(strict.start == .fresh(.noValidator))
        #expect(strict.requestFields.isEmpty)

        let lenient = ResumePlan(url: Self.url, record: weak, partialFileSize: 400, requiresValidator: false)
        #expect(lenient.start == .resume(offset: 400))
        #expect(lenient.requestFields["Range"] == "bytes=400-")
        #expect(lenient.requestFields["If-Range"] == nil)
    }

    @Test("a record without validators resumes only when allowed")
    func noValidators() {
        let bare = Self.record(entityTag: nil, lastModified: nil)
        #expect(ResumePlan(url: Self.url, record: bare, partialFileSize: 400).start == .fresh(.noValidator))
        let lenient = ResumePlan(url: Self.url, record: bare, partialFileSize: 400, requiresValidator: false)
        #expect(lenient.requestFields.map(\.name) == ["Range"])
    }

    @Test("starts fresh, without Range, when the disk gives nothing to build on")
    func freshStarts() {
        let cases: [(ResumeRecord?, Int64?, ResumePlan.FreshReason)] = [
            (Self.record(), nil, .noPartialFile),
            (nil, 400, .noRecord),
            (Self.record(url: "https://example.test/other.iso"), 400, .differentURL),
            (Self.record(committedBytes: 0), 400, .nothingCommitted),
            (Self.record(), 399, .partialFileTooShort(committedBytes: 400, partialFileSize: 399)),
            (Self.record(entityTag: "\"unterminated"), 400, .noValidator),
        ]
        for (record, size, reason) in cases {
            let plan = ResumePlan(url: Self.url, record: record, partialFileSize: size)
            #expect(plan.start == .fresh(reason))
            #expect(plan.requestFields.isEmpty)
            #expect(plan.offset == 0)
            #expect(plan.record == nil)
        }
    }

    // MARK: The answer to a resume request

    var resume: ResumePlan { ResumePlan(url: Self.url, record: Self.record(), partialFileSize: 400) }

    @Test("206 starting at the offset appends, with the complete length")
    func appends() {
        #expect(
            resume.decision(status: 206, fields: ["Content-Range": "bytes 400-999/1000", "ETag": "\"v7\""])
                == .append(offset: 400, range: 400...999, completeLength: 1000))
        // Unknown complete length: the record's expected length stands in.
        #expect(
            resume.decision(status: 206, fields: ["Content-Range": "bytes 400-499/*"])
                == .append(offset: 400, range: 400...499, completeLength: 1000))
    }

    @Test("206 starting anywhere else is never spliced")
    func wrongStart() {
        for start in [0, 399, 401] {
            #expect(
                resume.decision(status: 206, fields: ["Content-Range": "bytes \(start)-999/1000"])
                    == .restartWithoutRange(.unexpectedRangeStart(expected: 400, received: Int64(start))))
        }
    }

    @Test("206 with a different length or validator starts over")
    func changedRepresentation() {
        #expect(
            resume.decision(status: 206, fields: ["Content-Range": "bytes 400-1999/2000"])
                == .restartWithoutRange(.lengthChanged(expected: 1000, received: 2000)))
        #expect(
            resume.decision(status: 206, fields: ["Content-Range": "bytes 400-1999/*"])
                == .restartWithoutRange(.lengthChanged(expected: 1000, received: 2000)))
        #expect(
            resume.decision(status: 206, fields: ["Content-Range": "bytes 400-999/1000", "ETag": "\"v8\""])
                == .restartWithoutRange(.representationChanged))
        // The record's tag is strong: a weak tag in the answer fails strong comparison.
        #expect(
            resume.decision(status: 206, fields: ["Content-Range": "bytes 400-999/1000", "ETag": "W/\"v7\""])
                == .restartWithoutRange(.representationChanged))
        let dated = ResumePlan(
            url: Self.url, record: Self.record(entityTag: nil, lastModified: Self.date), partialFileSize: 400)
        #expect(
            dated.decision(
                status: 206,
                fields: ["Content-Range": "bytes 400-999/1000", "Last-Modified": "Wed, 16 Nov 1994 08:12:31 GMT"])
                == .restartWithoutRange(.representationChanged))
        #expect(
            dated.decision(status: 206, fields: ["Content-Range": "bytes 400-999/1000", "Last-Modified": Self.date])
                == .append(offset: 400, range: 400...999, completeLength: 1000))
    }

    @Test("a weak recorded tag is compared weakly when resuming without If-Range")
    func weakComparison() {
        let plan = ResumePlan(
            url: Self.url, record: Self.record(entityTag: "W/\"v7\""), partialFileSize: 400, requiresValidator: false)
        #expect(
            plan.decision(status: 206, fields: ["Content-Range": "bytes 400-999/1000", "ETag": "\"v7\""])
                == .append(offset: 400, range: 400...999, completeLength: 1000))
        #expect(
            plan.decision(status: 206, fields: ["Content-Range": "bytes 400-999/1000", "ETag": "W/\"v9\""])
                == .restartWithoutRange(.representationChanged))
    }

    @Test("206 without a valid Content-Range fails as malformed", arguments: [nil, "", "bytes */1000", "bytes 9-1/10"])
    func missingContentRange(value: String?) {
        var fields = HTTPFields()
        if let value { fields.append(name: "Content-Range", value: value) }
        guard case .fail(.malformedResponse(.invalidContentRange)) = resume.decision(status: 206, fields: fields) else {
            Issue.record("206 with Content-Range \(String(describing: value)) was not refused")
            return
        }
    }

    @Test("200 to a range request rewrites the file from the start")
    func fullResponse() {
        #expect(
            resume.decision(status: 200, fields: ["Content-Length": "1000"]) == .writeFromStart(reason: .rangeIgnored))
    }

    @Test("416 completes only when the server's length equals the bytes on disk")
    func notSatisfiable() {
        let done = ResumePlan(url: Self.url, record: Self.record(committedBytes: 1000), partialFileSize: 1000)
        #expect(done.decision(status: 416, fields: ["Content-Range": "bytes */1000"]) == .complete(length: 1000))
        #expect(
            done.decision(status: 416, fields: ["Content-Range": "bytes */1200"])
                == .restartWithoutRange(.notSatisfiable(completeLength: 1200)))
        #expect(done.decision(status: 416, fields: [:]) == .restartWithoutRange(.notSatisfiable(completeLength: nil)))
        #expect(
            done.decision(status: 416, fields: ["Content-Range": "bytes 0-9/1000"])
                == .restartWithoutRange(.notSatisfiable(completeLength: nil)))
        // Sizes agree with the disk but not with the record: the file changed, do not call it complete.
        let stale = ResumePlan(
            url: Self.url, record: Self.record(expectedLength: 2000, committedBytes: 1000), partialFileSize: 1000)
        #expect(
            stale.decision(status: 416, fields: ["Content-Range": "bytes */1000"])
                == .restartWithoutRange(.notSatisfiable(completeLength: 1000)))
        #expect(
            resume.decision(status: 416, fields: ["Content-Range": "bytes */400"])
                == .restartWithoutRange(.notSatisfiable(completeLength: 400)))
    }

    @Test("other statuses fail with the status", arguments: [204, 301, 304, 400, 403, 404, 412, 500, 503])
    func otherStatuses(status: Int) {
        #expect(resume.decision(status: status, fields: [:]) == .fail(.httpStatus(status)))
    }

    // MARK: The answer to a fresh request

    @Test("a fresh request takes 200, fails on 416 and on a 206 it did not ask for")
    func freshAnswers() {
        let plan = ResumePlan(url: Self.url, record: nil, partialFileSize: nil)
        #expect(plan.decision(status: 200, fields: [:]) == .writeFromStart(reason: nil))
        #expect(plan.decision(status: 416, fields: ["Content-Range": "bytes */0"]) == .fail(.httpStatus(416)))
        #expect(
            plan.decision(status: 206, fields: ["Content-Range": "bytes 0-9/10"])
                == .append(offset: 0, range: 0...9, completeLength: 10))
        guard case .fail(.malformedResponse) = plan.decision(status: 206, fields: ["Content-Range": "bytes 5-9/10"])
        else {
            Issue.record("an unrequested 206 from byte 5 was accepted")
            return
        }
    }
}
