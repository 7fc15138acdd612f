// swift-tools-version: 6.1
//
// Herald micro benchmarks (package-benchmark). A package of its own so that Herald's test build
// never compiles package-benchmark or its malloc interposer; see README.md.
import PackageDescription

let package = Package(
    name: "HeraldMicroBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Herald", path: "../.."),
        // package-benchmark, under the repository's current name (the old URL
        // .../ordo-one/package-benchmark also works but makes the plugin print a rename warning).
        // Only the MallocInterposer trait: the default traits add swift-runtime-interposer (ARC
        // metrics), which is not mirrored here and whose ARC hooks crash on Swift 6.3 Linux.
        .package(
            url: "https://github.com/ordo-one/benchmark",
            exact: "1.38.1",
            traits: ["MallocInterposer"]
        ),
        // For `Message.init(serializedBytes:)` on the generated Status protobuf types.
        .package(url: "https://github.com/apple/swift-protobuf.git", from: "1.39.0"),
    ],
    targets: [
        .executableTarget(
            name: "HeraldMicro",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "HeraldCore", package: "Herald"),
                .product(name: "HeraldCrypto", package: "Herald"),
                .product(name: "HeraldStore", package: "Herald"),
                .product(name: "HeraldDelivery", package: "Herald"),
                .product(name: "HeraldStatus", package: "Herald"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            path: "Benchmarks/HeraldMicro",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
            ]
        ),
    ]
)
