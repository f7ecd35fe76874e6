import ShelfCLI

await Shelf.main()
