import ArgumentParser
import Foundation
import ShelfCore

extension Shelf {
    /// `shelf login`: sign in with a library card and PIN, or a user name and password.
    struct Login: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "login",
            abstract: "Sign in to a library with a library card and PIN, or a user name and password.",
            discussion: """
                Reads the library's Authentication for OPDS document and asks for the card number and PIN with \
                the library's own labels. A library with no such document whose catalog answers 401 with an \
                HTTP Basic or Digest challenge (calibre, COPS, Kavita, Komga, calibre-web) is asked for a user \
                name and password instead; they then go with every request to the library's own scheme, host \
                and port, and to no other. The PIN or password is read from the terminal without echo, or from \
                standard input with --password-stdin; never from the command line or the environment.

                The card number or user name is taken from --username, else from the SHELF_USERNAME environment \
                variable, else asked on the terminal. With --password-stdin and neither of those, standard input \
                holds two lines: the card number or user name, then the PIN or password. An argument such as \
                --username is visible to every user of the computer (ps, /proc); prefer SHELF_USERNAME or \
                standard input on a shared machine.

                The credentials are checked with the library before they are stored, in a file only you can read \
                ($XDG_STATE_HOME/shelf/credentials, or inside --home; shelf refuses to write there when that folder \
                is a link or another user's), with the library's URL: they are sent to \
                that URL's library only, and a library pointed at another URL (or removed and added again) needs \
                `shelf login` again. Credentials the library later refuses are erased, and shelf says to sign in \
                again. Libraries that sign in through a web page (SAML, OpenID Connect, OAuth) are not supported \
                from a terminal. A library whose catalog opens without a sign-in and links no authentication \
                document has nothing to sign in to (exit status 97).
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The library to sign in to (default: --library, else the default library).", valueName: "name"))
        var name: String?

        @Option(name: .long, help: ArgumentHelp(
            "The library card number or user name (default: $SHELF_USERNAME, else asked for); other users can see it in ps.",
            valueName: "card"))
        var username: String?

        @Flag(name: .long, help: ArgumentHelp(
            "Read the PIN or password from standard input (after a line with the user name when neither --username nor SHELF_USERNAME gives it)."))
        var passwordStdin = false

        func validate() throws {
            if let name, let library = global.library, name != library {
                throw ValidationError("give the library once: \(name) or --library \(library)")
            }
        }

        func run() throws {
            try withFailureHandling {
                let store = try global.openStore()
                let library = try store.library(named: name ?? global.library)
                let http = global.httpConfiguration
                let credentialStore = CredentialStore(home: global.resolvedHome)
                switch try SignIn.method(for: library, http: HTTPClient(configuration: http)) {
                case .document(let document):
                    let flow = try SignIn.flow(in: document, library: library.name)
                    let (card, secret) = try ask(login: flow.loginLabel, password: flow.passwordLabel)
                    let credentials = try LibrarySession.signIn(
                        library: library, flow: flow, username: card, password: secret, credentialStore: credentialStore,
                        configuration: http)
                    try store.clearBackoff(libraryID: library.id)
                    if !global.quiet {
                        Output.line("Signed in to \(library.name) (\(document.title)) with card \(credentials.maskedUsername). Next: shelf sync")
                    }
                case .http(let challenge):
                    let (user, secret) = try ask(login: "User name", password: "Password")
                    let credentials = try LibrarySession.signIn(
                        library: library, challenge: challenge, username: user, password: secret,
                        credentialStore: credentialStore, configuration: http)
                    try store.clearBackoff(libraryID: library.id)
                    if !global.quiet {
                        Output.line("Signed in to \(library.name) (\(challenge.summary)) as \(credentials.maskedUsername); "
                            + "the user name and password were checked and stored. Next: shelf sync")
                    }
                }
            }
        }

        /// The user name (option, environment, standard input or prompt) and the secret (no-echo prompt or
        /// standard input), never argv.
        private func ask(login: String, password: String) throws -> (String, String) {
            let given = username ?? ProcessInfo.processInfo.environment["SHELF_USERNAME"].flatMap { $0.isEmpty ? nil : $0 }
            let user: String?
            if let given {
                user = given
            } else if passwordStdin {
                user = Prompt.readStandardInputLine()
            } else {
                user = Prompt.hasTerminal ? Prompt.ask(login, secret: false) : nil
            }
            guard let user, !user.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw CirculationError.noTerminal(what: login.lowercased())
            }
            let secret: String?
            if passwordStdin {
                secret = Prompt.readStandardInputLine()
            } else {
                secret = Prompt.hasTerminal ? Prompt.ask(password, secret: true) : nil
            }
            guard let secret else { throw CirculationError.noTerminal(what: password) }
            return (user.trimmingCharacters(in: .whitespaces), secret)
        }
    }

    /// `shelf logout`: erase the stored credentials.
    struct Logout: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "logout",
            abstract: "Sign out of a library: erase the stored card, PIN, user name, password and tokens.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The library to sign out of (default: --library, else the default library).", valueName: "name"))
        var name: String?

        func validate() throws {
            if let name, let library = global.library, name != library {
                throw ValidationError("give the library once: \(name) or --library \(library)")
            }
        }

        func run() throws {
            try withFailureHandling {
                let library = try global.openStore().library(named: name ?? global.library)
                let erased = CredentialStore(home: global.resolvedHome).erase(library.name)
                if !global.quiet {
                    Output.line(erased ? "Signed out of \(library.name); credentials erased." : "Not signed in to \(library.name).")
                }
            }
        }
    }
}
