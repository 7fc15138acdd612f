import Foundation

/// Finds Herald's binaries for tests that run them as child processes.
public enum HeraldExecutable {
    /// The server, `herald`: `TEST_HERALD_BINARY` when set; otherwise the one beside the running
    /// test bundle, which is where `swift test` builds it.
    public static var path: String {
        ProcessInfo.processInfo.environment["TEST_HERALD_BINARY"] ?? Self.besideTests("herald")
    }

    /// The developer's tools, `herald-dev` (mocks, load generator, `store fill`):
    /// `TEST_HERALD_DEV_BINARY` when set, otherwise beside the test bundle.
    public static var devPath: String {
        ProcessInfo.processInfo.environment["TEST_HERALD_DEV_BINARY"] ?? Self.besideTests("herald-dev")
    }

    public static var exists: Bool { FileManager.default.isExecutableFile(atPath: Self.path) }
    public static var devExists: Bool { FileManager.default.isExecutableFile(atPath: Self.devPath) }

    private static func besideTests(_ name: String) -> String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name).path
    }
}
