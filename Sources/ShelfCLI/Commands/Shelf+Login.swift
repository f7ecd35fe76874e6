import ArgumentParser
import Foundation
import ShelfCore

extension Shelf {
    /// `shelf login`: sign in with a library card and PIN.
    struct Login: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sign in to a library with a library card and PIN.",
            discussion: """
                Reads the library's Authentication for OPDS document and asks for the card number and PIN with \
                the library's own labels. The PIN is read from the terminal without echo, or from the first \
                line of standard input with --password-stdin; never from the command line or the environment. \
                The credentials are checked with the library before they are stored, in a file only you can \
                read ($XDG_STATE_HOME/shelf/credentials, or inside --home). Libraries that sign in through a web \
                page (SAML, OpenID Connect, OAuth) are not supported from a terminal.
                """)

        @OptionGroup var global: GlobalOptions

        @Option(name: .long, help: ArgumentHelp("The library card number (asked for when not given).", valueName: "card"))
        var username: String?

        @Flag(name: .long, help: "Read the PIN from the first line of standard input.")
        var passwordStdin = false

        func run() throws {
            try withFailureHandling {
                let (_, library) = try global.openLibrary()
                let http = global.httpConfiguration
                let document = try SignIn.document(for: library, http: HTTPClient(configuration: http))
                let flow = try SignIn.flow(in: document, library: library.name)
                guard let card = try username ?? askCard(flow.loginLabel) else {
                    throw CirculationError.noTerminal(what: flow.loginLabel.lowercased())
                }
                let secret: String?
                if passwordStdin {
                    secret = Prompt.readStandardInputLine()
                } else {
                    secret = Prompt.hasTerminal ? Prompt.ask(flow.passwordLabel, secret: true) : nil
                }
                guard let secret else { throw CirculationError.noTerminal(what: flow.passwordLabel) }
                let credentials = try SignIn.signIn(
                    library: library, flow: flow, username: card.trimmingCharacters(in: .whitespaces),
                    password: secret, credentialStore: CredentialStore(home: global.resolvedHome), configuration: http)
                if !global.quiet {
                    Output.line("Signed in to \(library.name) (\(document.title)) with card \(credentials.maskedUsername). Next: shelf sync")
                }
            }
        }

        private func askCard(_ label: String) throws -> String? {
            guard Prompt.hasTerminal else { return nil }
            return Prompt.ask(label, secret: false)
        }
    }

    /// `shelf logout`: erase the stored credentials.
    struct Logout: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sign out of a library: erase the stored card, PIN and tokens.")

        @OptionGroup var global: GlobalOptions

        func run() throws {
            try withFailureHandling {
                let (_, library) = try global.openLibrary()
                let erased = CredentialStore(home: global.resolvedHome).erase(library.name)
                if !global.quiet {
                    Output.line(erased ? "Signed out of \(library.name); credentials erased." : "Not signed in to \(library.name).")
                }
            }
        }
    }
}

extension SignIn {
    /// Checks the card and PIN with the library and stores them.
    static func signIn(
        library: Library, flow: AuthenticationDocument.Flow, username: String, password: String,
        credentialStore: CredentialStore, configuration: HTTPConfiguration
    ) throws -> Credentials {
        try LibrarySession.signIn(
            library: library, flow: flow, username: username, password: password, credentialStore: credentialStore,
            configuration: configuration)
    }
}
