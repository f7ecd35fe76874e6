import DemoLibrary
import Foundation
import ShelfCore
import Testing

@Suite(.serialized) struct CirculationCLITests {
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
