import ArgumentParser
import Foundation
import ShelfCore

extension FollowKind: ExpressibleByArgument {}

/// `shelf unfollow` of something not followed.
struct NotFollowed: ShelfFailure {
    let kind: FollowKind
    let name: String
    var exitCode: ShelfExit { .notFound }
    var description: String { "you do not follow the \(kind.rawValue) \(name); `shelf following` lists what you follow" }
}

extension Shelf {
    /// `shelf follow author|series NAME`.
    struct FollowCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "follow",
            abstract: "Follow an author or a series: each sync counts their new titles (`shelf news`).",
            discussion: """
                An author is matched by name, without regard to case, among a title's authors; a series by the \
                name the catalog gives it (schema:series in OPDS 1, belongsTo.series in OPDS 2). Titles a sync \
                finds that the catalog did not have before are counted per follow, shown by `shelf news` and \
                `shelf status`, and are events. With `shelf library set NAME --auto-download all`, their free \
                titles are also downloaded.
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: "author or series.") var kind: FollowKind
        @Argument(help: "The author's or series' name.") var name: String

        func validate() throws {
            if name.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("give the \(kind.rawValue)'s name") }
        }

        func run() throws {
            try withFailureHandling {
                let name = name.trimmingCharacters(in: .whitespaces)
                let added = try global.openStore().follow(kind, name: name)
                if !global.quiet {
                    Output.line(added ? "Following the \(kind.rawValue) \(name)." : "Already following the \(kind.rawValue) \(name).")
                }
            }
        }
    }

    /// `shelf unfollow author|series NAME`.
    struct Unfollow: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "unfollow", abstract: "Stop following an author or a series.")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "author or series.") var kind: FollowKind
        @Argument(help: "The author's or series' name.") var name: String

        func run() throws {
            try withFailureHandling {
                let name = name.trimmingCharacters(in: .whitespaces)
                guard try global.openStore().unfollow(kind, name: name) else {
                    throw NotFollowed(kind: kind, name: name)
                }
                if !global.quiet { Output.line("No longer following the \(kind.rawValue) \(name).") }
            }
        }
    }

    /// `shelf following`.
    struct Following: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "following",
            abstract: "List the authors and series you follow, with their new titles not yet seen in `shelf news`.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: JSONOption

        func run() throws {
            try withFailureHandling {
                let follows = try global.openStore().follows()
                if output.json { return try Output.json(follows) }
                if follows.isEmpty {
                    Output.line("Following nobody yet: shelf follow author|series NAME")
                    return
                }
                Output.table(["KIND", "NAME", "NEW"], follows.map { [$0.kind.rawValue, $0.name, "\($0.newTitles)"] })
            }
        }
    }

    /// `shelf news`.
    struct News: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "news",
            abstract: "List the new titles of followed authors and series, once: viewing clears the counts.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: JSONOption

        func run() throws {
            try withFailureHandling {
                let store = try global.openStore()
                let news = try store.news()
                try store.markNewsViewed()
                if output.json { return try Output.json(news) }
                if news.isEmpty {
                    if !global.quiet { Output.line("No news from the authors and series you follow.") }
                    return
                }
                Output.table(["ID", "TITLE", "AUTHORS", "FOLLOWED", "LIBRARY"], news.map {
                    [$0.shortID, $0.title, $0.authors, "\($0.kind.rawValue) \($0.follow)", $0.library]
                })
            }
        }
    }
}
