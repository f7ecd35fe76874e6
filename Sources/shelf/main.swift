import ShelfCLI

await ShelfProgram.main()
