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
        // Swinject 2.10's API on Syringe's engine: change the import, keep the code.
        .library(name: "SyringeSwinject", targets: ["SyringeSwinject"]),
    ],
    // `ServiceLifecycle` adds `Container.lifecycleService`, which closes a
    // container when a swift-service-lifecycle `ServiceGroup` shuts down. A
    // trait rather than a product of its own: SwiftPM fetches a trait's
    // dependencies only for packages that enable it, so a plain user of
    // Syringe fetches and builds nothing extra (a second product would make
    // every user fetch swift-service-lifecycle and the three packages it
    // depends on).
    traits: [
        .trait(
            name: "ServiceLifecycle",
            description: "Container.lifecycleService: close a container when a ServiceGroup shuts down."
        ),
    ],
    dependencies: [
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
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
            dependencies: [
                "CSyringeTable",
                .product(
                    name: "ServiceLifecycle",
                    package: "swift-service-lifecycle",
                    condition: .when(traits: ["ServiceLifecycle"])
                ),
            ]
        ),
        .target(
            name: "SyringeTesting",
            dependencies: ["Syringe"]
        ),
        .target(
            name: "SyringeSwinject",
            dependencies: ["Syringe", "CSyringeTable"]
        ),
        .testTarget(
            name: "CSyringeTableTests",
            dependencies: ["CSyringeTable"]
        ),
        .testTarget(
            name: "SyringeSwinjectTests",
            dependencies: ["SyringeSwinject", "Syringe"]
        ),
        .testTarget(
            name: "SyringeTests",
            dependencies: ["Syringe", "SyringeTesting"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
