import Foundation
import Testing

@testable import ShelfCore

/// Where test inputs live, found from this file's path so tests run from any working directory.
enum FixturePaths {
    /// The package root: the first ancestor of this file that holds Package.swift.
    static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while url.path != "/" {
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
                return url
            }
            url.deleteLastPathComponent()
        }
        fatalError("no Package.swift above \(#filePath)")
    }()

    /// The package's own small fixtures.
    static func opds(_ name: String) -> URL {
        packageRoot.appendingPathComponent("Fixtures/opds/\(name)")
    }

    /// Real documents shared by the team at ../shared; not part of the repository.
    static let sharedRoot = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures-real")

    static var sharedAvailable: Bool {
        FileManager.default.fileExists(atPath: sharedRoot.appendingPathComponent("opds").path)
    }

    static func shared(_ relative: String) -> URL {
        sharedRoot.appendingPathComponent(relative)
    }
}

/// Parses a whole document and returns its entries with the feed information.
func parseAll(_ url: URL, baseURL: URL? = nil, maxEntryBytes: Int = 8 << 20) throws -> (OPDSFeedInfo, [OPDSEntry]) {
    var entries: [OPDSEntry] = []
    let parser = OPDSParser(baseURL: baseURL, maxEntryBytes: maxEntryBytes)
    let info = try parser.parse(file: url) { entries.append($0) }
    return (info, entries)
}

/// Parses a document held in a string.
func parseAll(xml: String, baseURL: URL? = nil, maxEntryBytes: Int = 8 << 20) throws -> (OPDSFeedInfo, [OPDSEntry]) {
    var entries: [OPDSEntry] = []
    let parser = OPDSParser(baseURL: baseURL, maxEntryBytes: maxEntryBytes)
    let info = try parser.parse(data: Data(xml.utf8)) { entries.append($0) }
    return (info, entries)
}

/// The error a parse threw, or nil when it succeeded.
func parseError(_ body: () throws -> Void) -> OPDSParseError? {
    do {
        try body()
        return nil
    } catch let error as OPDSParseError {
        return error
    } catch {
        Issue.record("unexpected error type: \(error)")
        return nil
    }
}

/// A UTC date from its components, for comparing parsed dates.
func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0) -> Date {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return calendar.date(
        from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second))!
}
