import DemoLibrary
import Foundation
import ShelfCore
import Testing

@Suite(.serialized, .timeLimit(.minutes(5))) struct DownloadCLITests {
    private func ready() async throws -> CLIFixture {
        let fixture = try await CLIFixture()
        try await fixture.signIn()
        return fixture
    }

    @Test func aBearerTokenLoanDownloadsThroughTheLifecycleAndCanBeArchived() async throws {
        let fixture = try await ready()
        let download = try await fixture.shelf.run(["download", "7d3c0002"])
        #expect(download.status == 0, "\(download.stderr)")
        #expect(download.stdout.hasPrefix("Downloaded The Adventures of Sherlock Holmes: "))
        let show = try await fixture.shelf.run(["show", "7d3c0002"])
        #expect(show.stdout.contains("State         Downloaded"))
        #expect(show.stdout.contains("Actions       listen, archive, return"))
        for step in ["New → Authorising", "Authorising → Downloading", "Downloading → Processing", "Processing → Downloaded"] {
            #expect(show.stdout.contains(step), "\(step)")
        }
        // The files are the server's bytes, part by part.
        let directory = try fixture.files(of: "7d3c0002")
        let manifest = try ShelfCore.AudiobookManifest.parse(
            Data(contentsOf: directory.appendingPathComponent("manifest.json")), url: directory)
        #expect(manifest.parts.count >= 2)
        for part in manifest.parts {
            let local = try Data(contentsOf: directory.appendingPathComponent(String(format: "part-%03d.mp3", part.index + 1)))
            #expect(local.count > 1000)
            #expect(local.prefix(3) == Data("ID3".utf8) || local.first == 0xFF)
        }
        let archive = try await fixture.shelf.run(["archive", "7d3c0002"])
        #expect(archive.stdout.contains("stays on your shelf"))
        #expect(!FileManager.default.fileExists(atPath: directory.path))
        #expect(try await fixture.shelf.run(["show", "7d3c0002"]).stdout.contains("State         New"))
        await fixture.finish()
    }

    /// The parts' bounds are options of download and sync: a margin of free space larger than the disk stops the
    /// download before a byte is written, naming the option, and the same download without it completes; values
    /// that cannot be bounds are usage errors.
    @Test func thePartBoundsAreOptionsAndKeepFreeStopsBeforeAnythingIsWritten() async throws {
        let fixture = try await ready()
        let refused = try await fixture.shelf.run(["download", "7d3c0002", "--keep-free", "100t"])
        #expect(refused.status == ShelfExit.diskFull.rawValue, "\(refused.stderr)")
        #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("less than the 104857600 MB shelf keeps free there (--keep-free)"), "\(refused.stderr)")
        #expect((try? fixture.files(of: "7d3c0002")).map { (try? FileManager.default.contentsOfDirectory(atPath: $0.path))?
            .filter { $0.hasPrefix("part-") }.isEmpty ?? true } ?? true)
        let downloaded = try await fixture.shelf.run(
            ["download", "7d3c0002", "--keep-free", "1m", "--part-cap", "512m", "--min-rate", "0", "--min-average", "4k"])
        #expect(downloaded.status == 0, "\(downloaded.stderr)")
        for (option, value, message) in [
            ("--part-cap", "10", "--part-cap takes a size of at least 1m"), ("--keep-free", "lots", "--keep-free takes a size"),
            ("--min-rate", "-1", "--min-rate takes bytes a second"), ("--min-average", "fast", "--min-average takes bytes a second"),
        ] {
            for command in ["download", "sync"] {
                let wrong = try await fixture.shelf.run([command, "\(option)=\(value)"] + (command == "download" ? ["7d3c0001"] : []))
                #expect(wrong.status == ShelfExit.usage.rawValue, "\(command) \(option) \(value): \(wrong.stderr)")
                #expect(wrong.stderr.contains(message), "\(command) \(option) \(value): \(wrong.stderr)")
            }
        }
        let pages = try await fixture.shelf.run(["sync", "--max-pages", "0"])
        #expect(pages.status == ShelfExit.usage.rawValue && pages.stderr.contains("--max-pages must be 1 to 1000000"), "\(pages.stderr)")
        await fixture.finish()
    }

    @Test func aDroppedConnectionAndAnExpiredLinkStillEndDownloaded() async throws {
        let fixture = try await ready()
        let id = "urn:uuid:7d3c0002-5a1e-4c6b-9f0e-d0c5e1f00002"
        await fixture.server.state.setAudioFaults(AudioFaults(parts: [2], dropAfterBytes: 2000), for: id)
        let first = try await fixture.shelf.run(["download", "7d3c0002"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(await fixture.server.state.partRangeRequestCount(id, part: 2) == 1)
        _ = try await fixture.shelf.run(["archive", "7d3c0002"])
        // The links handed out earlier expire: the manifest is fetched again through the loan.
        await fixture.server.state.expireFulfilment()
        let again = try await fixture.shelf.run(["download", "7d3c0002"])
        #expect(again.status == 0, "\(again.stderr)")
        await fixture.finish()
    }

    @Test func aPartThatKeepsFailingLeavesTheTitleNewWithTheReason() async throws {
        let fixture = try await ready()
        let id = "urn:uuid:7d3c0002-5a1e-4c6b-9f0e-d0c5e1f00002"
        await fixture.server.state.setAudioFaults(AudioFaults(missingParts: [2]), for: id)
        let result = try await fixture.shelf.run(["download", "7d3c0002"])
        #expect(result.status == ShelfExit.serverError.rawValue)
        #expect(result.stdout.contains("parts downloaded; part 2: the server answered 404"))
        let show = try await fixture.shelf.run(["show", "7d3c0002"])
        #expect(show.stdout.contains("State         New — "))
        #expect(show.stdout.contains("failed: the server answered 404"))
        // Once the part is back, the next run fetches only what is missing.
        await fixture.server.state.setAudioFaults(AudioFaults(), for: id)
        let before = await fixture.server.state.partRequestCount(id, part: 1)
        #expect(try await fixture.shelf.run(["download", "7d3c0002"]).status == 0)
        #expect(await fixture.server.state.partRequestCount(id, part: 1) == before)
        await fixture.finish()
    }

    @Test func aPackagedAudiobookIsExtractedSafely() async throws {
        let fixture = try await ready()
        _ = try await fixture.shelf.run(["borrow", "7d3c000a"])
        let download = try await fixture.shelf.run(["download", "7d3c000a"])
        #expect(download.status == 0, "\(download.stderr)")
        #expect(download.stdout.contains("parts from its package"))
        let directory = try fixture.files(of: "7d3c000a")
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("manifest.json").path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".mp3") }.count >= 2)
        await fixture.finish()
    }

    @Test func aDamagedPackageNamesTheTitleAndItsAdviceFetchesItAgain() async throws {
        let fixture = try await ready()
        _ = try await fixture.shelf.run(["borrow", "7d3c000a"])
        await fixture.server.state.updateSwitches { $0.damagedPackages = true }
        let damaged = try await fixture.shelf.run(["download", "7d3c000a"])
        #expect(damaged.status == ShelfExit.badData.rawValue)
        #expect(damaged.stderr.hasPrefix("shelf: the package of The Secret Garden is not a readable zip or tar archive ("),
                "\(damaged.stderr)")
        #expect(damaged.stderr.hasSuffix("run `shelf download 7d3c000a` to fetch it again, and tell the library if it goes on\n"))
        #expect(!damaged.stderr.contains("package-"), "no temporary file's name: \(damaged.stderr)")
        // The library mends it; the advice, followed, downloads the title.
        await fixture.server.state.updateSwitches { $0.damagedPackages = false }
        let again = try await fixture.shelf.run(["download", "7d3c000a"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("parts from its package"))
        await fixture.finish()
    }

    @Test func ebooksAndTitlesNotOnLoanAreRefusedBeforeAnyDownload() async throws {
        let fixture = try await ready()
        let ebook = try await fixture.shelf.run(["download", "7d3c0003"])
        #expect(ebook.status == ShelfExit.protectedContent.rawValue)
        #expect(ebook.stderr.contains("is an ebook, not an audiobook"))
        let notLoaned = try await fixture.shelf.run(["download", "7d3c000c"])
        #expect(notLoaned.status == ShelfExit.notAllowed.rawValue)
        #expect(notLoaned.stderr == "shelf: cannot download The War of the Worlds: it is not on loan to you; borrow it first (shelf borrow 7d3c000c)\n",
                "\(notLoaned.stderr)")
        let openAccess = try await fixture.shelf.run(["download", "7d3c0001"])
        #expect(openAccess.status == 0, "\(openAccess.stderr)")
        // An open-access title is no loan: nothing to return, and no hold to cancel to ask about.
        let giveBack = try await fixture.shelf.run(["return", "7d3c0001"])
        #expect(giveBack.status == ShelfExit.notAllowed.rawValue, "\(giveBack.stderr)")
        #expect(giveBack.stderr.contains("it is open access, free to everyone: there is no loan to return (`shelf archive 7d3c0001` removes its files)"),
                "\(giveBack.stderr)")
        #expect(!giveBack.stderr.contains("hold"))
        await fixture.finish()
    }

    @Test func aSecondDownloadOfATitleIsBusyAndKeepsItQueued() async throws {
        let fixture = try await ready()
        let sherlock = "urn:uuid:7d3c0002-5a1e-4c6b-9f0e-d0c5e1f00002"
        // A slow library keeps the first download going (seconds at 10 KB/s) while the second one starts and the
        // queue is read.
        await fixture.server.state.setDelay(milliseconds: 300)
        await fixture.server.state.setAudioFaults(AudioFaults(bytesPerSecond: 10_000), for: sherlock)
        let (first, firstOut, _) = try fixture.shelf.start(["download", "7d3c0002"])
        let store = try Store(home: Home(directory: fixture.shelf.home))
        let edition = try store.resolveEdition(sherlock, in: try store.library(named: "demo"))
        #expect(try await eventually { try store.lifecycle(of: edition).state == .downloading })
        let second = try await fixture.shelf.run(["download", "7d3c0002"])
        #expect(second.status == ShelfExit.busy.rawValue, "\(second.stderr)")
        #expect(second.stderr.hasPrefix("shelf: another shelf is downloading The Adventures of Sherlock Holmes now (pid "),
                "\(second.stderr)")
        #expect(second.stderr.hasSuffix("; try again when it finishes\n"), "\(second.stderr)")
        let queue = try JSONDecoder.iso.decode(
            [QueuedDownload].self, from: Data(try await fixture.shelf.run(["queue", "--json"]).stdout.utf8))
        #expect(queue.map(\.id) == [sherlock])
        await fixture.server.state.setDelay(milliseconds: 0)
        await fixture.server.state.setAudioFaults(AudioFaults(), for: sherlock)
        let firstOutput = try await offloaded {
            let data = firstOut.fileHandleForReading.readDataToEndOfFile()
            first.waitUntilExit()
            return (first.terminationStatus, String(decoding: data, as: UTF8.self))
        }
        #expect(firstOutput.0 == 0 && firstOutput.1.hasPrefix("Downloaded The Adventures of Sherlock Holmes"))
        #expect(try await fixture.shelf.run(["queue"]).stdout == "The download queue is empty.\n")
        await fixture.finish()
    }

    @Test func archivingATitleWithoutFilesSaysSo() async throws {
        let fixture = try await ready()
        let archive = try await fixture.shelf.run(["archive", "7d3c0002"])
        #expect(archive.status == ShelfExit.notAllowed.rawValue)
        #expect(archive.stderr == "shelf: cannot archive The Adventures of Sherlock Holmes: it has no downloaded files on this "
                + "computer (`shelf download 7d3c0002` fetches them)\n")
        await fixture.finish()
    }

    /// A title a stopped shelf left in Clearing (its state changed, its files not yet removed, as a kill between the
    /// two leaves it) is downloaded again by name and by `--all`: the removal is finished first, in the patron's
    /// words, with no internal event's name.
    @Test func aTitleLeftInClearingIsDownloadedAgainByNameAndByAll() async throws {
        let fixture = try await ready()
        #expect(try await fixture.shelf.run(["borrow", "7d3c0010"]).status == 0)
        for id in ["7d3c0002", "7d3c0010"] {
            let download = try await fixture.shelf.run(["download", id])
            #expect(download.status == 0, "\(download.stderr)")
        }
        let home = Home(directory: fixture.shelf.home)
        let store = try Store(home: home)
        let library = try store.library(named: "demo")
        /// Leaves `id` as a shelf killed half-way through archiving it does, with a file it had not removed yet.
        func leftInClearing(_ id: String) throws -> URL {
            let edition = try store.resolveEdition(id, in: library)
            try store.write { db in
                try db.execute(sql: "UPDATE edition SET state = 'clearing' WHERE id = ?", arguments: [edition.rowID])
            }
            let stale = home.files(library: library.id, edition: edition.rowID).appendingPathComponent("left-behind")
            try Data("stale".utf8).write(to: stale)
            return stale
        }

        let sherlockLeft = try leftInClearing("7d3c0002")
        let byName = try await fixture.shelf.run(["download", "7d3c0002"])
        #expect(byName.status == 0, "\(byName.stderr)")
        #expect(byName.stdout.hasPrefix("Downloaded The Adventures of Sherlock Holmes"), "\(byName.stdout)")
        #expect(byName.stderr.isEmpty, "\(byName.stderr)")
        #expect(!FileManager.default.fileExists(atPath: sherlockLeft.path))

        let janeLeft = try leftInClearing("7d3c0010")
        let all = try await fixture.shelf.run(["download", "--all"])
        #expect(all.status == 0, "\(all.stderr)")
        #expect(all.stdout.split(separator: "\n").count == 1 && all.stdout.hasPrefix("Downloaded Jane Eyre"),
                "\(all.stdout)")
        #expect(all.stderr.isEmpty, "\(all.stderr)")
        #expect(!FileManager.default.fileExists(atPath: janeLeft.path))
        for id in ["7d3c0002", "7d3c0010"] {
            #expect(try store.lifecycle(of: try store.resolveEdition(id, in: library)).state == .downloaded)
            let show = try await fixture.shelf.run(["show", id])
            #expect(show.stdout.contains("Clearing → New") && !show.stdout.contains("downloadRequested"),
                    "\(show.stdout)")
        }
        await fixture.finish()
    }

    @Test func theQueueKeepsFailedTitlesInOrderAndDownloadAllDrainsIt() async throws {
        let fixture = try await ready()
        let sherlock = "urn:uuid:7d3c0002-5a1e-4c6b-9f0e-d0c5e1f00002"
        let jane = "urn:uuid:7d3c0010-5a1e-4c6b-9f0e-d0c5e1f00010"
        #expect(try await fixture.shelf.run(["borrow", "7d3c0010"]).status == 0)
        await fixture.server.state.setAudioFaults(AudioFaults(missingParts: [1]), for: sherlock)
        await fixture.server.state.setAudioFaults(AudioFaults(missingParts: [1]), for: jane)
        #expect(try await fixture.shelf.run(["download", "7d3c0002"]).status == ShelfExit.serverError.rawValue)
        #expect(try await fixture.shelf.run(["download", "7d3c0010", "--priority", "high"]).status == ShelfExit.serverError.rawValue)
        var queue = try JSONDecoder.iso.decode(
            [QueuedDownload].self, from: Data(try await fixture.shelf.run(["queue", "--json"]).stdout.utf8))
        #expect(queue.map(\.id) == [jane, sherlock])
        #expect(queue.allSatisfy { $0.lastError?.contains("404") == true })
        let move = try await fixture.shelf.run(["queue", "move", "7d3c0002", "--top"])
        #expect(move.stdout == "The Adventures of Sherlock Holmes is now #1 of 2.\n", "\(move.stderr)")
        queue = try JSONDecoder.iso.decode(
            [QueuedDownload].self, from: Data(try await fixture.shelf.run(["queue", "--json"]).stdout.utf8))
        #expect(queue.map(\.id) == [sherlock, jane])

        await fixture.server.state.setAudioFaults(AudioFaults(), for: sherlock)
        await fixture.server.state.setAudioFaults(AudioFaults(), for: jane)
        let all = try await fixture.shelf.run(["download", "--all"])
        #expect(all.status == 0, "\(all.stderr)")
        let lines = all.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.hasPrefix("Downloaded The Adventures of Sherlock Holmes") == true)
        #expect(lines.last?.hasPrefix("Downloaded Jane Eyre") == true)
        #expect(try await fixture.shelf.run(["queue"]).stdout == "The download queue is empty.\n")
        #expect(try await fixture.shelf.run(["download", "--all"]).stdout == "Nothing to download.\n")
        // A title not in the queue cannot be moved in it, and the advice leads to its download.
        let notQueued = try await fixture.shelf.run(["queue", "move", "7d3c0002", "--top"])
        #expect(notQueued.status == ShelfExit.notAllowed.rawValue)
        #expect(notQueued.stderr == "shelf: The Adventures of Sherlock Holmes is not in the download queue (`shelf queue "
                + "show` lists it; `shelf download 7d3c0002` downloads it)\n")
        let removed = try await fixture.shelf.run(["queue", "remove", "7d3c0002"])
        #expect(removed.stdout == "The Adventures of Sherlock Holmes was not in the download queue.\n", "\(removed.stderr)")
        await fixture.finish()
    }

    @Test func killedAtRandomPointsTheDownloadStillEndsWithTheServersBytes() async throws {
        let fixture = try await ready()
        let id = "urn:uuid:7d3c0002-5a1e-4c6b-9f0e-d0c5e1f00002"
        await fixture.server.state.setAudioFaults(AudioFaults(bytesPerSecond: 4_000), for: id)
        for _ in 0..<3 {
            let asked = await fixture.server.state.stats.partRequests.values.reduce(0, +)
            let (process, _, _) = try fixture.shelf.start(["download", "7d3c0002", "--quiet"])
            // Killed at a random moment once its parts are coming (on a loaded machine a fixed moment after the
            // start could come before the download did).
            _ = try await eventually { await fixture.server.state.stats.partRequests.values.reduce(0, +) > asked }
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...750)))
            kill(process.processIdentifier, SIGKILL)
            try await offloaded { process.waitUntilExit() }
        }
        await fixture.server.state.setAudioFaults(AudioFaults(), for: id)
        let finish = try await fixture.shelf.run(["download", "7d3c0002"])
        #expect(finish.status == 0, "\(finish.stderr)")
        #expect(finish.stdout.hasPrefix("Downloaded The Adventures of Sherlock Holmes"))
        var resumed = 0
        for part in 1...4 { resumed += await fixture.server.state.partRangeRequestCount(id, part: part) }
        #expect(resumed > 0, "no part was resumed with a range")

        let directory = try fixture.files(of: "7d3c0002")
        let manifest = try ShelfCore.AudiobookManifest.parse(
            Data(contentsOf: directory.appendingPathComponent("manifest.json")), url: directory)
        let remote = try await offloaded {
            try manifest.parts.map { part -> Data in
                // The manifest stored is the one the library sent; its part links are still signed and valid.
                try HTTPClient().request(URL(string: part.href)!).body
            }
        }
        for part in manifest.parts {
            let local = try Data(contentsOf: directory.appendingPathComponent(String(format: "part-%03d.mp3", part.index + 1)))
            #expect(local == remote[part.index], "part \(part.index + 1)")
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains(".part") }
        #expect(leftovers.isEmpty)
        await fixture.finish()
    }

    @Test func linksThatExpireMidDownloadAreFetchedAgain() async throws {
        let fixture = try await ready()
        let id = "urn:uuid:7d3c0002-5a1e-4c6b-9f0e-d0c5e1f00002"
        // Two parts at a time, slowly: the later parts start after the links expired.
        await fixture.server.state.setAudioFaults(AudioFaults(bytesPerSecond: 40_000), for: id)
        let (process, out, err) = try fixture.shelf.start(["download", "7d3c0002", "--parallel", "2"])
        // The links expire once the first were handed out (a loaded machine may take seconds to get there).
        _ = try await eventually { await fixture.server.state.stats.fulfilmentTokensIssued >= 1 }
        try await Task.sleep(for: .milliseconds(150))
        await fixture.server.state.expireFulfilment()
        let (stdout, stderr) = try await offloaded { () -> (String, String) in
            let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (stdout, stderr)
        }
        #expect(process.terminationStatus == 0, "\(stderr)")
        #expect(stdout.hasPrefix("Downloaded The Adventures of Sherlock Holmes"))
        #expect(await fixture.server.state.stats.fulfilmentTokensIssued >= 2)
        await fixture.finish()
    }
}
