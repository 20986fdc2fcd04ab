// swift-tools-version:6.1
//
// Syringe's benchmarks: a package of their own so that the library keeps zero
// dependencies. Everything here calls Syringe through its public API, from
// another module, as users do.
//
//   swift run -c release --package-path Benchmarks benchmarks     # the comparison table
//   Benchmarks/check-allocations.sh                               # the allocation check (CI)
import PackageDescription

let graphDependencies: [Target.Dependency] = [
    "GraphWorkloads",
    "SyringeOnDictionary",
    .product(name: "Syringe", package: "Syringe"),
    .product(name: "Swinject", package: "Swinject"),
]

let package = Package(
    name: "SyringeBenchmarks",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [
        .package(name: "Syringe", path: ".."),
        .package(url: "https://github.com/Swinject/Swinject.git", exact: "2.10.0"),
        // "MallocInterposer" only: the default traits also enable "RuntimeInterposer",
        // which on Linux + Swift 6.3 pulls in a package (swift-runtime-interposer)
        // that this package does not need (it measures malloc counts only).
        .package(
            url: "https://github.com/ordo-one/benchmark.git",
            exact: "1.38.1",
            traits: ["MallocInterposer"]
        ),
    ],
    targets: [
        // An opaque sink (a C function the optimiser cannot see into).
        .target(name: "CBenchSink"),
        // The "Swift dict" baseline: Syringe's own engine sources (Sources/Syringe,
        // through the `Engine` link) with a Swift Dictionary in place of the C
        // table (DictionaryTable.swift replaces ResolutionTable.swift). It
        // depends on Syringe only for the C module that holds the per-thread slot.
        .target(
            name: "SyringeOnDictionary",
            dependencies: [.product(name: "Syringe", package: "Syringe")],
            exclude: ["Engine/ResolutionTable.swift"]
        ),
        // S7, R and M's 1 000 generated classes (generate-many-types.sh), in two
        // halves that compile in parallel.
        .target(
            name: "ManyTypeSupport",
            dependencies: [
                "SyringeOnDictionary",
                .product(name: "Syringe", package: "Syringe"),
                .product(name: "Swinject", package: "Swinject"),
            ]
        ),
        .target(name: "ManyTypesA", dependencies: ["ManyTypeSupport"]),
        // G1–G3's generated object graphs (generate-graphs.py), a module each:
        // they compile in parallel, and the allocation check needs G1 only.
        .target(
            name: "GraphWorkloads",
            dependencies: [
                "SyringeOnDictionary",
                .product(name: "Syringe", package: "Syringe"),
                .product(name: "Swinject", package: "Swinject"),
            ]
        ),
        .target(name: "GraphG1", dependencies: graphDependencies),
        .target(name: "GraphG2", dependencies: graphDependencies),
        .target(name: "GraphG3", dependencies: graphDependencies),
        .target(name: "ManyTypesB", dependencies: ["ManyTypeSupport"]),
        // W1–W6: one source written against Swinject's API, compiled twice.
        // SwinjectShapes builds it against Swinject; SyringeSwinjectShapes builds
        // the same files (its `Shapes` links to Sources/SwinjectShapes) against
        // SyringeSwinject, selected by SYRINGE_SWINJECT.
        .target(
            name: "SwinjectShapes",
            dependencies: ["CBenchSink", .product(name: "Swinject", package: "Swinject")]
        ),
        .target(
            name: "SyringeSwinjectShapes",
            dependencies: ["CBenchSink", .product(name: "SyringeSwinject", package: "Syringe")],
            swiftSettings: [.define("SYRINGE_SWINJECT")]
        ),
        // The comparison table. Deliberately not linked with package-benchmark:
        // its malloc interposer would slow every allocation down.
        .executableTarget(
            name: "benchmarks",
            dependencies: [
                "CBenchSink",
                "SyringeOnDictionary",
                "ManyTypeSupport",
                "ManyTypesA",
                "ManyTypesB",
                "GraphWorkloads",
                "GraphG1",
                "GraphG2",
                "GraphG3",
                "SwinjectShapes",
                "SyringeSwinjectShapes",
                .product(name: "Syringe", package: "Syringe"),
                .product(name: "Swinject", package: "Swinject"),
            ]
        ),
        // The allocation check, run by package-benchmark's plugin (see check-allocations.sh).
        .executableTarget(
            name: "Allocations",
            dependencies: [
                "GraphWorkloads",
                "GraphG1",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Syringe", package: "Syringe"),
            ],
            path: "Benchmarks/Allocations",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
