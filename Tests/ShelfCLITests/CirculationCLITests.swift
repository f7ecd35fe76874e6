import DemoLibrary
import Foundation
import GRDB
import ShelfCore
import Testing

@Suite(.serialized, .timeLimit(.minutes(5))) struct CirculationCLITests {
    /// Signs the runner in as the demo patron.
    private func login(_ fixture: CLIFixture, pin: String = "1234") async throws -> ShelfRunner.Result {
        try await fixture.shelf.run(["login", "--username", "demo", "--password-stdin"], input: pin + "\n")
    }

    @Test func loginSyncLoansHoldsLogout() async throws {
        let fixture = try await CLIFixture()
        _ = try await fixture.shelf.run(["sync", "--quiet"])
        let before = try await fixture.shelf.run(["loans"])
        #expect(before.stdout.hasPrefix("No loans."))

        let login = try await login(fixture)
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stdout.contains("Signed in to demo (Shelf Demo Library) with card ••mo."))
        let file = fixture.shelf.home.appendingPathComponent("credentials/demo.json")
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)

        let sync = try await fixture.shelf.run(["sync"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stdout.hasPrefix("0 new, 0 updated, 0 removed, 2 loans, 1 hold"))
        let loans = try await fixture.shelf.run(["loans", "--json"])
        let onLoan = try JSONDecoder.iso.decode([EditionSummary].self, from: Data(loans.stdout.utf8))
        #expect(onLoan.count == 2)
        #expect(onLoan.allSatisfy { $0.entitlement == .loan && $0.circulation.hasSuffix("days left") })
        #expect(onLoan.allSatisfy { $0.actions.contains(.return) && $0.revokeURL != nil })
        let holds = try await fixture.shelf.run(["holds"])
        #expect(holds.stdout.contains("on hold, #2 in line for"))

        let logout = try await fixture.shelf.run(["logout"])
        #expect(logout.stdout == "Signed out of demo; credentials erased.\n")
        #expect(!FileManager.default.fileExists(atPath: file.path))
        // Local lists still work, signed out and offline.
        await fixture.server.stop()
        let offline = try await fixture.shelf.run(["loans"])
        #expect(offline.status == 0 && offline.stdout.contains("Frankenstein"))
        fixture.shelf.cleanUp()
    }

    @Test func aHoldSaysWhenItMayComeAsAnEstimate() async throws {
        let fixture = try await CLIFixture()
        _ = try await fixture.shelf.run(["sync", "--quiet"])
        // Signed out the hold is not known; signed in, the demo patron is #2 in line and has two 21-day loans.
        _ = try await login(fixture)
        _ = try await fixture.shelf.run(["sync", "--quiet"])
        let json = try await fixture.shelf.run(["holds", "--json"])
        let holds = try JSONDecoder.iso.decode([EditionSummary].self, from: Data(json.stdout.utf8))
        let hold = try #require(holds.first { $0.entitlement == .hold })
        let copies = try #require(hold.copiesTotal)
        let wait = try #require(hold.holdWait, "\(json.stdout)")
        #expect(wait.position == 2 && wait.copies == copies && wait.loanDays == 21 && wait.loanDaysMeasured)
        // (⌈2 / copies⌉ − ½) × 21 days.
        let expected = (Double((2 + copies - 1) / copies) - 0.5) * 21
        #expect(wait.days == expected)
        let table = try await fixture.shelf.run(["holds"])
        #expect(table.stdout.contains("WAIT (ESTIMATE)") && table.stdout.contains(wait.text), "\(table.stdout)")
        #expect(table.stdout.contains("Waits are estimates from your place in line, the library's copies and the loans you have had here (21 days)."))
        let show = try await fixture.shelf.run(["show", hold.shortID])
        #expect(show.stdout.contains("Wait  ") && show.stdout.contains("\(wait.text) (an estimate from #2 in line, \(copies) cop"),
                "\(show.stdout)")
        // A title that is no hold has no wait.
        let loan = try await fixture.shelf.run(["show", "7d3c0003", "--json"])
        #expect(!loan.stdout.contains("holdWait"))
        await fixture.finish()
    }

    @Test func aWrongPINStoresNothing() async throws {
        let fixture = try await CLIFixture()
        _ = try await fixture.shelf.run(["sync", "--quiet"])
        let wrong = try await login(fixture, pin: "0000")
        #expect(wrong.status == ShelfExit.notPermitted.rawValue)
        #expect(wrong.stderr == "shelf: demo did not accept that card number and PIN; nothing was stored\n")
        #expect(!FileManager.default.fileExists(atPath: fixture.shelf.home.appendingPathComponent("credentials/demo.json").path))
        await fixture.finish()
    }

    @Test func thePINNeverAppearsInOutputOrLogs() async throws {
        let fixture = try await CLIFixture()
        let pin = "1234"
        let login = try await fixture.shelf.run(["login", "--username", "demo", "--password-stdin", "-v"], input: pin + "\n")
        let sync = try await fixture.shelf.run(["sync", "-v"])
        let status = try await fixture.shelf.run(["status", "-v"])
        for result in [login, sync, status] {
            #expect(result.status == 0, "\(result.stderr)")
            let all = result.stdout + result.stderr
            #expect(!all.contains("demo:1234"))
            #expect(!all.contains(Data("demo:1234".utf8).base64EncodedString()))
            #expect(!all.contains("Authorization"))
            #expect(!all.contains(":\(pin)"))
        }
        #expect(sync.stderr.contains("fetching loans feed page 1"))
        await fixture.finish()
    }

    @Test func anEmptyLoansFeedKeepsTheLoansAndWarns() async throws {
        let fixture = try await CLIFixture()
        _ = try await login(fixture)
        _ = try await fixture.shelf.run(["sync", "--quiet"])
        await fixture.server.state.setEmptyLoans(true)
        let sync = try await fixture.shelf.run(["sync"])
        #expect(sync.status == 0)
        #expect(sync.stderr.contains("the loans feed came back empty while 3 loans and holds are stored; kept them all"))
        #expect(sync.stdout.hasPrefix("0 new, 0 updated, 0 removed, 2 loans, 1 hold"))
        let loans = try await fixture.shelf.run(["loans"])
        #expect(loans.stdout.contains("Frankenstein"))
        // The patron can say the empty feed is right.
        let accepted = try await fixture.shelf.run(["sync", "--accept-empty-loans"])
        #expect(accepted.stdout.hasPrefix("0 new, 0 updated, 0 removed, 0 loans, 0 holds"))
        #expect(accepted.stdout.contains("loan ended"))
        await fixture.finish()
    }

    @Test func loginNeedsAPINSourceWithoutATerminal() async throws {
        let fixture = try await CLIFixture()
        _ = try await fixture.shelf.run(["sync", "--quiet"])
        let result = try await fixture.shelf.run(["login", "--username", "demo"])
        #expect(result.status == ShelfExit.usage.rawValue)
        #expect(result.stderr.contains("use --password-stdin"))
        await fixture.finish()
    }

    @Test func actingWithoutSigningInSaysSoBeforeAnyRequest() async throws {
        let fixture = try await CLIFixture()
        _ = try await fixture.shelf.run(["sync", "--quiet"])
        await fixture.server.state.resetStats()
        let borrow = try await fixture.shelf.run(["borrow", "7d3c0002"])
        #expect(borrow.status == ShelfExit.notPermitted.rawValue)
        #expect(borrow.stderr.contains("not signed in to demo: run `shelf login --library demo` first"))
        let openAccess = try await fixture.shelf.run(["borrow", "7d3c0001"])
        #expect(openAccess.status == ShelfExit.notAllowed.rawValue)
        #expect(openAccess.stderr.contains("cannot borrow Pride and Prejudice: it is open access"))
        let reserveAvailable = try await fixture.shelf.run(["reserve", "7d3c0002"])
        #expect(reserveAvailable.stderr.contains("a copy is free now: shelf borrow 7d3c0002"))
        let unknown = try await fixture.shelf.run(["borrow", "nope"])
        #expect(unknown.status == ShelfExit.notFound.rawValue)
        let returnNothing = try await fixture.shelf.run(["return", "7d3c0002", "--yes"])
        #expect(returnNothing.stderr.contains("it is not on loan or on hold to you"))
        #expect(await fixture.server.state.requestCount("/works") == 0)
        await fixture.finish()
    }
}

