// swift-tools-version:6.2
import PackageDescription

// A Hummingbird 2 service wired with Syringe: request scopes, an async
// start-up, graceful shutdown, SQLite. See README.md.
let package = Package(
    name: "TodoService",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "TodoServer", targets: ["TodoServer"]),
    ],
    dependencies: [
        // The trait adds `Container.lifecycleService` (closing the container
        // when the ServiceGroup shuts down); without it Syringe has no dependencies.
        .package(name: "Syringe", path: "../..", traits: ["ServiceLifecycle"]),
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", exact: "2.13.0"),
        .package(url: "https://github.com/vapor/sqlite-nio", exact: "1.13.2"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-extras", exact: "1.35.2"),
        // Only for the load comparison's Swinject wiring (TodoComparison).
        .package(url: "https://github.com/Swinject/Swinject", exact: "2.10.0"),
    ],
    targets: [
        // The service as a user would write it: what to copy.
        .target(
            name: "TodoService",
            dependencies: [
                .product(name: "Syringe", package: "Syringe"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            ]
        ),
        // The same app wired by hand and with Swinject, for loadtest.sh.
        .target(
            name: "TodoComparison",
            dependencies: [
                "TodoService",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Swinject", package: "Swinject"),
            ]
        ),
        .executableTarget(
            name: "TodoServer",
            dependencies: [
                "TodoService",
                "TodoComparison",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // What one request costs each wiring, without HTTP (request-cost.sh).
        .executableTarget(
            name: "RequestCost",
            dependencies: [
                "TodoService",
                "TodoComparison",
                .product(name: "Syringe", package: "Syringe"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "TodoServiceTests",
            dependencies: [
                "TodoService",
                "TodoComparison",
                .product(name: "Syringe", package: "Syringe"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                // A raw client, to hold a request half-sent (ShutdownTests).
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
