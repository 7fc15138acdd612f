import Foundation
public import HeraldCrypto
import HeraldStatus

/// `POST /waku/v1/messages` with Status registrations, each from a different client key, built
/// as status-go builds them (ECDH + AES-GCM blob, grant, signed AMM, signed Waku payload, ECIES
/// to the server). They are built before the run, so the client's crypto is not measured.
public struct StatusRegisterScenario: LoadScenario {
    let bodies: [[UInt8]]
    /// Where this run's requests start in the prepared set, so a warm-up can use other ones.
    public var startIndex = 0

    public var name: String { "status-register" }
    public var notificationsPerRequest: Int { 1 }

    /// The prepared registrations from index `start` on.
    public func starting(at start: Int) -> StatusRegisterScenario {
        var copy = self
        copy.startIndex = start
        return copy
    }

    /// Builds `count` registrations for `server` on all cores.
    public init(server: Secp256k1PublicKey, count: Int) async throws {
        let count = max(count, 1)
        let workers = max(ProcessInfo.processInfo.activeProcessorCount, 1)
        self.bodies = try await withThrowingTaskGroup(of: [[UInt8]].self) { group in
            for worker in 0..<workers {
                group.addTask {
                    var bodies: [[UInt8]] = []
                    for index in stride(from: worker, to: count, by: workers) {
                        bodies.append(try Self.registration(index, server: server))
                    }
                    return bodies
                }
            }
            var all: [[UInt8]] = []
            for try await part in group { all += part }
            return all
        }
    }

    public func request(_ index: Int) -> LoadRequest {
        LoadRequest(path: "/waku/v1/messages", body: self.bodies[(self.startIndex + index) % self.bodies.count])
    }

    /// Every registration is answered; a run longer than the prepared set resends old ones,
    /// which the server answers with VERSION_MISMATCH after the same crypto.
    public func errorKind(status: Int, body: [UInt8]) -> String? {
        guard status == 200 else { return "http_\(status)" }
        return body.count > 2 ? nil : "no_answer"
    }

    static func registration(_ index: Int, server: Secp256k1PublicKey) throws -> [UInt8] {
        let client = StatusClient(server: server)
        let message = try client.registration(
            installationID: UUID().uuidString.lowercased(),
            version: 1,
            accessToken: UUID().uuidString.lowercased(),
            deviceToken: String(format: "%064x", index),
            apnTopic: "im.status.ethereum"
        )
        return Array(try JSONEncoder().encode(message))
    }
}