@Suite(.serialized, .timeLimit(.minutes(5))) struct BorrowReserveReturnTests {
    private func signedIn(_ configuration: DemoConfiguration = DemoConfiguration()) async throws -> CLIFixture {
        let fixture = try await CLIFixture(configuration: configuration)
        _ = try await fixture.shelf.run(["sync", "--quiet"])
        let login = try await fixture.shelf.run(["login", "--username", "demo", "--password-stdin"], input: "1234\n")
        #expect(login.status == 0, "\(login.stderr)")
        _ = try await fixture.shelf.run(["sync", "--quiet"])
        return fixture
    }

    @Test func borrowThenReturn() async throws {
        let fixture = try await signedIn()
        let borrow = try await fixture.shelf.run(["borrow", "7d3c000a"])
        #expect(borrow.status == 0, "\(borrow.stderr)")
        #expect(borrow.stdout.range(of: #"^Borrowed The Secret Garden\. Due [A-Z][a-z]{2} \d{1,2}( \d{4})? \(21 days\)\.\n$"#,
                                    options: .regularExpression) != nil, "\(borrow.stdout)")
        let patron = try #require(await fixture.server.state.patron(named: "demo"))
        #expect(patron.loans.contains { $0.titleID == "urn:uuid:7d3c000a-5a1e-4c6b-9f0e-d0c5e1f0000a" })
        let show = try await fixture.shelf.run(["show", "7d3c000a"])
        #expect(show.stdout.contains("on loan, 20 days left") || show.stdout.contains("on loan, 21 days left"))
        #expect(show.stdout.contains("Actions       download, return"))

        // Already on loan is exit status 82, as shelf(1) documents it (not 85, "does not apply").
        let again = try await fixture.shelf.run(["borrow", "7d3c000a"])
        #expect(again.status == ShelfExit.alreadyHave.rawValue)
        #expect(again.stderr == "shelf: cannot borrow The Secret Garden: it is already on loan to you\n")
        let reserveAgain = try await fixture.shelf.run(["reserve", "7d3c000a"])
        #expect(reserveAgain.status == ShelfExit.alreadyHave.rawValue)

        let giveBack = try await fixture.shelf.run(["return", "7d3c000a", "--yes"])
        #expect(giveBack.stdout == "Returned The Secret Garden.\n", "\(giveBack.stderr)")
        let after = try #require(await fixture.server.state.patron(named: "demo"))
        #expect(!after.loans.contains { $0.titleID == "urn:uuid:7d3c000a-5a1e-4c6b-9f0e-d0c5e1f0000a" })
        let loans = try await fixture.shelf.run(["loans"])
        #expect(!loans.stdout.contains("The Secret Garden"))
        let history = try await fixture.shelf.run(["show", "7d3c000a"])
        #expect(history.stdout.contains("ended: returned with shelf"))
        await fixture.finish()
    }

    @Test func aHoldBecomesReadyWhenAnotherPatronReturns() async throws {
        let fixture = try await signedIn()
        let id = "urn:uuid:7d3c000c-5a1e-4c6b-9f0e-d0c5e1f0000c"
        // Another patron takes the last free copy.
        try await fixture.server.state.borrow(id, as: "other")
        _ = try await fixture.shelf.run(["sync", "--quiet"])
        let borrow = try await fixture.shelf.run(["borrow", "7d3c000c"])
        #expect(borrow.status == ShelfExit.notAllowed.rawValue)
        #expect(borrow.stderr.contains("no copy is free now: shelf reserve 7d3c000c"))

        let reserve = try await fixture.shelf.run(["reserve", "7d3c000c"])
        #expect(reserve.status == 0, "\(reserve.stderr)")
        #expect(reserve.stdout.range(of: #"^Reserved The War of the Worlds\. #\d+ in line for 2 copies\.\n$"#,
                                     options: .regularExpression) != nil, "\(reserve.stdout)")
        let holds = try await fixture.shelf.run(["holds"])
        #expect(holds.stdout.contains("The War of the Worlds") && holds.stdout.contains("on hold, #"))

        // The other patron returns: the copy waits for this patron.
        try await fixture.server.state.revoke(id, as: "other")
        let sync = try await fixture.shelf.run(["sync"])
        #expect(sync.stdout.contains("The War of the Worlds: ready to borrow until"), "\(sync.stdout)")
        let ready = try await fixture.shelf.run(["holds"])
        #expect(ready.stdout.contains("ready to borrow until"))
        let claim = try await fixture.shelf.run(["borrow", "7d3c000c"])
        #expect(claim.stdout.hasPrefix("Borrowed The War of the Worlds. Due"), "\(claim.stderr)")
        await fixture.finish()
    }

    @Test func cancellingAHold() async throws {
        let fixture = try await signedIn()
        let cancel = try await fixture.shelf.run(["return", "7d3c0004", "--yes"])
        #expect(cancel.stdout == "Cancelled your hold on Moby Dick.\n", "\(cancel.stderr)")
        let patron = try #require(await fixture.server.state.patron(named: "demo"))
        #expect(!patron.loans.contains { $0.titleID == "urn:uuid:7d3c0004-5a1e-4c6b-9f0e-d0c5e1f00004" })
        #expect(try await fixture.shelf.run(["holds"]).stdout == "No holds.\n")
        await fixture.finish()
    }

    @Test func limitsAndRefusalsAreOneLineEachWithTheirOwnExitStatus() async throws {
        var configuration = DemoConfiguration()
        configuration.loanLimit = 3
        configuration.holdLimit = 1
        let fixture = try await signedIn(configuration)
        // The patron borrows on another device after the last sync: three loans now, the limit.
        try await fixture.server.state.borrow("urn:uuid:7d3c0016-5a1e-4c6b-9f0e-d0c5e1f00016", as: "demo")
        let already = try await fixture.shelf.run(["borrow", "7d3c0016"])
        #expect(already.status == ShelfExit.alreadyHave.rawValue, "\(already.stderr)")
        #expect(already.stderr.hasPrefix("shelf: already yours: "))

        let limit = try await fixture.shelf.run(["borrow", "7d3c0010"])
        #expect(limit.status == ShelfExit.loanLimit.rawValue)
        // Said once: the library's title and its advice are not repeated.
        #expect(limit.stderr == "shelf: loan limit reached: you have reached your loan limit of 3; return one with `shelf return ID` first (`shelf loans` lists them)\n",
                "\(limit.stderr)")

        let holdLimit = try await fixture.shelf.run(["reserve", "7d3c0008"])
        #expect(holdLimit.status == ShelfExit.holdLimit.rawValue)
        #expect(holdLimit.stderr.hasPrefix("shelf: hold limit reached: "))

        await fixture.server.state.updateSwitches { $0.borrowFails = true }
        let failed = try await fixture.shelf.run(["reserve", "7d3c000e"])
        #expect(failed.status == ShelfExit.serverError.rawValue)
        #expect(failed.stderr.hasPrefix("shelf: the library refused (500)"))
        await fixture.server.state.updateSwitches { $0.borrowFails = false; $0.borrowHTML = true }
        let html = try await fixture.shelf.run(["return", "7d3c0004", "--yes"])
        #expect(html.status == 0)
        let notEntry = try await fixture.shelf.run(["reserve", "7d3c0004"])
        #expect(notEntry.status == ShelfExit.badData.rawValue)
        #expect(notEntry.stderr.contains("is not an OPDS entry (an HTML page)"))
        await fixture.finish()
    }

    @Test func anExpiredTokenIsRenewedOnce() async throws {
        let fixture = try await signedIn()
        let before = await fixture.server.state.stats.tokensIssued
        await fixture.server.state.expireAllTokens()
        let sync = try await fixture.shelf.run(["sync"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stdout.contains("2 loans, 1 hold"))
        #expect(await fixture.server.state.stats.tokensIssued == before + 1)
        #expect(FileManager.default.fileExists(atPath: fixture.shelf.home.appendingPathComponent("credentials/demo.json").path))
        await fixture.finish()
    }

    @Test func aServerThatForgotItsTokensGetsANewOneAndOnlyARejectedPINIsErased() async throws {
        let fixture = try await signedIn()
        let file = fixture.shelf.home.appendingPathComponent("credentials/demo.json")
        let before = await fixture.server.state.stats.tokensIssued
        // The server restarted without its tokens: it calls the stored one "invalid credentials", yet the card
        // and PIN are still good.
        await fixture.server.state.forgetAllTokens()
        let sync = try await fixture.shelf.run(["sync"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stdout.contains("2 loans, 1 hold"))
        #expect(await fixture.server.state.stats.tokensIssued == before + 1)
        #expect(FileManager.default.fileExists(atPath: file.path))
        // Then the library changes the PIN and forgets the tokens again: now the card and PIN themselves are refused.
        try await fixture.server.state.setPassword("9999", for: "demo")
        await fixture.server.state.forgetAllTokens()
        let refused = try await fixture.shelf.run(["sync"])
        #expect(refused.status == ShelfExit.notPermitted.rawValue, "\(refused.stderr)")
        #expect(refused.stderr.contains("no longer accepts the stored card and PIN; they were erased"))
        #expect(!FileManager.default.fileExists(atPath: file.path))
        await fixture.finish()
    }

    @Test func credentialsTheLibraryRejectsAreErased() async throws {
        let fixture = try await signedIn()
        let file = fixture.shelf.home.appendingPathComponent("credentials/demo.json")
        // The patron's PIN changed at the library: the stored one no longer works, and the token lapses.
        var stored = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as! [String: Any]
        stored["password"] = "0000"
        stored["tokenExpiresAt"] = 0
        try JSONSerialization.data(withJSONObject: stored).write(to: file)
        let sync = try await fixture.shelf.run(["sync"])
        #expect(sync.status == ShelfExit.notPermitted.rawValue)
        #expect(sync.stderr.contains("demo no longer accepts the stored card and PIN; they were erased: run `shelf login --library demo`"))
        #expect(!FileManager.default.fileExists(atPath: file.path))
        // Loans already known stay listed.
        #expect(try await fixture.shelf.run(["loans"]).stdout.contains("Frankenstein"))
        await fixture.finish()
    }

    @Test func aNetworkErrorDoesNotEraseCredentials() async throws {
        let fixture = try await signedIn()
        await fixture.server.stop()
        let borrow = try await fixture.shelf.run(["borrow", "7d3c000a"])
        #expect(borrow.status == ShelfExit.offline.rawValue)
        #expect(borrow.stderr.hasPrefix("shelf: offline: cannot reach 127.0.0.1"))
        #expect(FileManager.default.fileExists(atPath: fixture.shelf.home.appendingPathComponent("credentials/demo.json").path))
        fixture.shelf.cleanUp()
    }

    @Test func unsupportedAndMalformedSignIn() async throws {
        var saml = DemoConfiguration()
        // NYPL's Clever sign-in (OAuth with an intermediary) is one shelf does not speak.
        saml.authFlows = [.other(type: "http://librarysimplified.org/authtype/OAuth-with-intermediary")]
        let fixture = try await CLIFixture(configuration: saml)
        _ = try await fixture.shelf.run(["sync", "--quiet"])
        let login = try await fixture.shelf.run(["login", "--username", "demo", "--password-stdin"], input: "1234\n")
        #expect(login.status == ShelfExit.unsupportedAuth.rawValue)
        #expect(login.stderr.contains("OAuth with intermediary"))
        #expect(login.stderr.contains("which shelf cannot use"))
        await fixture.server.state.updateSwitches { $0.malformedAuthDocument = true }
        let malformed = try await fixture.shelf.run(["login", "--username", "demo", "--password-stdin"], input: "1234\n")
        #expect(malformed.status == ShelfExit.badData.rawValue)
        #expect(malformed.stderr.contains("authentication document"))
        #expect(malformed.stderr.contains("is malformed"))
        await fixture.finish()
    }
}

@Suite(.serialized, .timeLimit(.minutes(5))) struct LoanLifecycleTests {
    @Test func aLoanReturnedElsewhereClearsItsFilesAndALoanDueSoonIsReported() async throws {
        var configuration = DemoConfiguration()
        configuration.loanDuration = 2 * 86_400
        let fixture = try await CLIFixture(configuration: configuration)
        _ = try await fixture.shelf.run(["sync", "--quiet"])
        _ = try await fixture.shelf.run(["login", "--username", "demo", "--password-stdin"], input: "1234\n")
        let borrow = try await fixture.shelf.run(["borrow", "7d3c000a"])
        #expect(borrow.stdout.contains("(2 days)"), "\(borrow.stdout) \(borrow.stderr)")
        let sync = try await fixture.shelf.run(["sync", "--no-download"])
        #expect(sync.stdout.contains("The Secret Garden: 1 day left"), "\(sync.stdout)")
        // Told once: the next sync does not repeat it.
        #expect(!(try await fixture.shelf.run(["sync", "--no-download"])).stdout.contains("1 day left"))

        // As if downloaded: the edition is Downloaded and its files are on disk.
        let home = Home(directory: fixture.shelf.home)
        let store = try Store(home: home)
        let library = try store.library(named: "demo")
        for event in [LifecycleEvent.downloadRequested, .authorised, .transferFinished, .processed] {
            try store.applyLifecycle(event, to: try store.resolveEdition("7d3c000a", in: library))
        }
        let rowID = try store.resolveEdition("7d3c000a", in: library).rowID
        let files = home.files(library: library.id, edition: rowID)
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        try Data("audio".utf8).write(to: files.appendingPathComponent("part-1.mp3"))

        // Returned on the patron's phone.
        try await fixture.server.state.revoke("urn:uuid:7d3c000a-5a1e-4c6b-9f0e-d0c5e1f0000a", as: "demo")
        let after = try await fixture.shelf.run(["sync", "--no-download"])
        #expect(after.status == 0, "\(after.stderr)")
        #expect(after.stdout.contains("The Secret Garden: loan ended"))
        #expect(!FileManager.default.fileExists(atPath: files.path))
        let detail = try store.edition("7d3c000a", in: library)
        #expect(detail.summary.state == .new)
        #expect(detail.summary.entitlement == .none)
        let kinds = detail.history.map(\.detail)
        #expect(kinds.contains { $0.hasPrefix("Downloaded → Clearing") })
        #expect(kinds.contains { $0.hasPrefix("Clearing → New") })
        #expect(kinds.contains { $0.contains("no longer on the loans shelf") })
        await fixture.finish()
    }
}

@Suite(.serialized, .timeLimit(.minutes(5))) struct MultipleLibraryTests {
    @Test func eachLibraryHasItsOwnSignInAndShelf() async throws {
        let first = try await CLIFixture()
        let second = DemoLibraryServer(configuration: DemoConfiguration(libraryName: "Second Library"))
        let secondURL = try await second.start()
        let shelf = first.shelf
        #expect(try await shelf.run(["library", "add", "second", secondURL.absoluteString]).status == 0)
        let login = try await shelf.run(["login", "--library", "second", "--username", "demo", "--password-stdin"],
                                        input: "1234\n")
        #expect(login.stdout.contains("Signed in to second (Second Library)"), "\(login.stderr)")
        let sync = try await shelf.run(["sync"])
        #expect(sync.stdout.contains("demo: 27 new, 0 updated, 0 removed\n"), "\(sync.stdout)")
        #expect(sync.stdout.contains("second: 27 new, 0 updated, 0 removed, 2 loans, 1 hold"))
        #expect(try await shelf.run(["loans"]).stdout.hasPrefix("No loans."))
        #expect(try await shelf.run(["loans", "--library", "second"]).stdout.contains("Frankenstein"))
        let borrow = try await shelf.run(["borrow", "7d3c000a"])
        #expect(borrow.stderr.contains("not signed in to demo"))
        #expect(try await shelf.run(["borrow", "7d3c000a", "--library", "second"]).status == 0)
        await second.stop()
        await first.finish()
    }

    @Test func aLoanWithoutARevokeLinkCannotBeReturnedFromHere() async throws {
        let fixture = try await CLIFixture()
        _ = try await fixture.shelf.run(["login", "--username", "demo", "--password-stdin"], input: "1234\n")
        _ = try await fixture.shelf.run(["sync", "--quiet"])
        let store = try Store(home: Home(directory: fixture.shelf.home))
        try store.write { db in
            try db.execute(sql: "UPDATE loan SET revoke_url = NULL")
            // The edition's revoke link is kept in its detail: written again without it.
            for row in try Row.fetchAll(db, sql: "SELECT id, entry_id, detail, authors, narrators FROM edition") {
                let id: String = row["entry_id"]
                var detail = try #require(DetailCodec.readDetail(
                    .bytes(Array(row["detail"] as Data)), entryID: id, authors: row["authors"], narrators: row["narrators"]))
                detail.revokeURL = nil
                let entry = detail.entry(id: id)
                try db.execute(
                    sql: "UPDATE edition SET detail = ? WHERE id = ?",
                    arguments: [Data(DetailCodec.detail(of: entry, names: (row["authors"], row["narrators"]))), row["id"]])
            }
        }
        await fixture.server.state.resetStats()
        let result = try await fixture.shelf.run(["return", "7d3c0003", "--yes"])
        #expect(result.status == ShelfExit.notAllowed.rawValue)
        #expect(result.stderr.contains("no revoke link"))
        #expect(await fixture.server.state.requestCount("/loans") == 0)
        await fixture.finish()
    }
}
