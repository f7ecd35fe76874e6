import Foundation

/// What can go wrong setting up or changing the demo library.
public enum DemoLibraryError: Error, LocalizedError, Equatable {
    case catalogUnreadable(String)
    case unknownTitle(String)
    case duplicateTitle(String)
    case invalidArgument(String)
    case notRunning
    case alreadyRunning
    case couldNotListen(String)

    /// A one-line, lower-case message saying what was wrong.
    public var errorDescription: String? {
        switch self {
        case .catalogUnreadable(let reason): "demo catalog is not valid JSON for titles: \(reason)"
        case .unknownTitle(let id): "no title with id \(id) in the demo catalog"
        case .duplicateTitle(let id): "a title with id \(id) is already in the demo catalog"
        case .invalidArgument(let reason): "invalid demo library argument: \(reason)"
        case .notRunning: "the demo library server is not running; call start() first"
        case .alreadyRunning: "the demo library server is already running; stop it before starting again"
        case .couldNotListen(let reason): "the demo library could not listen on 127.0.0.1: \(reason)"
        }
    }
}
