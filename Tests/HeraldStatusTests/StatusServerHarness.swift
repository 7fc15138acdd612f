import Foundation
import HeraldCore
import HeraldCrypto
import HeraldStatus
import HeraldStore
import HeraldTesting
import Logging
import Synchronization

/// Records what the server hands over for delivery; can be told to fail like an unreachable
/// gorush.
final class RecordingDelivery: StatusPushDelivery {
    private let state = Mutex<(pushes: [[StatusPush]], failing: Bool)>(([], false))
    private let threads = Mutex<[String]>([])

    /// The names of the threads hand-overs ran on.
    var threadNames: [String] { self.threads.withLock { $0 } }

    var requests: [[StatusPush]] { self.state.withLock { $0.pushes } }
    var pushes: [StatusPush] { self.requests.flatMap { $0 } }

    func fail(_ failing: Bool) {
        self.state.withLock { $0.failing = failing }
    }

    func deliver(_ pushes: [StatusPush]) async -> Bool {
        self.threads.withLock { $0.append(Thread.current.name ?? "") }
        return self.state.withLock { state in
            state.pushes.append(pushes)
            return !state.failing
        }
    }
}

/// A Status server on a fresh LMDB store with its log follower running.
struct StatusServerHarness {
    let server: StatusServer
    let delivery: RecordingDelivery
    let store: LocalStore
    let serverKey: Secp256k1PrivateKey

    /// The vectors' server key (the integer 2).
    static let vectorServerKey = try! Secp256k1PrivateKey(rawRepresentation: hex(StatusVectors.shared.keys["server"]!.private))

    static func run<T: Sendable>(
        serverKey: Secp256k1PrivateKey = vectorServerKey,
        configuration: StatusServer.Configuration = .init(),
        now: @escaping @Sendable () -> Date = Date.init,
        clock: any Clock<Duration> = ContinuousClock(),
        _ body: (StatusServerHarness) async throws -> T
    ) async throws -> T {
        try await withTemporaryDirectory { path in
            let store = try LocalStore(path: path)
            let delivery = RecordingDelivery()
            let logger = Logger(label: "status-test")
            let server = StatusServer(
                identity: StatusIdentity(privateKey: serverKey),
                registry: Registry(log: store.log, view: store.view),
                markers: store.markers,
                delivery: delivery,
                configuration: configuration,
                logger: logger,
                now: now,
                clock: clock
            )
            let follower = store.follower(logger: logger)
            let following = Task { try await follower.run() }
            do {
                let result = try await body(StatusServerHarness(server: server, delivery: delivery, store: store, serverKey: serverKey))
                following.cancel()
                _ = try? await following.value
                try await store.close()
                return result
            } catch {
                following.cancel()
                _ = try? await following.value
                try? await store.close()
                throw error
            }
        }
    }
}
