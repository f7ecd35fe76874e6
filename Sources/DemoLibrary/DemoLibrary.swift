/// Facts about the embedded demo OPDS library.
public enum DemoLibraryInfo {
    /// The library's default display name.
    public static let name = "Shelf Demo Library"
}
