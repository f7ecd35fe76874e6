// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "shelf",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "shelf", targets: ["shelf"]),
        .executable(name: "shelf-listen", targets: ["shelf-listen"]),
        .executable(name: "shelf-demo-library", targets: ["shelf-demo-library"]),
        .library(name: "ShelfCore", targets: ["ShelfCore"]),
        .library(name: "DemoLibrary", targets: ["DemoLibrary"]),
        .library(name: "ShelfPlayback", targets: ["ShelfPlayback"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        // Hummingbird's own: the event loop an in-process server owns (DemoLibrary's ServerThreads).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        // No pkgConfig, which would link libcurl: CTransferLoader opens it, and libcrypto, with dlopen when the first
        // transfer or digest needs them. The headers are in the compiler's own search path.
        .systemLibrary(
            name: "CCurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "CArchive",
            pkgConfig: "libarchive",
            providers: [.apt(["libarchive-dev"])]
        ),
        // OpenSSL's libcrypto (libcurl's too): the SHA-256 of downloaded parts. Opened by CTransferLoader.
        .systemLibrary(
            name: "CCrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(name: "CTransferLoader"),
        // Crash signals another process sends end shelf (the Swift runtime's reporter alone lets it carry on).
        .target(name: "CCrashGuard"),
        // glibc's allocator knobs (malloc.h), which the Glibc module does not export.
        .systemLibrary(name: "CMalloc"),
        // SQLite's session extension (in Debian's libsqlite3; sqlite3.h hides it): the sync's undo journal.
        .systemLibrary(name: "CSQLiteSession"),
        // Child processes without Foundation's `Process` (Sources/ShelfSpawn/ChildProcess.swift says why).
        .target(name: "CSpawn"),
        .target(name: "ShelfSpawn", dependencies: ["CSpawn"]),
        .target(
            name: "ShelfCore",
            dependencies: [
                "CLibXML2",
                "CCurl",
                "CArchive",
                "CCrypto",
                "CTransferLoader",
                "CMalloc",
                "CSQLiteSession",
                "ShelfSpawn",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        .target(
            name: "ShelfCLI",
            dependencies: [
                "ShelfCore",
                "CCrashGuard",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // `shelf listen` plays in shelf's own process (FFmpeg and SDL are opened with dlopen only then).
        .executableTarget(name: "shelf", dependencies: ["ShelfCLI", "ShelfListen", "ShelfKeyring"]),
        // The player. Also a program of its own, shelf-listen, which `shelf export` and `shelf doctor` hand over to.
        .target(
            name: "ShelfListen",
            dependencies: [
                "ShelfCLI",
                "ShelfCore",
                "ShelfPlayback",
                "CSystemd",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The desktop keyring (Secret Service over sd-bus), installed by shelf and shelf-listen for ShelfCore's
        // credential store.
        .target(name: "ShelfKeyring", dependencies: ["ShelfCore", "CSystemd"]),
        // sd-bus, for the player's MPRIS interfaces (media keys, playerctl, desktop widgets).
        .systemLibrary(
            name: "CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        .executableTarget(name: "shelf-listen", dependencies: ["ShelfListen", "ShelfKeyring"]),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .target(
            name: "DemoLibrary",
            dependencies: [
                "CZlib", "ShelfSpawn",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // The demo library's server: its own program, so only it links Hummingbird (`shelf demo` starts it).
        .executableTarget(
            name: "shelf-demo-library",
            dependencies: [
                "DemoLibrary",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // libFuzzer targets for every parser, one binary (Scripts/fuzz builds it with -sanitize=fuzzer,address and
        // links it by hand: a library, since an executable's own main clashes with libFuzzer's).
        .target(name: "ShelfFuzz", dependencies: ["ShelfCore"]),
        .testTarget(name: "ShelfCoreTests", dependencies: ["ShelfCore", "DemoLibrary", "ShelfFuzz", "ShelfSpawn"]),
        .testTarget(
            name: "ShelfCLITests",
            dependencies: [
                "ShelfCLI", "ShelfCore", "ShelfPlayback", "DemoLibrary", "ShelfSpawn",
                // Serves real catalog documents on loopback (Support/DocumentServer.swift).
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            exclude: ["Snapshots"]),
        .testTarget(name: "DemoLibraryTests", dependencies: ["DemoLibrary", "ShelfSpawn"]),
        // FFmpeg's headers as one module.
        // No pkgConfig, which would link the libraries: CPlaybackLoader opens them with dlopen. The headers are in
        // the compiler's own search path.
        .systemLibrary(
            name: "CFFmpeg",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libswresample-dev", "libavutil-dev"])]
        ),
        // No pkgConfig: sdl2.pc adds -D_REENTRANT, which SwiftPM refuses; the shim includes SDL2/SDL.h itself.
        .systemLibrary(name: "CSDL2", providers: [.apt(["libsdl2-dev"])]),
        // FFmpeg's and SDL2's functions as shelf calls them, through pointers that dlopen and dlsym fill when the
        // player first needs them, so `shelf` can be the player without its other commands loading either.
        .target(name: "CPlaybackLoader"),
        .target(name: "ShelfPlayback", dependencies: ["CFFmpeg", "CSDL2", "CPlaybackLoader"]),
        .testTarget(name: "ShelfPlaybackTests", dependencies: ["ShelfPlayback", "ShelfSpawn"]),
        // The player's rules (ListenMachine) by table, without the player, the terminal or the clock.
        .testTarget(name: "ShelfListenTests", dependencies: ["ShelfListen", "ShelfCore", "ShelfPlayback"]),
        // The playback benchmark (Benchmarks/listen.sh runs it); not a test, so `swift test` never runs it.
        .executableTarget(name: "shelf-playback-bench", dependencies: ["ShelfPlayback"], path: "Benchmarks/PlaybackBench"),
    ],
    swiftLanguageModes: [.v6]
)
