import DemoLibrary
import Foundation
import ShelfSpawn
import ShelfCore
import Testing

/// A private D-Bus session bus with a real notification server on it (python3-gi) that writes down each
/// org.freedesktop.Notifications.Notify it is sent.
final class NotificationBus: @unchecked Sendable {
    let address: String
    let log: URL
    private let daemon: ChildProcess
    private var server: ChildProcess?

    static var isAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/gdbus")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
    }

    private static let serverScript = #"""
        import sys
        from gi.repository import Gio, GLib
        XML = """<node><interface name="org.freedesktop.Notifications">
          <method name="Notify"><arg type="s" direction="in"/><arg type="u" direction="in"/><arg type="s" direction="in"/>
            <arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="as" direction="in"/>
            <arg type="a{sv}" direction="in"/><arg type="i" direction="in"/><arg type="u" direction="out"/></method>
          <method name="GetServerInformation"><arg type="s" direction="out"/><arg type="s" direction="out"/>
            <arg type="s" direction="out"/><arg type="s" direction="out"/></method>
          <method name="GetCapabilities"><arg type="as" direction="out"/></method>
        </interface></node>"""
        log = sys.argv[1]
        count = [0]
        def call(connection, sender, path, interface, method, parameters, invocation):
            if method == "Notify":
                count[0] += 1
                with open(log, "a") as f:
                    f.write(parameters[3] + "|" + parameters[4].replace("\n", "\\n") + "\n")
                invocation.return_value(GLib.Variant("(u)", (count[0],)))
            elif method == "GetServerInformation":
                invocation.return_value(GLib.Variant("(ssss)", ("test", "shelf", "1", "1.2")))
            else:
                invocation.return_value(GLib.Variant("(as)", (["body"],)))
        def acquired(connection, name):
            open(log + ".ready", "w").close()
        bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
        node = Gio.DBusNodeInfo.new_for_xml(XML)
        bus.register_object("/org/freedesktop/Notifications", node.interfaces[0], call, None, None)
        Gio.bus_own_name_on_connection(bus, "org.freedesktop.Notifications", 0, acquired, None)
        GLib.MainLoop().run()
        """#

    init() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-bus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        log = directory.appendingPathComponent("notifications.log")
        daemon = ChildProcess()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        daemon.arguments = ["--session", "--nofork", "--print-address"]
        let out = Pipe()
        daemon.standardOutput = out
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line += chunk
        }
        address = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Starts the notification server and waits until it owns its name.
    func startServer() async throws {
        let script = log.deletingLastPathComponent().appendingPathComponent("server.py")
        try Data(Self.serverScript.utf8).write(to: script)
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script.path, log.path]
        process.environment = ["DBUS_SESSION_BUS_ADDRESS": address, "PATH": "/usr/bin:/bin"]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        server = process
        _ = try await eventually { FileManager.default.fileExists(atPath: log.path + ".ready") }
    }

    /// Stops the notification server (SIGKILL, waited for): the bus stays, with nobody owning the name.
    func stopServer() {
        guard let server else { return }
        kill(server.processIdentifier, SIGKILL)
        server.waitUntilExit()
        self.server = nil
    }

    /// What the server was sent, one "summary|body" a line.
    var received: [String] {
        ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    func stop() {
        stopServer()
        kill(daemon.processIdentifier, SIGKILL)
        daemon.waitUntilExit()
        try? FileManager.default.removeItem(at: log.deletingLastPathComponent())
    }
}

@Suite(.serialized, .timeLimit(.minutes(5))) struct NotifyCLITests {
    /// gdbus (not notify-send) on PATH, and the private bus.
    private func environment(_ bus: NotificationBus) -> [String: String] {
        ["DBUS_SESSION_BUS_ADDRESS": bus.address, "PATH": "/usr/bin:/bin"]
    }

    @Test(.enabled(if: NotificationBus.isAvailable, "needs dbus-daemon, gdbus and python3-gi (Scripts/setup --test)"))
    func eachEventIsNotifiedOnceAStormIsOneNotificationAndAnAbsentDaemonIsOneLine() async throws {
        let bus = try NotificationBus()
        defer { bus.stop() }
        try await bus.startServer()
        let fixture = try await CLIFixture()
        _ = try await fixture.shelf.run(["sync", "--quiet", "--no-download"])
        _ = try await fixture.shelf.run(["login", "--username", "demo", "--password-stdin"], input: "1234\n")

        let first = try await fixture.shelf.run(["sync", "--quiet", "--no-download", "--notify"], environment: environment(bus))
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.isEmpty, "\(first.stderr)")
        #expect(bus.received.count == 2, "\(bus.received)")
        #expect(bus.received.contains { $0.hasPrefix("The Adventures of Sherlock Holmes|new loan, due ") }, "\(bus.received)")
        _ = try await fixture.shelf.run(["sync", "--quiet", "--no-download", "--notify"], environment: environment(bus))
        #expect(bus.received.count == 2, "never the same event twice")

        // 500 holds ready at once: one summary line and one notification.
        let home = Home(directory: fixture.shelf.home)
        let store = try Store(home: home)
        let library = try store.library(named: "demo")
        for index in 0..<500 {
            try store.recordNotice(kind: .holdReady, libraryID: library.id, key: "storm-\(index)",
                                   text: "Title \(index): ready to borrow")
        }
        let storm = try await fixture.shelf.run(["sync", "--quiet", "--no-download", "--notify"], environment: environment(bus))
        #expect(storm.stdout == "500 holds ready to borrow (shelf events --unseen lists them)\n", "\(storm.stdout)")
        #expect(bus.received.count == 3)
        #expect(bus.received.last?.hasPrefix("shelf: 500 new events|500 holds ready to borrow") == true, "\(bus.received)")

        // No daemon: one clear line, once; the events stay in the log and go out when a daemon answers again.
        bus.stopServer()
        try store.recordNotice(kind: .announcement, libraryID: library.id, key: "a1", text: "Demo: closed on Monday")
        let absent = try await fixture.shelf.run(["sync", "--quiet", "--no-download", "--notify"], environment: environment(bus))
        #expect(absent.status == 0)
        #expect(absent.stdout == "Demo: closed on Monday\n")
        let errorLines = absent.stderr.split(separator: "\n")
        #expect(errorLines.count == 1 && errorLines[0].hasPrefix("shelf: notifications not sent: no notification daemon answered"),
                "\(absent.stderr)")
        try store.recordNotice(kind: .announcement, libraryID: library.id, key: "a2", text: "Demo: open on Tuesday")
        let stillAbsent = try await fixture.shelf.run(
            ["sync", "--quiet", "--no-download", "--notify"], environment: environment(bus))
        #expect(stillAbsent.stderr.isEmpty, "said once")
        try await bus.startServer()
        _ = try await fixture.shelf.run(["sync", "--quiet", "--no-download", "--notify"], environment: environment(bus))
        #expect(bus.received.suffix(2) == ["Demo|closed on Monday", "Demo|open on Tuesday"], "\(bus.received)")
        await fixture.finish()
    }
}
