import CSystemd
import Foundation
import ShelfCore
import Synchronization

/// The desktop keyring, through the freedesktop Secret Service API on the session bus (sd-bus): gnome-keyring,
/// KeePassXC and others. Items live in the default collection, found by `SecretKey.attributes`; secrets travel in
/// a `plain` session (the bus is the user's own). A locked collection is not unlocked here (that needs the desktop's
/// prompt): it is reported, and shelf keeps new secrets in its files meanwhile.
public final class SecretService: SecretKeeper, Sendable {
    public let name = "the desktop keyring (Secret Service on the session bus)"
    static let service = "org.freedesktop.secrets"
    static let servicePath = "/org/freedesktop/secrets"
    static let defaultCollection = "/org/freedesktop/secrets/aliases/default"

    public init() {}

    /// Installs the keyring for this process's credential store.
    public static func install() {
        CredentialStore.keeper.withLock { $0 = SecretService() }
    }

    public func unavailable() -> String? {
        // A property read needs no Secret Service session.
        do {
            let bus = try Bus()
            defer { bus.close() }
            let locked = try bus.property(Self.defaultCollection, "org.freedesktop.Secret.Collection", "Locked")
            return locked ? "the keyring is locked; unlock it (sign in to the desktop, or `gnome-keyring-daemon --unlock`)" : nil
        } catch {
            return (error as? SecretKeeperError)?.description ?? "\(error)"
        }
    }

    public func store(_ secret: Data, key: SecretKey) throws(SecretKeeperError) {
        try Self.typed { try self.storeUntyped(secret, key: key) }
    }

    public func load(_ key: SecretKey) throws(SecretKeeperError) -> Data? {
        try Self.typed { try self.loadUntyped(key) }
    }

    public func erase(_ key: SecretKey) throws(SecretKeeperError) -> Bool {
        try Self.typed { try self.eraseUntyped(key) }
    }

    /// `body`'s errors as the keeper's.
    static func typed<T>(_ body: () throws -> T) throws(SecretKeeperError) -> T {
        do {
            return try body()
        } catch let error as SecretKeeperError {
            throw error
        } catch {
            throw SecretKeeperError("\(error)")
        }
    }

    private func storeUntyped(_ secret: Data, key: SecretKey) throws {
        try withSession { bus, session in
            let message = try bus.call(Self.defaultCollection, "org.freedesktop.Secret.Collection", "CreateItem") { m in
                // a{sv} properties: the label and the attributes.
                try Bus.check(sd_bus_message_open_container(m, CChar(UInt8(ascii: "a")), "{sv}"))
                try Bus.check(sd_bus_message_open_container(m, CChar(UInt8(ascii: "e")), "sv"))
                try Bus.check(CSystemd_append_string(m, "org.freedesktop.Secret.Item.Label"))
                try Bus.check(sd_bus_message_open_container(m, CChar(UInt8(ascii: "v")), "s"))
                try Bus.check(CSystemd_append_string(m, key.label))
                try Bus.check(sd_bus_message_close_container(m))
                try Bus.check(sd_bus_message_close_container(m))
                try Bus.check(sd_bus_message_open_container(m, CChar(UInt8(ascii: "e")), "sv"))
                try Bus.check(CSystemd_append_string(m, "org.freedesktop.Secret.Item.Attributes"))
                try Bus.check(sd_bus_message_open_container(m, CChar(UInt8(ascii: "v")), "a{ss}"))
                try Bus.appendAttributes(key.attributes, to: m)
                try Bus.check(sd_bus_message_close_container(m))
                try Bus.check(sd_bus_message_close_container(m))
                try Bus.check(sd_bus_message_close_container(m))
                // (oayays) the secret, then b replace.
                try Bus.check(sd_bus_message_open_container(m, CChar(UInt8(ascii: "r")), "oayays"))
                try Bus.check(CSystemd_append_path(m, session))
                try Bus.check(CSystemd_append_bytes(m, nil, 0))
                try secret.withUnsafeBytes { raw in try Bus.check(CSystemd_append_bytes(m, raw.baseAddress, raw.count)) }
                try Bus.check(CSystemd_append_string(m, "application/json"))
                try Bus.check(sd_bus_message_close_container(m))
                try Bus.check(CSystemd_append_bool(m, 1))
            }
            defer { sd_bus_message_unref(message) }
            _ = try Bus.readText(message, "o")
            let prompt = try Bus.readText(message, "o")
            guard prompt == "/" else { throw SecretKeeperError("the keyring asked for a prompt to keep the secret (it is locked)") }
        }
    }

