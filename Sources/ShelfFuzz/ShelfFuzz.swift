import Foundation

/// libFuzzer's entry point: runs the target `SHELF_FUZZ_TARGET` names on one input (see `Scripts/fuzz`).
///
/// One binary serves every target, so CI builds and links once. The variable is read once, on the first input.
@_cdecl("LLVMFuzzerTestOneInput")
public func shelfFuzzTestOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    ShelfFuzz.run(ShelfFuzz.selected, Data(bytes: bytes, count: count))
    return 0
}

/// The fuzz targets: each feeds one input to one of shelf's parsers and checks what it made of it.
public enum ShelfFuzz {
    /// Every target by name, as `SHELF_FUZZ_TARGET` and `Scripts/fuzz run` name them.
    public static let targets: [String: @Sendable (Data) -> Void] = [
        "opds1-feed": OPDS1Fuzz.feed,
        "opds1-entry": OPDS1Fuzz.entry,
        "opds2": OPDS2Fuzz.feed,
        "manifest": ManifestFuzz.manifest,
        "bearer-token": CirculationFuzz.bearerToken,
        "authentication": CirculationFuzz.authentication,
        "problem": CirculationFuzz.problem,
        "annotations": AnnotationsFuzz.annotations,
        "locators": AnnotationsFuzz.locators,
        "progression": AnnotationsFuzz.progressions,
        "dates": DatesFuzz.dates,
        "archive": ArchiveFuzz.archive,
        "http-head": HTTPHeadFuzz.head,
    ]

    /// The target this process runs, from `SHELF_FUZZ_TARGET`; a missing or unknown name stops the run at once.
    static let selected: String = {
        let name = ProcessInfo.processInfo.environment["SHELF_FUZZ_TARGET"] ?? ""
        guard targets[name] != nil else {
            let known = targets.keys.sorted().joined(separator: ", ")
            FileHandle.standardError.write(Data("shelf-fuzz: set SHELF_FUZZ_TARGET to one of: \(known)\n".utf8))
            exit(64)
        }
        return name
    }()

    /// Runs target `name` on `data`; traps (a crash libFuzzer saves) when an invariant does not hold.
    public static func run(_ name: String, _ data: Data) {
        guard let target = targets[name] else { preconditionFailure("shelf-fuzz: no target named \(name)") }
        target(data)
    }
}

/// Stops the run with the invariant that broke: libFuzzer saves the input as a crash.
func require(_ condition: @autoclosure () -> Bool, _ invariant: @autoclosure () -> String) {
    if !condition() { fatalError("fuzz invariant broken: \(invariant())") }
}

/// The URL every relative reference of a fuzzed document resolves against.
let fuzzBase = URL(string: "https://library.example/catalog/feed.xml")!
