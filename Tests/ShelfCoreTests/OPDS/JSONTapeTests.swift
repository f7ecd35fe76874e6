import Foundation
import Testing

@testable import ShelfCore

/// The native JSON reader gives what Foundation's reader and the conversion gave, or declines so Foundation reads it.
///
/// Agreeing is `JSONTape.agrees`: booleans are kept as booleans where the conversion gave numbers (`JSONNode` reads
/// both the same, checked below), and numbers are correctly rounded where Foundation's are not always.
@Suite(.timeLimit(.minutes(5))) struct JSONTapeTests {
    /// Where two values first differ ("" when they do not), for a readable failure.
    static func difference(_ a: JSONValue?, _ b: JSONValue?, at path: String = "$") -> String? {
        switch (a, b) {
        case (.object(let x)?, .object(let y)?):
            for key in Set(x.keys).union(y.keys).sorted() {
                if let found = difference(x[key], y[key], at: path + "." + key) { return found }
            }
            return nil
        case (.array(let x)?, .array(let y)?):
            guard x.count == y.count else { return "\(path): \(x.count) elements against \(y.count)" }
            for (index, pair) in zip(x, y).enumerated() {
                if let found = difference(pair.0, pair.1, at: "\(path)[\(index)]") { return found }
            }
            return nil
        default:
            return JSONTape.agrees(a, b) ? nil : "\(path): \(String(describing: a)) against \(String(describing: b))"
        }
    }

    /// Whether the native reading agrees with Foundation's (both refusing counts as agreeing).
    static func agrees(_ native: JSONValue??, _ foundation: JSONValue??) -> Bool {
        switch (native, foundation) {
        case (.some(let x), .some(let y)): JSONTape.agrees(x, y)
        default: native == nil && foundation == nil
        }
    }

    @Test func aBooleanReadsAsItsNumberDid() {
        for flag in [true, false] {
            let (boolean, number) = (JSONNode(.bool(flag)), JSONNode(.number(flag ? 1 : 0)))
            #expect(boolean.bool == number.bool && boolean.double == number.double && boolean.int == number.int)
            #expect(boolean.numberText == number.numberText && boolean.string == number.string)
            #expect(boolean.list.count == number.list.count && boolean.isPresent)
            #expect(!boolean.isObject && !boolean.isArray)
        }
    }

    /// Foundation's reading of `bytes` as `JSONValue`: `.some(value)` (nil value for a top-level null), or nil when
    /// Foundation refuses the document.
    static func foundation(_ bytes: [UInt8]) -> JSONValue?? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) else {
            return nil
        }
        return .some(JSONValue(foundation: object))
    }

    /// The native reading: `.some(value)`, or nil when it declines.
    static func native(_ bytes: [UInt8]) -> JSONValue?? {
        do {
            return .some(try bytes.withUnsafeBytes { try JSONTape.value($0) })
        } catch {
            return nil
        }
    }

    /// Every JSON document in the repository's fixtures and in ../shared/fixtures-real is read natively, to the value
    /// Foundation gives.
    @Test func everyFixtureReadsAsFoundationReadsIt() throws {
        var roots = [FixturePaths.packageRoot.appendingPathComponent("Fixtures")]
        if FixturePaths.sharedAvailable { roots.append(FixturePaths.sharedRoot) }
        var read = 0
        for root in roots {
            let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)!
            for case let file as URL in files where file.pathExtension == "json" {
                var bytes = [UInt8](try Data(contentsOf: file))
                if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
                guard let expected = Self.foundation(bytes) else { continue }
                let native = Self.native(bytes)
                #expect(native != nil, "declined \(file.path)")
                #expect(Self.agrees(native, expected),
                        "\(file.path): \(Self.difference(native ?? nil, expected ?? nil) ?? "")")
                read += 1
            }
        }
        #expect(read >= (FixturePaths.sharedAvailable ? 40 : 10), "\(read) documents")
    }

    /// Where a node's lookups first disagree with the value read whole: each member by its name (the last of
    /// duplicates, none for null), the set of names, each element in order (nulls left out).
    static func lookupDifference(_ node: JSONNode, _ value: JSONValue?, at path: String = "$") -> String? {
        switch value {
        case .object(let object)?:
            guard node.isObject, Set(node.keys) == Set(object.keys) else { return "\(path): names \(node.keys.sorted())" }
            for (key, member) in object {
                if let found = lookupDifference(node[key], member, at: path + "." + key) { return found }
            }
            return node["\u{0}absent"].isPresent ? "\(path): an absent name found" : nil
        case .array(let array)?:
            let list = node.list
            guard node.isArray, list.count == array.count else { return "\(path): \(list.count) elements" }
            for (index, pair) in zip(list, array).enumerated() {
                if let found = lookupDifference(pair.0, pair.1, at: "\(path)[\(index)]") { return found }
            }
            return nil
        default:
            return node.value == value ? nil : "\(path): \(String(describing: node.value))"
        }
    }

    /// Every member and element of every fixture, and of documents with duplicate names and nulls, is found through
    /// the tape's lookups as it is in the value read whole.
    @Test func everyMemberIsFoundByItsName() throws {
        var documents = [
            #"{"a": 1, "a": null, "b": {"c": [1, null, {"d": "é\n"}], "c": "later"}, "e": [], "f": {}}"#,
            #"{"x": null, "y": [null], "z": {"w": null, "w": 2}, "\u00e9": true}"#,
        ].map { Array($0.utf8) }
        let root = FixturePaths.packageRoot.appendingPathComponent("Fixtures")
        for case let file as URL in FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)!
        where file.pathExtension == "json" {
            documents.append([UInt8](try Data(contentsOf: file)))
        }
        for bytes in documents {
            guard let tape = try? bytes.withUnsafeBytes({ try JSONTape.read($0) }) else { continue }
            let whole = tape.value(at: 0)
            #expect(Self.lookupDifference(JSONNode(tape), whole) == nil, "\(String(decoding: bytes.prefix(80), as: UTF8.self))")
            // The same through a tape made of the value (Foundation's reading takes that way).
            #expect(Self.lookupDifference(JSONNode(whole), whole) == nil)
        }
        #expect(documents.count > 10)
    }

    /// Documents that test each rule, each either read to Foundation's value or declined; those marked `true` must
    /// be read natively (the common forms), and no document Foundation refuses is ever read.
    @Test(arguments: [
        (#"{"a": 1, "b": [true, false, null, "x"], "c": {"d": -2.5e3}}"#, true),
        (#"  [1, 2.0, -0, 0.5, 1E2, 1e-2, 123456789012345678]  "#, true),
        (#""top-level string""#, true), ("42", true), ("null", true), ("true", true), ("[]", true), ("{}", true),
        (#"{"a": null}"#, true), (#"[null, null]"#, true),
        (#"{"a": 1, "a": 2}"#, true), (#"{"a": 1, "a": null}"#, true), (#"{"a": null, "a": 3}"#, true),
        (#""\"\\\/\b\f\n\r\t""#, true), (#""\u00e9\u4e2d\uD83D\uDE00 é 中 😀""#, true), (#""\u0000x""#, true),
        (#""Shōgun""#, true), ("\"\u{7F}\u{85}\"", true),
        (#""\uD83D""#, false), (#""\uDE00""#, false), (#""\uD83Dx""#, false), (#""\u12""#, false), (#""\x""#, false),
        ("\"a\tb\"", false), ("\"a\nb\"", false), (#""unterminated"#, false),
        ("[1,]", false), (#"{"a":1,}"#, false), ("[1 2]", false), (#"{"a" 1}"#, false), ("{1: 2}", false),
        ("01", false), ("1.", false), (".5", false), ("+1", false), ("-", false), ("1e", false), ("1e+", false),
        ("1e400", false), ("-1e400", false), ("12345678901234567890", false), ("NaN", false), ("Infinity", false),
        ("tru", false), ("nul", false), ("[", false), ("{", false), ("", false), ("   ", false), ("[] x", false),
        ("<html><body>Sign in</body></html>", false), ("{\"a\": 1}\u{0}", false),
        ("1e-400", false), ("-1e-400", false), ("4.9e-324", false), ("1.7976931348623157e308", false),
        ("999999999999999999", false), ("-999999999999999999", false), ("9007199254740993", false),
        ("0.000000000000000000000000000001", false), ("1E+2", false), ("[-0, -0.0, 0e0]", false),
        (#""\uFFFF\uFDD0""#, false), ("\"\u{FEFF}x\"", false), (#""\uFEFFx""#, false), ("\"x\u{FEFF}\"", false),
        ("\u{FEFF}[]", false), ("[\"\u{10FFFF}\"]", false),
    ])
    func eachRuleAgreesWithFoundation(_ text: String, readNatively: Bool) {
        let bytes = Array(text.utf8)
        let expected = Self.foundation(bytes)
        let native = Self.native(bytes)
        if readNatively { #expect(native != nil, "declined \(text)") }
        if let native {
            #expect(expected != nil, "Foundation refuses what was read natively: \(text)")
            #expect(Self.agrees(native, expected), "\(text)")
        }
    }

    /// Bytes that are not UTF-8, and UTF-16, are declined (Foundation reads or refuses them).
    @Test func otherEncodingsAreDeclined() {
        #expect(Self.native([0x22, 0xFF, 0x22]) == nil)
        #expect(Self.native([0x22, 0xC3, 0x22]) == nil)
        #expect(Self.native(Array("[1]".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }) == nil)
        #expect(Self.native([0x00, 0x5B, 0x00, 0x5D]) == nil)
    }

    /// An OPDS 2 page parses to the same entries through either reader.
    @Test func aParsedPageIsTheSameThroughEitherReader() throws {
        let files = try FileManager.default.contentsOfDirectory(
            at: FixturePaths.packageRoot.appendingPathComponent("Fixtures/opds2"), includingPropertiesForKeys: nil)
        for file in files where file.pathExtension == "json" {
            let data = try Data(contentsOf: file)
            guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
                continue
            }
            let parser = OPDS2Parser(baseURL: URL(string: "http://127.0.0.1/opds2/"))
            #expect(JSONTape.agrees(try parser.document(data).value, JSONNode(foundation: object).value),
                    "\(file.lastPathComponent)")
        }
    }
}
