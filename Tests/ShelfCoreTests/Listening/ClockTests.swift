import Testing
@testable import ShelfCore

@Suite(.timeLimit(.minutes(5))) struct ClockTests {
    @Test(arguments: [
        (0.0, "0:00"), (5.9, "0:05"), (123, "2:03"), (599, "9:59"), (3_599, "59:59"), (3_600, "1:00:00"),
        (3_723, "1:02:03"), (36_000 + 61, "10:01:01"), (-4, "0:00"), (.nan, "0:00"),
    ])
    func formats(_ seconds: Double, _ text: String) {
        #expect(Clock.format(seconds) == text)
    }

    @Test(arguments: [
        ("1:02:30", 3_750.0), ("2:30", 150), ("0:05", 5), ("90", 90), ("90s", 90), ("10m", 600), ("1h", 3_600),
        ("1h30m", 5_400), ("1.5h", 5_400), (" 2:30 ", 150), ("2:30.5", 150.5), ("75:00", 4_500),
    ])
    func parses(_ text: String, _ seconds: Double) {
        #expect(Clock.parse(text) == seconds)
    }

    @Test(arguments: ["", "abc", "1:2:3:4", "1:60", "1:70:00", "-5", "5x", "m", "1h1h", "1.5:00", "10m5", ":30", "1::2"])
    func rejects(_ text: String) {
        #expect(Clock.parse(text) == nil)
    }
}
