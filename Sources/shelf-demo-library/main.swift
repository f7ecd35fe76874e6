import DemoLibrary

print(DemoLibraryInfo.name)
