import Foundation
import ShelfCore
import Testing

/// Scripts/install into a scratch prefix: the programs, `man shelf`, the completions; then --uninstall leaves
/// the prefix without a file of shelf's. It installs the executables the tests run (--bin-path): the script's own
/// release build takes minutes on two cores.
@Suite(.serialized, .timeLimit(.minutes(5))) struct InstallScriptTests {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    private func files(under directory: URL) -> [String] {
        let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey])
        var found: [String] = []
        while let url = enumerator?.nextObject() as? URL {
            if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
                found.append(String(url.path.dropFirst(directory.path.count + 1)))
            }
        }
        return found.sorted()
    }

    /// Whether this process may mount a tmpfs in a mount namespace of its own (root, where unshare is allowed).
    static let canHideFolders = ExternalProgram.run("unshare", ["-m", "sh", "-c", "mount -t tmpfs none /mnt"]).status == 0

    @Test func installsProgramsManPagesAndCompletionsAndUninstallsExactlyThose() throws {
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-prefix-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: prefix, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: prefix) }
        // Something of the patron's already in the prefix: left alone by both.
        let theirs = prefix.appendingPathComponent("share/man/man1/other.1")
        try FileManager.default.createDirectory(at: theirs.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(".TH OTHER 1\n".utf8).write(to: theirs)

        let script = Self.root.appendingPathComponent("Scripts/install").path
        let bin = ShelfRunner.executable.deletingLastPathComponent().path
        let install = ExternalProgram.run(script, ["--prefix", prefix.path, "--bin-path", bin], timeout: 120)
        #expect(install.status == 0, "\(install.stderr)")
        let pages = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("man").path)
        #expect(install.stdout.hasPrefix("shelf: installed \(3 + pages.count + 3) files into \(prefix.path)\n"), "\(install.stdout)")
        for program in ["shelf", "shelf-listen", "shelf-demo-library"] {
            #expect(FileManager.default.isExecutableFile(atPath: prefix.appendingPathComponent("bin/\(program)").path))
        }
        // The installed shelf runs, and finds its player beside itself.
        let version = ExternalProgram.run(prefix.appendingPathComponent("bin/shelf").path, ["--version"])
        #expect(version.status == 0 && version.stdout == ShelfVersion.current + "\n")

        // The installed programs stand alone: with the checkout's build folder out of sight (a tmpfs mounted over
        // it, in a mount namespace of the demo's own), `shelf demo` starts the installed demo library, which
        // serves its built-in catalog.
        if Self.canHideFolders {
            let build = ShelfRunner.executable.resolvingSymlinksInPath().pathComponents
            let root = try #require(build.firstIndex(of: ".build"))
            let buildFolder = NSString.path(withComponents: Array(build[...root]))
            let home = prefix.appendingPathComponent("home")
            let demo = ExternalProgram.run(
                "unshare", ["-m", "sh", "-c", "mount -t tmpfs none \"$1\" && exec \"$2\" demo --port 0 --home \"$3\"",
                            "sh", buildFolder, prefix.appendingPathComponent("bin/shelf").path, home.path],
                timeout: 120)
            #expect(demo.status == 0, "\(demo.stderr)")
            #expect(demo.stdout.contains("The Adventures of Sherlock Holmes"), "\(demo.stdout)")
            #expect(!demo.stderr.contains("missing"), "\(demo.stderr)")
            try? FileManager.default.removeItem(at: home)
        }

        let man = ExternalProgram.run("man", ["-M", prefix.appendingPathComponent("share/man").path, "-P", "cat", "shelf"],
                                      environment: ProcessInfo.processInfo.environment.merging(["MANWIDTH": "100"]) { $1 })
        #expect(man.status == 0, "\(man.stderr)")
        #expect(man.stdout.contains("Sync and play public-library audiobooks"), "\(man.stdout.prefix(300))")
        let schedulePage = ExternalProgram.run("man", ["-M", prefix.appendingPathComponent("share/man").path, "-w", "shelf.schedule"])
        #expect(schedulePage.status == 0, "\(schedulePage.stderr)")

        let bash = prefix.appendingPathComponent("share/bash-completion/completions/shelf").path
        let loaded = ExternalProgram.run("bash", ["-c", "source \"$1\" && complete -p shelf", "bash", bash])
        #expect(loaded.status == 0, "\(loaded.stderr)")
        #expect(loaded.stdout.hasPrefix("complete ") && loaded.stdout.contains(" -F _shelf") && loaded.stdout.hasSuffix(" shelf\n"), "\(loaded.stdout)")
        let zsh = try String(contentsOf: prefix.appendingPathComponent("share/zsh/site-functions/_shelf"), encoding: .utf8)
        #expect(zsh.hasPrefix("#compdef shelf"))
        let fish = try String(contentsOf: prefix.appendingPathComponent("share/fish/vendor_completions.d/shelf.fish"), encoding: .utf8)
        #expect(fish.contains("complete -c 'shelf'"))

        // Installing again replaces, and lists each file once.
        #expect(ExternalProgram.run(script, ["--prefix", prefix.path, "--bin-path", bin], timeout: 120).status == 0)
        let manifest = try String(contentsOf: prefix.appendingPathComponent("share/shelf/installed-files"), encoding: .utf8)
        #expect(manifest.split(separator: "\n").count == 3 + pages.count + 3)

        let uninstall = ExternalProgram.run(script, ["--prefix", prefix.path, "--uninstall"])
        #expect(uninstall.status == 0, "\(uninstall.stderr)")
        #expect(uninstall.stdout == "shelf: removed \(3 + pages.count + 3) files from \(prefix.path)\n")
        #expect(files(under: prefix) == ["share/man/man1/other.1"])
        #expect(!FileManager.default.fileExists(atPath: prefix.appendingPathComponent("bin").path))

        let again = ExternalProgram.run(script, ["--prefix", prefix.path, "--uninstall"])
        #expect(again.status == 66)
        #expect(again.stderr.contains("nothing to uninstall"))
    }
}
