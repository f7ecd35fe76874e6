import Hummingbird

/// The embedded demo OPDS library (placeholder until the server lands).
public enum DemoLibraryInfo {
    public static let name = "Shelf Demo Library"
}
