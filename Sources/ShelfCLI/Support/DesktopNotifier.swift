import Foundation
import ShelfSpawn
import ShelfCore

/// Sends freedesktop notifications (org.freedesktop.Notifications) on the desktop session bus: through
/// `notify-send` when it is installed, else `gdbus`.
struct DesktopNotifier {
    /// Why nothing could be sent; one line for the patron.
    struct Unavailable: Error, CustomStringConvertible {
        let description: String
    }

    let environment: [String: String]

    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    /// Sends one notification, or says in one line why it could not.
    func send(summary: String, body: String) -> Result<Void, Unavailable> {
        guard let bus = environment["DBUS_SESSION_BUS_ADDRESS"], !bus.isEmpty else {
            return .failure(Unavailable(description: "no desktop session bus (DBUS_SESSION_BUS_ADDRESS is not set)"))
        }
        let arguments: [String]
        let program: String
        if let notifySend = which("notify-send") {
            program = notifySend
            arguments = ["--app-name=shelf", summary, body]
        } else if let gdbus = which("gdbus") {
            program = gdbus
            arguments = [
                "call", "--session", "--dest", "org.freedesktop.Notifications", "--object-path",
                "/org/freedesktop/Notifications", "--method", "org.freedesktop.Notifications.Notify",
                Self.variant("shelf"), "0", Self.variant(""), Self.variant(summary), Self.variant(body), "[]", "{}", "int32 -1",
            ]
        } else {
            return .failure(Unavailable(
                description: "neither notify-send nor gdbus is installed (apt install libnotify-bin)"))
        }
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.environment = environment
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch {
            return .failure(Unavailable(description: "\(program) could not be started: \(error.localizedDescription)"))
        }
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let reason = message.split(separator: "\n").first.map(String.init) ?? "exit status \(process.terminationStatus)"
            return .failure(Unavailable(description: "no notification daemon answered on the session bus (\(reason))"))
        }
        return .success(())
    }

    /// A string as GVariant text, which `gdbus call` parses its arguments as.
    static func variant(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    private func which(_ name: String) -> String? {
        (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            .map { URL(fileURLWithPath: String($0)).appendingPathComponent(name).path }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

/// What a sync tells the patron about new events: one line each, or, in a storm, one line per kind; and the
/// desktop notifications, once each.
struct EventTeller {
    /// More new events than this in one sync are summed up by kind, not listed.
    static let stormThreshold = 20

    /// The lines for `notices`: each one's own, or a summary per kind when there are too many.
    static func lines(_ notices: [Notice], prefix: String) -> [String] {
        guard notices.count > stormThreshold else { return notices.map { prefix + $0.line } }
        var counts: [NoticeKind: Int] = [:]
        for notice in notices { counts[notice.kind, default: 0] += 1 }
        return NoticeKind.allCases.compactMap { kind in
            counts[kind].map { prefix + kind.summary($0) + " (shelf events --unseen lists them)" }
        }
    }

    /// Sends a notification per notice not notified yet (one summary in a storm) and marks them sent. When no
    /// notification can be sent, says so in one line, once until one is sent again; the notices stay unsent.
    static func notify(_ notices: [Notice], store: Store, home: Home, notifier: DesktopNotifier = DesktopNotifier()) {
        guard !notices.isEmpty else { return }
        let said = home.directory.appendingPathComponent("notify-unavailable")
        let messages: [(String, String)] = notices.count > stormThreshold
            ? [("shelf: \(notices.count) new events", lines(notices, prefix: "").joined(separator: "\n"))]
            : notices.map { notice in
                let parts = notice.text.split(separator: ":", maxSplits: 1).map(String.init)
                return parts.count == 2
                    ? (parts[0], parts[1].trimmingCharacters(in: .whitespaces)) : ("shelf", notice.text)
            }
        for (summary, body) in messages {
            if case .failure(let unavailable) = notifier.send(summary: summary, body: body) {
                if !FileManager.default.fileExists(atPath: said.path) {
                    Output.error("shelf: notifications not sent: \(unavailable) (the events are kept: shelf events --unseen)")
                    _ = FileManager.default.createFile(atPath: said.path, contents: Data(unavailable.description.utf8))
                }
                return
            }
        }
        try? FileManager.default.removeItem(at: said)
        try? store.markNoticesNotified(notices.map(\.id))
    }
}
