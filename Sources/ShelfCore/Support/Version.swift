/// shelf's version, shown by `shelf --version` and sent in the User-Agent.
public enum ShelfVersion {
    public static let current = "0.1.0"
}
