import ArgumentParser
import Testing
@testable import ShelfCLI

/// Every command names itself. Without a `commandName`, ArgumentParser derives the name from
/// `String(describing: Self.self)` when it builds the command tree, and each such call scans the program's every
/// protocol conformance: a sixth of `shelf --version`'s time before the commands were named.
@Suite(.timeLimit(.minutes(5))) struct CommandNameTests {
    @Test func everyCommandHasAnExplicitName() {
        var unnamed: [String] = []
        var names: [String] = []
        func visit(_ command: any ParsableCommand.Type, path: String) {
            let configuration = command.configuration
            guard let name = configuration.commandName else {
                unnamed.append("\(path) > \(command)")
                return
            }
            names.append(path.isEmpty ? name : "\(path) \(name)")
            for subcommand in configuration.subcommands {
                visit(subcommand, path: path.isEmpty ? name : "\(path) \(name)")
            }
        }
        visit(Shelf.self, path: "")
        #expect(unnamed.isEmpty, "commands without a commandName: \(unnamed)")
        // The tree is whole: the commands a patron types most, and a nested one.
        for expected in ["shelf list", "shelf status", "shelf show", "shelf sync", "shelf queue move", "shelf library add"] {
            #expect(names.contains(expected), "\(expected) is missing from \(names)")
        }
    }
}
