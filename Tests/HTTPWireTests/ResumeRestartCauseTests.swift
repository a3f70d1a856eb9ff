// ResumeRestartCauseTests: every reason a download starts over reads as its own sentence, with the figures
// it carries, never as the enum's structure.

import Testing

@testable import HTTPWire

@Suite struct ResumeRestartCauseTests {
    static let causes: [ResumeRestartCause] = [
        .requested,
        .notResumable(.noPartialFile), .notResumable(.noRecord), .notResumable(.differentURL),
        .notResumable(.nothingCommitted),
        .notResumable(.partialFileTooShort(committedBytes: 4096, partialFileSize: 1024)),
        .notResumable(.noValidator), .notResumable(.methodNotResumable),
        .serverAnswer(.rangeIgnored), .serverAnswer(.representationChanged),
        .serverAnswer(.unexpectedRangeStart(expected: 100, received: 0)),
        .serverAnswer(.lengthChanged(expected: 10, received: 20)),
        .serverAnswer(.notSatisfiable(completeLength: 77)), .serverAnswer(.notSatisfiable(completeLength: nil)),
    ]

    @Test("each cause has a sentence of its own, not the enum's structure")
    func distinctSentences() {
        let texts = Self.causes.map { "\($0)" }
        #expect(Set(texts).count == texts.count, "\(texts)")
        for text in texts {
            #expect(!text.contains("ResumeRestartCause") && !text.contains("(."), "\(text)")
            #expect(text.first?.isLowercase == true, "a sentence to follow a colon: \(text)")
        }
    }

    @Test("the figures a cause carries are in its sentence")
    func figures() {
        #expect(
            "\(ResumeRestartCause.serverAnswer(.lengthChanged(expected: 10, received: 20)))"
                == "the file's length changed from 10 to 20 bytes")
        #expect(
            "\(ResumeRestartCause.serverAnswer(.unexpectedRangeStart(expected: 100, received: 0)))"
                == "the server answered from byte 0 instead of 100")
        let tooShort = ResumeRestartCause.notResumable(
            .partialFileTooShort(committedBytes: 4096, partialFileSize: 1024))
        #expect("\(tooShort)".contains("1024 bytes") && "\(tooShort)".contains("4096"))
        #expect("\(ResumeRestartCause.serverAnswer(.notSatisfiable(completeLength: 77)))".contains("77 bytes"))
        #expect("\(ResumeRestartCause.serverAnswer(.rangeIgnored))".contains("whole file"))
    }
}
