import Foundation
import HeraldCore
import HeraldStore
import HeraldTesting
import Logging

@testable import HeraldSilent

/// Values the suites share: a fixed wall clock, tokens of the right shape, registrations as the
/// front door stores them.
enum Fixtures {
    /// 2023-11-14T22:13:20Z, a whole second, so it survives ISO 8601 unchanged.
    static let now = Date(timeIntervalSince1970: 1_700_000_000)
    static let wallClock: @Sendable () -> Date = { Fixtures.now }
    static let logger = Logger(label: "silent-test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// 64 hex digits, distinct per `n`.
    static func apnsToken(_ n: Int) -> String {
        let hex = String(n, radix: 16)
        return String(repeating: "0", count: 64 - hex.count) + hex
    }

    static func fcmToken(_ n: Int) -> String {
        "fcm\(n):APA91b" + String(repeating: "x", count: 140)
    }

    static func registration(
        service: String = "default",
        deviceID: String,
        platform: Platform = .apns,
        token: String,
        app: String = "toot",
        enabled: Bool = true
    ) -> Registration {
        Registration(
            key: SilentRegistrations.key(service: service, deviceID: deviceID),
            version: 1,
            device: Device(platform: platform, token: token, app: app),
            enabled: enabled,
            attributes: [platform == .fcm ? 1 : 0]
        )
    }
}

/// Runs `body` with a store in a fresh directory, closed afterwards.
func withStore(_ body: (LocalStore) async throws -> Void) async throws {
    try await withTemporaryDirectory { path in
        let store = try LocalStore(path: path)
        do {
            try await body(store)
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
    }
}

/// Runs `body` with a store whose follower applies its log to its view, so `Registry.submit`
/// returns once a command is readable, as on a node alone.
func withRegistry(_ body: (LocalStore, Registry) async throws -> Void) async throws {
    try await withStore { store in
        let follower = Task { try await store.follower(logger: Fixtures.logger).run() }
        do {
            try await body(store, Registry(log: store.log, view: store.view))
        } catch {
            follower.cancel()
            _ = try? await follower.value
            throw error
        }
        follower.cancel()
        _ = try? await follower.value
    }
}

/// Puts `registrations` straight into the view, as if the log had held them.
func seed(_ store: LocalStore, _ registrations: [Registration]) async throws {
    let applied = try store.view.appliedPosition()
    try await store.view.apply(
        registrations.enumerated().map { index, registration in
            LogEntry(position: applied + LogPosition(index + 1), command: .register(registration))
        }
    )
}

extension Array where Element == UInt8 {
    /// Whether `run` occurs in these bytes, contiguously.
    func containsRun(_ run: [UInt8]) -> Bool {
        guard !run.isEmpty else { return true }
        guard self.count >= run.count else { return false }
        return (0...(self.count - run.count)).contains { start in self[start..<start + run.count].elementsEqual(run) }
    }
}
