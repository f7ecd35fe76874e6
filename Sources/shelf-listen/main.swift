import ShelfKeyring
import ShelfListen

SecretService.install()
ListenProgram.main()
