import ShelfCLI
import ShelfKeyring
import ShelfListen

// `shelf listen …` plays in this process, before anything else is set up: handing over to shelf-listen would start
// a second program (Swift, Foundation and the rest loaded again) ahead of the first sound. Help and version go
// through shelf's own commands, which describe `shelf listen`.
// Sign-ins' secrets go to the desktop keyring where there is one (Secret Service), else to private files.
SecretService.install()
if ListenProgram.isPlayerInvocation(CommandLine.arguments) {
    ListenProgram.runListen(Array(CommandLine.arguments.dropFirst(2)))
}
// A download (`shelf download`, a sync) keeps the cover inside a book that came as one audio file.
ListenProgram.readEmbeddedCovers()
await ShelfProgram.main()
