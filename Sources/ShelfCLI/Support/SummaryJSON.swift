import Foundation
import ShelfCore

/// `shelf list --json`'s element, written by hand: the bytes `Output.encoder` (pretty-printed, sorted keys, slashes
/// unescaped, ISO 8601 dates) writes for an `EditionSummary` inside an array, for a tenth of its time (the encoder
/// builds a tree of every value before writing, and was nine tenths of `list --json`).
///
/// Keys are written in the encoder's sorted order, and absent optionals are left out as its synthesized `encode(to:)`
/// leaves them. SummaryJSONTests compares the two, byte for byte, on a summary with every stored property set (it
/// checks that it is) and on one with none of the optional ones; a field added to `EditionSummary` without a line
/// here fails it. The list snapshots (Tests/ShelfCLITests/Snapshots) hold the demo catalog's bytes.
enum SummaryJSON {
    /// One element of the array from its `{`, for a line two spaces in, without the comma or line end after it.
    static func element(_ summary: EditionSummary) -> String {
        var object = ObjectWriter(indent: 2)
        object.array("actions", summary.actions.map(\.rawValue))
        object.string("authors", summary.authors)
        object.string("availability", summary.availability)
        object.date("availableSince", summary.availableSince)
        object.date("availableUntil", summary.availableUntil)
        object.string("circulation", summary.circulation)
        object.string("consumption", summary.consumption?.rawValue)
        object.int("copiesAvailable", summary.copiesAvailable)
        object.int("copiesTotal", summary.copiesTotal)
        object.double("duration", summary.duration)
        object.string("entitlement", summary.entitlement.rawValue)
        object.string("foundBy", summary.foundBy?.rawValue)
        if let wait = summary.holdWait {
            object.nested("holdWait") { inner in
                inner.int("copies", wait.copies)
                inner.double("days", wait.days)
                inner.double("loanDays", wait.loanDays)
                inner.bool("loanDaysMeasured", wait.loanDaysMeasured)
                inner.int("position", wait.position)
                inner.string("text", wait.text)
            }
        }
        object.int("holdsPosition", summary.holdsPosition)
        object.int("holdsTotal", summary.holdsTotal)
        object.string("id", summary.id)
        object.bool("inCatalog", summary.inCatalog)
        object.bool("isDraft", summary.isDraft)
        object.bool("isPaid", summary.isPaid)
        object.string("medium", summary.medium)
        object.string("narrators", summary.narrators)
        object.double("percent", summary.percent)
        object.string("protection", summary.protection)
        object.string("revokeURL", summary.revokeURL)
        if let series = summary.series {
            object.nested("series") { inner in
                inner.string("href", series.href)
                inner.string("name", series.name)
                inner.string("position", series.position)
            }
        }
        object.string("shortID", summary.shortID)
        object.string("state", summary.state.rawValue)
        object.string("title", summary.title)
        return String(decoding: object.finish(), as: UTF8.self)
    }

    /// `shelf list --json`'s element without `--full`, on one line: what a script reading the list needs (the ids,
    /// title, authors, medium, state, the circulation phrase and its date, progress, series and what can be done),
    /// each left out when empty, false or none, so a title is about a third of its full element.
    static func leanElement(_ summary: EditionSummary, into out: inout [UInt8]) {
        // The writer takes the buffer over (no copy), and hands it back at the end.
        var buffer: [UInt8] = []
        swap(&buffer, &out)
        var line = ObjectWriter(compactAfter: consume buffer)
        line.string("id", summary.id)
        line.string("shortID", summary.shortID)
        line.string("title", summary.title)
        if !summary.authors.isEmpty { line.string("authors", summary.authors) }
        line.string("medium", summary.medium)
        line.string("protection", summary.protection)
        line.string("state", summary.state.rawValue)
        if summary.entitlement != .none {
            line.string("entitlement", summary.entitlement.rawValue)
            line.date("availableUntil", summary.availableUntil)
        }
        if !summary.circulation.isEmpty { line.string("circulation", summary.circulation) }
        line.string("consumption", summary.consumption?.rawValue)
        line.double("percent", summary.percent)
        if let series = summary.series {
            line.nested("series") { inner in
                inner.string("name", series.name)
                inner.string("position", series.position)
            }
        }
        if !summary.inCatalog { line.bool("inCatalog", false) }
        line.string("foundBy", summary.foundBy?.rawValue)
        if !summary.actions.isEmpty { line.array("actions", summary.actions.map(\.rawValue)) }
        out = line.finish()
    }