    private func loadUntyped(_ key: SecretKey) throws -> Data? {
        try withSession { bus, session in
            guard let item = try search(bus, key).first else { return nil }
            let message = try bus.call(Self.servicePath, "org.freedesktop.Secret.Service", "GetSecrets") { m in
                try Bus.check(sd_bus_message_open_container(m, CChar(UInt8(ascii: "a")), "o"))
                try Bus.check(CSystemd_append_path(m, item))
                try Bus.check(sd_bus_message_close_container(m))
                try Bus.check(CSystemd_append_path(m, session))
            }
            defer { sd_bus_message_unref(message) }
            // a{o(oayays)}
            try Bus.check(sd_bus_message_enter_container(message, CChar(UInt8(ascii: "a")), "{o(oayays)}"))
            guard try Bus.check(sd_bus_message_enter_container(message, CChar(UInt8(ascii: "e")), "o(oayays)")) > 0 else { return nil }
            _ = try Bus.readText(message, "o")
            try Bus.check(sd_bus_message_enter_container(message, CChar(UInt8(ascii: "r")), "oayays"))
            _ = try Bus.readText(message, "o")
            var bytes: UnsafeRawPointer?
            var size = 0
            try Bus.check(CSystemd_read_bytes(message, &bytes, &size))
            try Bus.check(CSystemd_read_bytes(message, &bytes, &size))
            return bytes.map { Data(bytes: $0, count: size) } ?? Data()
        }
    }

    private func eraseUntyped(_ key: SecretKey) throws -> Bool {
        try withSession { bus, _ in
            let items = try search(bus, key)
            for item in items {
                let message = try bus.call(item, "org.freedesktop.Secret.Item", "Delete") { _ in }
                sd_bus_message_unref(message)
            }
            return !items.isEmpty
        }
    }

    /// The unlocked items kept for `key`; a locked one is an error (its secret cannot be read or replaced).
    private func search(_ bus: Bus, _ key: SecretKey) throws -> [String] {
        let message = try bus.call(Self.servicePath, "org.freedesktop.Secret.Service", "SearchItems") { m in
            try Bus.appendAttributes(key.attributes, to: m)
        }
        defer { sd_bus_message_unref(message) }
        let unlocked = try Bus.readPaths(message)
        let locked = try Bus.readPaths(message)
        if unlocked.isEmpty && !locked.isEmpty {
            throw SecretKeeperError("the keyring is locked; unlock it (sign in to the desktop, or `gnome-keyring-daemon --unlock`)")
        }
        return unlocked
    }

    /// Runs `body` with a session bus and an open `plain` Secret Service session, both closed after.
    private func withSession<T>(_ body: (Bus, String) throws -> T) throws -> T {
        let bus = try Bus()
        defer { bus.close() }
        let message = try bus.call(Self.servicePath, "org.freedesktop.Secret.Service", "OpenSession") { m in
            try Bus.check(CSystemd_append_string(m, "plain"))
            try Bus.check(sd_bus_message_open_container(m, CChar(UInt8(ascii: "v")), "s"))
            try Bus.check(CSystemd_append_string(m, ""))
            try Bus.check(sd_bus_message_close_container(m))
        }
        defer { sd_bus_message_unref(message) }
        try Bus.check(sd_bus_message_skip(message, "v"))
        let session = try Bus.readText(message, "o")
        defer {
            if let closed = try? bus.call(session, "org.freedesktop.Secret.Session", "Close", { _ in }) { sd_bus_message_unref(closed) }
        }
        return try body(bus, session)
    }

    /// One connection to the session bus.
    final class Bus {
        let handle: OpaquePointer

