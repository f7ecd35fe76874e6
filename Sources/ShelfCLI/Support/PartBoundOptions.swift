import ArgumentParser
import ShelfCore

/// The bounds every part of a download is held to, for `shelf download` and the downloads at the end of
/// `shelf sync` (`Help.partBounds` says what each does, with its default).
struct PartBoundOptions: ParsableArguments {
    @Option(name: .customLong("part-cap"), help: ArgumentHelp(
        "The most a part may hold when its manifest states neither its length nor its duration (default 4g).",
        valueName: "size"))
    var partCap: String?

    @Option(name: .customLong("keep-free"), help: ArgumentHelp(
        "Free space kept on the disk: below it a download stops as on a full disk (default 64m).", valueName: "size"))
    var keepFree: String?

    @Option(name: .customLong("min-rate"), help: ArgumentHelp(
        "A part slower than this over --rate-window is cut off and tried again (default 1k; 0 turns it off).",
        valueName: "rate"))
    var minRate: String?

    @Option(name: .customLong("rate-window"), help: ArgumentHelp(
        "Seconds a part may stay under --min-rate before it is cut off (default 120).", valueName: "seconds"))
    var rateWindow: Int?

    @Option(name: .customLong("min-average"), help: ArgumentHelp(
        "A part must average this over its whole transfer, after 10 minutes of grace (default 16k; 0 turns it off).",
        valueName: "rate"))
    var minAverage: String?

    func validate() throws {
        if let partCap, (ByteCount.parse(partCap) ?? 0) < 1_048_576 {
            throw ValidationError("--part-cap takes a size of at least 1m, like 512m or 8g")
        }
        if let keepFree, ByteCount.parse(keepFree) == nil { throw ValidationError("--keep-free takes a size, like 64m or 1g") }
        if let minRate, ByteCount.parse(minRate) == nil { throw ValidationError("--min-rate takes bytes a second, like 1k, or 0") }
        if let rateWindow, !(1...3600).contains(rateWindow) { throw ValidationError("--rate-window must be 1 to 3600") }
        if let minAverage, ByteCount.parse(minAverage) == nil {
            throw ValidationError("--min-average takes bytes a second, like 16k, or 0")
        }
    }

    /// `settings` with the bounds given here in place of the defaults.
    func apply(to settings: inout DownloadSettings) {
        if let value = partCap.flatMap(ByteCount.parse) { settings.partCap = value }
        if let value = keepFree.flatMap(ByteCount.parse) { settings.freeSpaceMargin = value }
        if let value = minRate.flatMap(ByteCount.parse) { settings.minimumRate = value }
        if let value = minAverage.flatMap(ByteCount.parse) { settings.minimumAverage = value }
        if let rateWindow { settings.rateWindow = Double(rateWindow) }
    }
}
