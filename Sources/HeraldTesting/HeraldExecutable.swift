import Foundation

/// Finds the `herald` binary for tests that run it as a child process.
public enum HeraldExecutable {
    /// `TEST_HERALD_BINARY` when set; otherwise the `herald` beside the running test bundle, which is
    /// where `swift test` builds it.
    public static var path: String {
        if let path = ProcessInfo.processInfo.environment["TEST_HERALD_BINARY"] { return path }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("herald").path
    }

    public static var exists: Bool { FileManager.default.isExecutableFile(atPath: Self.path) }
}