        init() throws {
            guard ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"] != nil
                || ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"] != nil
            else { throw SecretKeeperError("no session bus") }
            var bus: OpaquePointer?
            let result = sd_bus_open_user(&bus)
            guard result >= 0, let bus else { throw SecretKeeperError("no session bus (\(String(cString: strerror(-result))))") }
            handle = bus
        }

        func close() { sd_bus_flush_close_unref(handle) }

        /// Calls a Secret Service method with the arguments `append` writes; the reply, which the caller unrefs.
        func call(
            _ path: String, _ interface: String, _ member: String, _ append: (OpaquePointer) throws -> Void
        ) throws -> OpaquePointer {
            var message: OpaquePointer?
            try Bus.check(sd_bus_message_new_method_call(handle, &message, SecretService.service, path, interface, member))
            guard let message else { throw SecretKeeperError("no message") }
            defer { sd_bus_message_unref(message) }
            try append(message)
            var error = sd_bus_error()
            defer { sd_bus_error_free(&error) }
            var reply: OpaquePointer?
            let result = sd_bus_call(handle, message, 10_000_000, &error, &reply)
            guard result >= 0, let reply else { throw Self.failure(error, result) }
            return reply
        }

        /// What a failed call means, in the patron's words.
        static func failure(_ error: sd_bus_error, _ result: Int32) -> SecretKeeperError {
            let name = error.name.map { String(cString: $0) } ?? ""
            let text = error.message.map { String(cString: $0) } ?? String(cString: strerror(-result))
            if name.hasSuffix("ServiceUnknown") || name.hasSuffix("NameHasNoOwner") {
                return SecretKeeperError("no Secret Service on the session bus")
            }
            if name.hasSuffix("NoSuchObject") || name.hasSuffix("UnknownObject") || text.contains("does not exist") {
                return SecretKeeperError("the keyring has no default collection to keep secrets in (create one in the desktop's keyring manager)")
            }
            return SecretKeeperError("the keyring answered \(text)")
        }

        /// `Get` of a boolean property.
        func property(_ path: String, _ interface: String, _ name: String) throws -> Bool {
            let reply = try call(path, "org.freedesktop.DBus.Properties", "Get") { message in
                try Bus.check(CSystemd_append_string(message, interface))
                try Bus.check(CSystemd_append_string(message, name))
            }
            defer { sd_bus_message_unref(reply) }
            try Bus.check(sd_bus_message_enter_container(reply, CChar(UInt8(ascii: "v")), "b"))
            var value: Int32 = 0
            try Bus.check(CSystemd_read_bool(reply, &value))
            return value != 0
        }

        @discardableResult
        static func check(_ result: Int32) throws -> Int32 {
            guard result >= 0 else { throw SecretKeeperError("the session bus failed (\(String(cString: strerror(-result))))") }
            return result
        }

        static func appendAttributes(_ attributes: [String: String], to m: OpaquePointer) throws {
            try check(sd_bus_message_open_container(m, CChar(UInt8(ascii: "a")), "{ss}"))
            for (name, value) in attributes.sorted(by: { $0.key < $1.key }) {
                try check(sd_bus_message_open_container(m, CChar(UInt8(ascii: "e")), "ss"))
                try check(CSystemd_append_string(m, name))
                try check(CSystemd_append_string(m, value))
                try check(sd_bus_message_close_container(m))
            }
            try check(sd_bus_message_close_container(m))
        }

        static func readText(_ message: OpaquePointer, _ type: Character) throws -> String {
            var value: UnsafePointer<CChar>?
            try check(CSystemd_read_text(message, CChar(type.asciiValue!), &value))
            return value.map { String(cString: $0) } ?? ""
        }

        static func readPaths(_ message: OpaquePointer) throws -> [String] {
            try check(sd_bus_message_enter_container(message, CChar(UInt8(ascii: "a")), "o"))
            var paths: [String] = []
            while true {
                var value: UnsafePointer<CChar>?
                let result = try check(CSystemd_read_text(message, CChar(UInt8(ascii: "o")), &value))
                guard result > 0, let value else { break }
                paths.append(String(cString: value))
            }
            try check(sd_bus_message_exit_container(message))
            return paths
        }
    }
}