    /// An object's members, each on its own line at `indent` plus two spaces, or `compact`, on one line without
    /// spaces (`{"key":value,…}`); written as UTF-8 bytes, since appending to a String was most of the time.
    private struct ObjectWriter {
        private(set) var out: [UInt8] = [UInt8(ascii: "{")]
        let indent: Int
        let compact: Bool
        private var count = 0

        init(indent: Int) {
            self.indent = indent
            compact = false
            out.reserveCapacity(1024)
        }

        /// A compact object, after what `prefix` holds.
        init(compactAfter prefix: [UInt8]) {
            indent = 0
            compact = true
            out = prefix
            out.append(UInt8(ascii: "{"))
        }

        private mutating func spaces(_ count: Int) {
            out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: count))
        }

        private mutating func text(_ text: String) {
            var text = text
            text.withUTF8 { out.append(contentsOf: $0) }
        }

        private mutating func key(_ name: StaticString) {
            if count > 0 { out.append(UInt8(ascii: ",")) }
            count += 1
            if !compact {
                out.append(UInt8(ascii: "\n"))
                spaces(indent + 2)
            }
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            text(compact ? "\":" : "\" : ")
        }

        mutating func string(_ name: StaticString, _ value: String?) {
            guard let value else { return }
            key(name)
            SummaryJSON.append(quoted: value, to: &out)
        }

        mutating func int(_ name: StaticString, _ value: Int?) {
            guard let value else { return }
            key(name)
            text(String(value))
        }

        mutating func double(_ name: StaticString, _ value: Double?) {
            guard let value else { return }
            key(name)
            // As the encoder writes a number: Swift's shortest form that reads back the same, without a ".0".
            var number = value.description
            if number.hasSuffix(".0") { number.removeLast(2) }
            text(number)
        }

        mutating func bool(_ name: StaticString, _ value: Bool) {
            key(name)
            text(value ? "true" : "false")
        }

        mutating func date(_ name: StaticString, _ value: Date?) {
            guard let value else { return }
            key(name)
            // Dates are rare (loans and holds): the encoder writes them, so their form is its own.
            out.append(contentsOf: (try? SummaryJSON.dateEncoder.encode(value)) ?? Data("null".utf8))
        }

        mutating func array(_ name: StaticString, _ values: [String]) {
            key(name)
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                if !compact {
                    out.append(UInt8(ascii: "\n"))
                    spaces(indent + 4)
                }
                SummaryJSON.append(quoted: value, to: &out)
            }
            if !compact {
                // An empty array is "[", an empty line, "]", as the encoder writes it.
                text(values.isEmpty ? "\n\n" : "\n")
                spaces(indent + 2)
            }
            out.append(UInt8(ascii: "]"))
        }

        mutating func nested(_ name: StaticString, _ body: (inout ObjectWriter) -> Void) {
            key(name)
            var inner = compact ? ObjectWriter(compactAfter: []) : ObjectWriter(indent: indent + 2)
            body(&inner)
            out.append(contentsOf: inner.finish())
        }

        consuming func finish() -> [UInt8] {
            if !compact {
                text(count == 0 ? "\n\n" : "\n")
                spaces(indent)
            }
            out.append(UInt8(ascii: "}"))
            return out
        }
    }

    fileprivate static let dateEncoder = Output.encoder

    /// A JSON string: `"` and `\` escaped, the named control characters by name and the others as `\u00XX`,
    /// everything else (slashes and non-ASCII included) as it is.
    fileprivate static func append(quoted value: String, to out: inout [UInt8]) {
        var value = value
        out.append(UInt8(ascii: "\""))
        value.withUTF8 { bytes in
            var plainStart = 0
            for (index, byte) in bytes.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[plainStart..<index]))
                plainStart = index + 1
                switch byte {
                case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
                case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
                case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
                case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
                case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
                case 0x08: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
                case 0x0C: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    out.append(contentsOf: Array("\\u00".utf8))
                    out.append(hex[Int(byte >> 4)])
                    out.append(hex[Int(byte & 0x0F)])
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[plainStart...]))
        }
        out.append(UInt8(ascii: "\""))
    }
}
