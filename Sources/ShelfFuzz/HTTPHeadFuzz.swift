import Foundation

import ShelfCore

/// The response-head parser libcurl's header lines go through, and the `Content-Range` the downloader reads.
enum HTTPHeadFuzz {
    static func head(_ data: Data) {
        var head = ResponseHead()
        var start = data.startIndex
        while start < data.endIndex {
            let end = data[start...].firstIndex(of: UInt8(ascii: "\n")).map { data.index(after: $0) } ?? data.endIndex
            let line = head.take(data[start..<end])
            switch line {
            case .status(let status):
                require(head.headers.isEmpty, "a status line kept the previous response's fields")
                require(status == head.status, "the status line said \(status), the head keeps \(head.status)")
            case .field(let name, let value):
                require(name == name.lowercased(), "the field name \(name.debugDescription) is not lower-cased")
                require(!name.contains(":"), "the field name \(name.debugDescription) holds a colon")
                require(value == value.trimmingCharacters(in: .whitespacesAndNewlines),
                        "the value \(value.debugDescription) is not trimmed")
                require(head.headers[name] != nil, "the field \(name.debugDescription) was not kept")
            case .other:
                break
            }
            start = end
        }
        if let range = head.contentRange {
            if let total = range.total { require(total >= 0, "Content-Range total \(total) is negative") }
            if let first = range.first, let last = range.last {
                require(0 <= first && first <= last, "Content-Range \(first)-\(last) is not a range")
                if let total = range.total { require(last < total, "Content-Range ends at \(last), past its total \(total)") }
            }
        }
        for (name, value) in head.headers {
            if name == "www-authenticate" { _ = HTTPChallenge.parse(value) }
            if name == "retry-after", let wait = RetryPolicy.retryAfter(value) {
                require(wait.isFinite && wait >= 0, "Retry-After \(value.debugDescription) gave a wait of \(wait) s")
            }
        }
    }
}
