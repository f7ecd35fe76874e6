/// A DRM scheme shelf recognises and declines.
public enum ProtectionScheme: String, Sendable, Codable, CaseIterable {
    case findaway = "Findaway"
    case lcp = "Readium LCP"
    case overdrive = "OverDrive"
    case feedbooks = "Feedbooks"
    case adobe = "Adobe"

    /// The scheme a media type or scheme URI stands for, if any.
    public static func recognise(_ text: String) -> ProtectionScheme? {
        let value = text.lowercased()
        if value.contains("findaway") || value.hasSuffix("/drm/scheme/fae") { return .findaway }
        if value.contains("lcp") { return .lcp }
        if value.contains("overdrive") { return .overdrive }
        if value.contains("feedbooks.com/audiobooks/access-restriction") { return .feedbooks }
        if value.contains("adobe.adept") { return .adobe }
        return nil
    }
}
