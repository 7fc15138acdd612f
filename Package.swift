// swift-tools-version: 6.1
import PackageDescription

// HERALD_FUZZ=1 adds the libFuzzer targets under Fuzz/ and instruments Herald's own code for
// them; a normal build never sees either (docs/security.md, "Fuzzing").
let fuzzing = Context.environment["HERALD_FUZZ"] == "1"

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
] + (fuzzing ? [.unsafeFlags(["-sanitize=fuzzer"])] : [])

let package = Package(
    name: "Herald",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "herald", targets: ["herald"]),
        .executable(name: "herald-dev", targets: ["herald-dev"]),
        // Libraries for the micro benchmarks in benchmarks/micro, which depend on Herald by path.
        .library(name: "HeraldCore", targets: ["HeraldCore"]),
        .library(name: "HeraldCrypto", targets: ["HeraldCrypto"]),
        .library(name: "HeraldStore", targets: ["HeraldStore"]),
        .library(name: "HeraldDelivery", targets: ["HeraldDelivery"]),
        .library(name: "HeraldStatus", targets: ["HeraldStatus"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(
            url: "https://github.com/apple/swift-configuration.git",
            from: "1.4.0",
            traits: [.defaults, "YAML", "CommandLineArguments"]
        ),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "4.5.2"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-protobuf.git", from: "1.39.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/jpsim/Yams", "5.4.0"..<"7.0.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.1"),
    ],
    targets: [
        // The version and the commit a binary was built from (`herald --version`).
        .target(
            name: "HeraldBuildInfo",
            swiftSettings: swiftSettings,
            plugins: ["HeraldBuildInfoPlugin"]
        ),
        .plugin(name: "HeraldBuildInfoPlugin", capability: .buildTool()),
        .systemLibrary(
            name: "CLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"])]
        ),
        // glibc's malloc.h, part of libc6-dev: nothing to install or link.
        .systemLibrary(name: "CMalloc"),
        .systemLibrary(
            name: "CSecp256k1",
            pkgConfig: "libsecp256k1",
            providers: [.apt(["libsecp256k1-dev"])]
        ),
        // DIDComm v1 envelopes need crypto_box, crypto_box_seal, XChaCha20-Poly1305 and the
        // Ed25519-to-X25519 conversions, which swift-crypto does not have.
        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]
        ),
        // The HTTP/2 codec of provider connections with `delivery.http2-codec: nghttp2`.
        .systemLibrary(
            name: "CNGHTTP2",
            pkgConfig: "libnghttp2",
            providers: [.apt(["libnghttp2-dev"])]
        ),
        .target(
            name: "HeraldCore",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HeraldConfig",
            dependencies: [
                "HeraldCore",
                .product(name: "Configuration", package: "swift-configuration"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HeraldCluster",
            dependencies: [
                "HeraldCore",
                "HeraldStore",
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // The etcd cluster backend: client (JSON gateway), command log and membership leases.
        .target(
            name: "HeraldEtcd",
            dependencies: [
                "HeraldCluster",
                "HeraldCore",
                "HeraldStore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HeraldFrontDoor",
            dependencies: [
                "HeraldCluster",
                "HeraldConfig",
                "HeraldCore",
                "HeraldDelivery",
                "HeraldStore",
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HeraldStore",
            dependencies: [
                "CLMDB",
                "HeraldCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HeraldDelivery",
            dependencies: [
                "CNGHTTP2",
                "HeraldConfig",
                "HeraldCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HeraldAries",
            dependencies: [
                "CSodium",
                "HeraldCluster",
                "HeraldConfig",
                "HeraldCore",
                "HeraldDelivery",
                "HeraldFrontDoor",
                "HeraldStore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HeraldSilent",
            dependencies: [
                "CMalloc",
                "HeraldCluster",
                "HeraldConfig",
                "HeraldCore",
                "HeraldDelivery",
                "HeraldFrontDoor",
                "HeraldStore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            exclude: ["Protobuf/push_registration.proto"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HeraldWebPush",
            dependencies: [
                "HeraldConfig",
                "HeraldCore",
                "HeraldDelivery",
                "HeraldFrontDoor",
                "HeraldStore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HeraldGorush",
            dependencies: [
                "HeraldCluster",
                "HeraldConfig",
                "HeraldCore",
                "HeraldDelivery",
                "HeraldFrontDoor",
                "HeraldStore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HeraldStatus",
            dependencies: [
                "HeraldCluster",
                "HeraldConfig",
                "HeraldCore",
                "HeraldCrypto",
                "HeraldDelivery",
                "HeraldFrontDoor",
                "HeraldStore",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            exclude: ["Protobuf/push_notifications.proto", "Protobuf/application_metadata_message.proto"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HeraldServer",
            dependencies: [
                "HeraldBuildInfo",
                "HeraldCluster",
                "HeraldEtcd",
                "HeraldMatrix",
                "HeraldConfig",
                "HeraldCore",
                "HeraldFrontDoor",
                "HeraldCrypto",
                "HeraldDelivery",
                "HeraldGorush",
                "HeraldStatus",
                "HeraldAries",
                "HeraldSilent",
                "HeraldStore",
                "HeraldWebPush",
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HeraldCrypto",
            dependencies: [
                "CSecp256k1",
                "HeraldCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HeraldBench",
            dependencies: [
                "HeraldCrypto",
                "HeraldDelivery",
                "HeraldStatus",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            swiftSettings: swiftSettings
        ),
        // Swift Testing traits the test targets share; only test targets depend on it, so the
        // tools that link HeraldTesting never link Testing.
        .target(
            name: "HeraldTestTraits",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HeraldTesting",
            dependencies: [
                "HeraldCore",
                "HeraldCrypto",
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: swiftSettings
        ),
        // The Matrix push gateway's notify requests and the payloads Sygnal builds from them.
        .target(
            name: "HeraldMatrix",
            dependencies: [
                "HeraldCluster",
                "HeraldConfig",
                "HeraldCore",
                "HeraldDelivery",
                "HeraldFrontDoor",
                "HeraldStore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The server an operator installs: no test peer, no load generator.
        .executableTarget(
            name: "herald",
            dependencies: [
                "HeraldAries",
                "HeraldBuildInfo",
                "HeraldCluster",
                "HeraldConfig",
                "HeraldFrontDoor",
                "HeraldCore",
                "HeraldCrypto",
                "HeraldServer",
                "HeraldStatus",
                "HeraldStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The developer's tools: the strict mock APNs and FCM, the load generator, synthetic stores.
        .executableTarget(
            name: "herald-dev",
            dependencies: [
                "HeraldBench",
                "HeraldCore",
                "HeraldCrypto",
                "HeraldDelivery",
                "HeraldSilent",
                "HeraldStore",
                "HeraldTesting",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HeraldAriesTests",
            dependencies: ["HeraldAries"],
            exclude: ["vectors"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HeraldWebPushTests",
            dependencies: [
                "HeraldWebPush",
                "HeraldDelivery",
                "HeraldTesting",
                "HeraldTestTraits",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CLMDBTests",
            dependencies: ["CLMDB"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CSecp256k1Tests",
            dependencies: ["CSecp256k1"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HeraldCoreTests",
            dependencies: ["HeraldCore"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HeraldCryptoTests",
            dependencies: ["HeraldCore", "HeraldCrypto"],
            exclude: ["vectors"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HeraldClusterTests",
            dependencies: [
                "HeraldCluster",
                "HeraldCore",
                "HeraldStore",
                "HeraldTesting",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HeraldSilentTests",
            dependencies: [
                "HeraldSilent",
                "HeraldConfig",
                "HeraldCore",
                "HeraldDelivery",
                "HeraldFrontDoor",
                "HeraldStore",
                "HeraldTesting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HeraldEtcdTests",
            dependencies: [
                "HeraldCluster",
                "HeraldCore",
                "HeraldEtcd",
                "HeraldStore",
                "HeraldTesting",
                "HeraldTestTraits",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HeraldStoreTests",
            dependencies: ["HeraldStore", "HeraldCore", "HeraldTesting", "HeraldTestTraits"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HeraldDeliveryTests",
            dependencies: [
                "HeraldDelivery",
                "HeraldCore",
                "HeraldTesting",
                "HeraldTestTraits",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HeraldGorushTests",
            dependencies: [
                "HeraldGorush",
                "HeraldCore",
                "HeraldDelivery",
                "HeraldTesting",
                "HeraldTestTraits",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HeraldTestingTests",
            dependencies: [
                "HeraldTesting",
                "HeraldTestTraits",
                "HeraldCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HeraldBenchTests",
            dependencies: [
                "HeraldBench",
                "HeraldTesting",
                "HeraldTestTraits",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HeraldMatrixTests",
            dependencies: ["HeraldMatrix", "HeraldCore"],
            exclude: ["Vectors"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HeraldStatusTests",
            dependencies: [
                "HeraldStatus",
                "HeraldConfig",
                "HeraldCore",
                "HeraldCrypto",
                "HeraldDelivery",
                "HeraldStore",
                "HeraldTesting",
                "HeraldTestTraits",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            exclude: ["vectors"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HeraldServerTests",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                "HeraldServer",
                "HeraldEtcd",
                "HeraldConfig",
                "HeraldFrontDoor",
                "HeraldGorush",
                .product(name: "Hummingbird", package: "hummingbird"),
                "HeraldCrypto",
                "HeraldStatus",
                "HeraldDelivery",
                .product(name: "Crypto", package: "swift-crypto"),
                "HeraldStore",
                "HeraldCore",
                "HeraldTesting",
                "HeraldTestTraits",
                "HeraldAries",
                "HeraldSilent",
                "HeraldWebPush",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
            ],
            exclude: ["EndToEnd/webpush", "EndToEnd/silent", "EndToEnd/wallets"],
            swiftSettings: swiftSettings
        ),
    ]
)

if fuzzing {
    // SwiftPM links every executable with its own `main`, so the targets start libFuzzer's
    // driver themselves (Fuzz/FuzzSupport). lld, because gold fails on the second `main`.
    // Build one product at a time: building them all also links the normal executables, which
    // fail without libFuzzer's runtime.
    let fuzzLinking: [LinkerSetting] = [.unsafeFlags(["-sanitize=fuzzer", "-use-ld=lld"])]
    func fuzzTarget(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
        .executableTarget(
            name: name,
            dependencies: ["FuzzSupport"] + dependencies,
            path: "Fuzz/\(name)",
            swiftSettings: swiftSettings,
            linkerSettings: fuzzLinking
        )
    }
    package.targets += [
        .target(name: "FuzzSupport", path: "Fuzz/FuzzSupport", swiftSettings: swiftSettings),
        fuzzTarget("FuzzGorush", ["HeraldGorush", "HeraldCore", "HeraldDelivery"]),
        fuzzTarget("FuzzWaku", ["HeraldStatus", "HeraldCrypto", "HeraldFrontDoor"]),
        fuzzTarget("FuzzECIES", ["HeraldCrypto"]),
        fuzzTarget("FuzzStatusProtobuf", [
            "HeraldStatus", "HeraldCrypto", .product(name: "SwiftProtobuf", package: "swift-protobuf"),
        ]),
        fuzzTarget("FuzzWebPush", ["HeraldWebPush"]),
        fuzzTarget("FuzzAries", ["HeraldAries", "HeraldCore"]),
        fuzzTarget("FuzzSilent", ["HeraldSilent"]),
        fuzzTarget("FuzzProviderAnswers", [
            "HeraldDelivery", .product(name: "NIOHPACK", package: "swift-nio-http2"),
        ]),
        fuzzTarget("FuzzHTTP2", [
            "HeraldDelivery",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOEmbedded", package: "swift-nio"),
            .product(name: "NIOHPACK", package: "swift-nio-http2"),
            .product(name: "NIOHTTP2", package: "swift-nio-http2"),
        ]),
    ]
}
