// swift-tools-version:6.1
import PackageDescription

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
            pkgConfig: "libxxhash",
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
