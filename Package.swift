// swift-tools-version:6.1
import PackageDescription

// xxHash is used header-only (`XXH_INLINE_ALL`), so binaries must not need
// libxxhash.so at run time. Asking pkg-config for the header also brings its
// `-lxxhash`, which SwiftPM puts on every link line ahead of any flag a
// manifest can add, and the linker then records the library as needed. On
// Linux the header is in the compiler's default include path wherever the
// distribution installs it (Debian and Ubuntu: libxxhash-dev), so pkg-config
// is not asked there; Homebrew installs outside the default paths, so on
// Apple platforms it is.
#if os(Linux)
let xxhashPkgConfig: String? = nil
#else
let xxhashPkgConfig: String? = "libxxhash"
#endif

let package = Package(
    name: "Syringe",
    // `Synchronization` (Atomic) and the stdlib's NFC view set the Apple floor.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "Syringe", targets: ["Syringe"]),
        .library(name: "SyringeTesting", targets: ["SyringeTesting"]),
    ],
    targets: [
        .systemLibrary(
            name: "CXXHash",
            pkgConfig: xxhashPkgConfig,
            providers: [.apt(["libxxhash-dev"]), .brew(["xxhash"])]
        ),
        // The C resolution table. Its public header is the top-level `include/`.
        // Debug builds (`swift test`, the sanitizer runs) check the table's
        // invariants after every write; release builds, which users ship, don't.
        .target(
            name: "CSyringeTable",
            dependencies: ["CXXHash"],
            path: ".",
            sources: ["Sources/CSyringeTable"],
            publicHeadersPath: "include",
            cSettings: [.define("SYR_INTERNAL_CHECKS", .when(configuration: .debug))]
        ),
        .target(
            name: "Syringe",
            dependencies: ["CSyringeTable"]
        ),
        .target(
            name: "SyringeTesting",
            dependencies: ["Syringe"]
        ),
        .testTarget(
            name: "CSyringeTableTests",
            dependencies: ["CSyringeTable"]
        ),
        .testTarget(
            name: "SyringeTests",
            dependencies: ["Syringe", "SyringeTesting"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
