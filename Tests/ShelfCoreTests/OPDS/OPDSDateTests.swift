import Foundation
import Testing

@testable import ShelfCore

@Suite("OPDS dates", .timeLimit(.minutes(5)))
struct OPDSDateTests {
    @Test(
        "the forms real feeds use",
        arguments: [
            ("2015-08-17T20:37:53Z", utc(2015, 8, 17, 20, 37, 53)),
            ("2015-08-17t20:37:53z", utc(2015, 8, 17, 20, 37, 53)),
            ("2023-11-13T13:10:28+00:00", utc(2023, 11, 13, 13, 10, 28)),
            ("2023-11-13T13:10:28+02:00", utc(2023, 11, 13, 11, 10, 28)),
            ("2023-11-13T13:10:28-0530", utc(2023, 11, 13, 18, 40, 28)),
            ("2023-11-13T13:10:28.5Z", utc(2023, 11, 13, 13, 10, 28).addingTimeInterval(0.5)),
            ("2023-11-13T13:10:28.123456+01:00", utc(2023, 11, 13, 12, 10, 28).addingTimeInterval(0.123456)),
            ("2023-11-13 13:10:28", utc(2023, 11, 13, 13, 10, 28)),
            ("2023-11-13T13:10", utc(2023, 11, 13, 13, 10)),
            ("2023-11-13T24:00:00Z", utc(2023, 11, 14)),
            ("1938-05-01", utc(1938, 5, 1)),
            ("2024-02-29", utc(2024, 2, 29)),
            ("2008-11", utc(2008, 11, 1)),
            ("2008", utc(2008, 1, 1)),
            ("  2008-11-24T13:27:00Z\n", utc(2008, 11, 24, 13, 27)),
            ("3000-01-01T00:00:00Z", utc(3000, 1, 1)),
        ] as [(String, Date)])
    func parses(_ text: String, _ expected: Date) throws {
        let date = try #require(OPDSDate.parse(text))
        #expect(abs(date.timeIntervalSince(expected)) < 0.000_01)
    }

    @Test(
        "anything else is nil",
        arguments: [
            "", "yesterday", "2023-13-01", "2023-02-29", "2023-04-31", "2023-11-13T25:00:00Z", "2023-11-13T12:60Z",
            "2023-11-13T12:00:00+25:00", "2023-11-13T12:00:00Q", "20231113", "2023-11-13T", "2023-1-3",
            "2023-11-13T12:00:00.Z", "Mon, 13 Nov 2023 12:00:00 GMT",
        ])
    func rejects(_ text: String) {
        #expect(OPDSDate.parse(text) == nil)
    }

    @Test("agrees with Foundation's ISO 8601 formatter on RFC 3339 timestamps")
    func agreesWithFoundation() {
        let formatter = ISO8601DateFormatter()
        for seconds in stride(from: -2_000_000_000.0, through: 4_000_000_000.0, by: 7_777_777.0) {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(OPDSDate.parse(formatter.string(from: date)) == date)
        }
    }

    @Test("formats whole seconds as Foundation's ISO 8601 formatter does, and parses back; drops a fraction")
    func formatsAsFoundationDoes() {
        let formatter = ISO8601DateFormatter()
        for seconds in stride(from: -2_000_000_000.0, through: 4_000_000_000.0, by: 7_777_777.0) {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(OPDSDate.format(date) == formatter.string(from: date))
            #expect(OPDSDate.parse(OPDSDate.format(date)) == date)
        }
        #expect(OPDSDate.format(Date(timeIntervalSince1970: 1_795_472_255.9)) == "2026-11-23T22:17:35Z")
        #expect(OPDSDate.format(Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59Z")
        #expect(OPDSDate.format(Date(timeIntervalSince1970: -62_135_596_800)) == "0001-01-01T00:00:00Z")
    }
}
