// CacheEntryFile: one stored response as a file of a persistent `HTTPCache` — the text written, and the
// strict reading of it (client layer, cache). Pure: bytes in, bytes out; `HTTPCache+Disk` does the I/O.
//
// The file is a few `key: value` lines a person can read, an empty line, then the body exactly:
//
//     httpwire-cache 1
//     url: https://api.example.test/catalogue
//     status: 200
//     reason: OK
//     version: HTTP/1.1
//     request-time: 1781000000
//     response-time: 1781000001
//     vary: accept: application/json         (a field Vary named, and the request's value)
//     vary: accept-language                  (one the request did not carry)
//     field: Content-Type: application/json
//     field: ETag: "v7"
//     body: 20
//
//     {"items": [1, 2, 3]}
//
// Every value came from a parsed message, so none holds CR or LF and one line each is enough. Reading is
// strict and never traps: a file that is not exactly this (a crash cut it short, a disk flipped a byte,
// another program wrote it) is not a response, and the cache deletes it and asks the server again.

import HTTPWireCodec

extension CachedResponse {
    /// The first line of every entry file; another version is not read.
    static let fileMagic = "httpwire-cache 1"

    /// The entry file's bytes.
    func encodedFile() -> [UInt8] {
        var text = Self.fileMagic + "\n"
        text += "url: \(url.description)\nstatus: \(status.rawValue)\nreason: \(reason)\nversion: \(version)\n"
        text += "request-time: \(requestTime)\nresponse-time: \(responseTime)\n"
        for field in selectingFields { text += "vary: \(field.name)" + (field.value.map { ": " + $0 } ?? "") + "\n" }
        for field in fields { text += "field: \(field.name): \(field.value)\n" }
        text += "body: \(body.count)\n\n"
        return Array(text.utf8) + body
    }

    /// The response an entry file holds, or nil when the bytes are not exactly an entry file.
    static func decodeFile(_ bytes: [UInt8]) -> CachedResponse? {
        // Every text this file writes is valid UTF-8 (the codec reads obs-text as U+FFFD), so invalid
        // UTF-8 is damage; read leniently, it would come back as other bytes (found by the fuzzer).
        guard let blank = headEnd(bytes), let head = String(validating: bytes[..<blank], as: UTF8.self) else {
            return nil
        }
        var lines = head.split(separator: "\n", omittingEmptySubsequences: false)[...]
        guard lines.popFirst() == Substring(fileMagic) else { return nil }
        func value(_ key: String) -> String? {
            guard let line = lines.first, line.hasPrefix(key + ": ") else { return nil }
            lines.removeFirst()
            return String(line.dropFirst(key.count + 2))
        }
        guard let urlText = value("url"), let url = try? TargetURL(urlText), url.description == urlText,
            let status = value("status").flatMap(decimal), (100...999).contains(status),
            let reason = value("reason"), !reason.utf8.contains(13), let versionText = value("version"),
            let version = [HTTPVersion.http1_1, .http1_0].first(where: { $0.description == versionText }),
            let requestTime = value("request-time").flatMap(decimal), requestTime <= HTTPDate.lastSecondOfYear9999,
            let responseTime = value("response-time").flatMap(decimal), responseTime <= HTTPDate.lastSecondOfYear9999
        else { return nil }  // a time past year 9999 is damage, and would overflow the age arithmetic
        var selecting: [(name: String, value: String?)] = []
        while let line = value("vary") {
            let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            let fieldValue = parts.count == 2 ? String(parts[1].dropFirst()) : nil
            guard parts.count == 1 || parts[1].hasPrefix(" "),
                (try? RequestEncoder.validate(HTTPField(name: name, value: fieldValue ?? ""))) != nil
            else {
                return nil
            }
            selecting.append((name, fieldValue))
        }
        var fields = HTTPFields()
        while let line = value("field") {
            guard let colon = line.firstIndex(of: ":"), line[colon...].hasPrefix(": ") else { return nil }
            fields.append(name: String(line[..<colon]), value: String(line[line.index(colon, offsetBy: 2)...]))
        }
        guard (try? RequestEncoder.validateSyntax(fields)) != nil,
            let count = value("body").flatMap(decimal), lines.isEmpty, count == Int64(bytes.count - blank - 2)
        else { return nil }
        return CachedResponse(
            status: Status(rawValue: Int(status)), reason: reason, version: version, fields: fields,
            body: Array(bytes[(blank + 2)...]), url: url, selectingFields: selecting, requestTime: requestTime,
            responseTime: responseTime)
    }

    /// A non-negative decimal written the one way `encodedFile` writes it (no sign, no leading zero).
    private static func decimal(_ text: String) -> Int64? {
        guard let number = Int64(text), number >= 0, String(number) == text else { return nil }
        return number
    }

    /// Where the head's empty line starts: the index of the first `\n\n`.
    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        var index = 0
        while index + 1 < bytes.count {
            if bytes[index] == 0x0A, bytes[index + 1] == 0x0A { return index }
            index += 1
        }
        return nil
    }
}
