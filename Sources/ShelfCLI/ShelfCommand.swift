import ArgumentParser
import ShelfCore

/// The root `shelf` command.
public struct Shelf: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "shelf",
        abstract: "Sync and play public-library audiobooks from OPDS catalogs.",
        subcommands: []
    )
    public init() {}
}
