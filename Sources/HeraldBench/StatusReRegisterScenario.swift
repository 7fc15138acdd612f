import Foundation
public import HeraldCrypto
import HeraldStatus
import Synchronization

/// `POST /waku/v1/messages` with Status re-registrations: `subjects` clients, each registering its
/// one installation again, round after round, with a rising version. Churn: the registry keeps
/// `subjects` registrations while its log takes every write, which is what a log that keeps a
/// window must hold steady. Built as the requests go (a registration costs the client about a
/// millisecond of crypto), so any number of rounds fits in memory; the version comes from one
/// counter, so a warm-up and the run after it never repeat one.
public final class StatusReRegisterScenario: LoadScenario {
    let clients: [StatusClient]
    let next = Atomic<Int>(0)

    public var name: String { "status-re-register" }
    public var notificationsPerRequest: Int { 1 }

    public init(server: Secp256k1PublicKey, subjects: Int) {
        self.clients = (0..<max(subjects, 1)).map { _ in StatusClient(server: server) }
    }

    /// The request's own index is not used: the counter orders the versions.
    public func request(_ index: Int) -> LoadRequest {
        let sequence = self.next.add(1, ordering: .relaxed).oldValue
        let subject = sequence % self.clients.count
        let body: [UInt8]
        do {
            let message = try self.clients[subject].registration(
                installationID: Self.installation(subject),
                version: UInt64(sequence / self.clients.count) + 1,
                accessToken: UUID().uuidString.lowercased(),
                deviceToken: String(format: "%064x", subject),
                apnTopic: "im.status.ethereum"
            )
            body = Array(try JSONEncoder().encode(message))
        } catch {
            // Signing and encrypting with keys made here does not fail; an empty body would be
            // refused by the node and counted.
            body = []
        }
        return LoadRequest(path: "/waku/v1/messages", body: body)
    }

    public func errorKind(status: Int, body: [UInt8]) -> String? {
        guard status == 200 else { return "http_\(status)" }
        return body.count > 2 ? nil : "no_answer"
    }

    static func installation(_ subject: Int) -> String {
        "00000000-0000-4000-8000-" + String(format: "%012x", subject)
    }
}
