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

                Where the desktop runs a keyring (the Secret Service: gnome-keyring, KeePassXC) and it is \
                unlocked, the PIN, password and tokens are kept there and the file keeps the rest; \
                SHELF_KEYRING=off keeps them in the file (moving any back from the keyring).

                The credentials are checked with the library before they are stored, in a file only you can read \
                ($XDG_STATE_HOME/shelf/credentials, or inside --home; shelf refuses to write there when that folder \
                is a link or another user's), with the library's URL: they are sent to \
                that URL's library only, and a library pointed at another URL (or removed and added again) needs \
                `shelf login` again. Credentials the library later refuses are erased, and shelf says to sign in \
                again. A library whose catalog opens without a sign-in and links no authentication document has \
                nothing to sign in to (exit status 97).

                A library that signs patrons in through a web page (Palace's SAML and OpenID Connect, \
                Authentication for OPDS's OAuth implicit grant) is signed in to through the browser: shelf opens \
                the library's page (xdg-open where there is a display; SHELF_BROWSER=PROGRAM names another, \
                SHELF_BROWSER=none or --no-browser none) and listens once on 127.0.0.1 for the library to send \
                the browser back with a token. Without a browser, open the printed address anywhere and paste the \
                address the browser ended at (or the token alone) on standard input. It waits --timeout seconds \
                (default 300), then gives up and stores nothing. A library with several identity providers lists \
                them; --idp N or part of a name chooses one. OAuth's password grant asks for the card and PIN and \
                posts them once for a token, keeping no PIN. Tokens are renewed with the refresh token the library \
                gave, when it gave one; a browser sign-in that lapses is erased and shelf says to sign in again. \
                --method card|password|saml|oidc|oauth chooses among the ways a library offers.
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

        @Option(name: .long, help: ArgumentHelp("The way to sign in, when the library offers several.", valueName: "card|password|saml|oidc|oauth"))
        var method: String?

        @Option(name: .long, help: ArgumentHelp("The identity provider, by number or part of its name.", valueName: "n|name"))
        var idp: String?

        @Flag(name: .customLong("no-browser"), help: "Print the sign-in page's address rather than opening a browser.")
        var noBrowser = false

        @Option(name: .long, help: ArgumentHelp("How long to wait for the browser, in seconds.", valueName: "seconds"))
        var timeout: Int = 300

        func validate() throws {
            if let name, let library = global.library, name != library {
                throw ValidationError("give the library once: \(name) or --library \(library)")
            }
            guard (1...3_600).contains(timeout) else { throw ValidationError("--timeout is 1 to 3600 seconds") }
            if let method, !["card", "password", "saml", "oidc", "oauth"].contains(method) {
                throw ValidationError("--method is card, password, saml, oidc or oauth, not '\(method)'")
            }
        }

        /// The flow `--method` asks for, else the library's preferred one.
        private func chooseFlow(_ document: AuthenticationDocument, library: String) throws -> AuthenticationDocument.Flow {
            guard let method else { return try SignIn.flow(in: document, library: library) }
            if let flow = document.flows.first(where: { $0.methodName == method && $0.isSupported }) { return flow }
            throw CirculationError.noSuchMethod(
                library: library, asked: method,
                offered: document.flows.filter(\.isSupported).compactMap { flow in flow.methodName.map { "\($0) (\(flow.summary))" } })
        }

        /// The identity provider `--idp` names, the only one, or the one the patron picks on the terminal.
        private func chooseProvider(_ flow: AuthenticationDocument.Flow, library: String) throws -> AuthenticationDocument.Flow.Provider {
            let providers = flow.providers
            let listed = providers.enumerated().map { "\($0.offset + 1) \($0.element.name)" }
            if let idp {
                if let number = Int(idp), providers.indices.contains(number - 1) { return providers[number - 1] }
                let matches = providers.filter { $0.name.localizedCaseInsensitiveContains(idp) }
                if matches.count == 1 { return matches[0] }
                throw CirculationError.noSuchMethod(library: library, asked: idp, offered: listed)
            }
            if providers.count == 1 { return providers[0] }
            guard Prompt.hasTerminal else {
                throw CirculationError.noSuchMethod(library: library, asked: "(choose one with --idp)", offered: listed)
            }
            Output.line("\(library) signs in through:")
            for line in listed { Output.line("  \(line)") }
            guard let answer = Prompt.ask("Which one (1-\(providers.count))", secret: false), let number = Int(answer),
                  providers.indices.contains(number - 1)
            else {
                throw CirculationError.noSuchMethod(library: library, asked: "(no choice)", offered: listed)
            }
            return providers[number - 1]
        }

        func run() throws {
            try withFailureHandling {
                let store = try global.openStore()
                let library = try store.library(named: name ?? global.library)
                let http = global.httpConfiguration
                let credentialStore = CredentialStore(home: global.resolvedHome)
                switch try SignIn.method(for: library, http: HTTPClient(configuration: http)) {
                case .document(let document):
                    let flow = try chooseFlow(document, library: library.name)
                    if flow.kind == .browser {
                        let provider = try chooseProvider(flow, library: library.name)
                        var browser = BrowserSignIn(library: library.name) { line in
                            if !global.quiet { Output.line(line) }
                            fflush(nil)
                        }
                        browser.browser = noBrowser ? nil : BrowserSignIn.defaultBrowser()
                        browser.timeout = TimeInterval(timeout)
                        browser.input = STDIN_FILENO
                        let credentials = try LibrarySession.signIn(
                            library: library, browserFlow: flow, provider: provider, document: document, browser: browser,
                            credentialStore: credentialStore, configuration: http)
                        try store.clearBackoff(libraryID: library.id)
                        if !global.quiet {
                            Output.line("Signed in to \(library.name) (\(document.title)) with \(credentials.signInName). Next: shelf sync")
                        }
                        return
                    }
                    let (card, secret) = try ask(login: flow.loginLabel, password: flow.passwordLabel)
                    let credentials = try LibrarySession.signIn(
                        library: library, flow: flow, username: card, password: secret, credentialStore: credentialStore,
                        configuration: http)
                    try store.clearBackoff(libraryID: library.id)
                    if !global.quiet {
                        Output.line("Signed in to \(library.name) (\(document.title)) with "
                            + (credentials.isTokenOnly ? "OAuth, card \(credentials.maskedUsername)" : "card \(credentials.maskedUsername)")
                            + ". Next: shelf sync")
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
                let credentialStore = CredentialStore(home: global.resolvedHome)
                // A browser sign-in is ended at the library too, where it offers a way (OpenID Connect's logout).
                if let stored = try? credentialStore.load(library.name) {
                    _ = LibrarySession.endSignIn(stored, library: library, configuration: global.httpConfiguration)
                }
                let erased = credentialStore.erase(library.name)
                if !global.quiet {
                    Output.line(erased ? "Signed out of \(library.name); credentials erased." : "Not signed in to \(library.name).")
                }
            }
        }
    }
}
