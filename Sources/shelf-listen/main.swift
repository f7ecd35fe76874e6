import ShelfListen

ListenProgram.main()
