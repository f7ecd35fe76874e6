/// A DRM scheme shelf recognises and declines.
public enum ProtectionScheme: String, Sendable, Codable, CaseIterable {
    case findaway = "Findaway"
    case lcp = "Readium LCP"
    case overdrive = "OverDrive"
    case feedbooks = "Feedbooks"
    case adobe = "Adobe"

    /// The scheme a media type or scheme URI stands for, if any.
    public static func recognise(_ text: String) -> ProtectionScheme? {
        // Byte searches (see ByteSearch.swift): this runs on every acquisition type of every entry a sync reads.
        if text.containsIgnoringASCIICase("findaway")
            || (text.containsIgnoringASCIICase("/drm/scheme/fae") && text.lowercased().hasSuffix("/drm/scheme/fae"))
        {
            return .findaway
        }
        if text.containsIgnoringASCIICase("lcp") { return .lcp }
        if text.containsIgnoringASCIICase("overdrive") { return .overdrive }
        if text.containsIgnoringASCIICase("feedbooks.com/audiobooks/access-restriction") { return .feedbooks }
        if text.containsIgnoringASCIICase("adobe.adept") { return .adobe }
        return nil
    }
}
