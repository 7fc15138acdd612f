import Foundation
import HeraldCluster
import HeraldCore
import HeraldCrypto

extension StatusServer {
    /// Where the internal API takes Waku messages forwarded by other nodes.
    static let forwardingPath = "/internal/v1/status/messages"

    /// In a cluster, a registration is written by the owner of its subject's partition: when that
    /// is another node, the message as received goes there once and its answers come back. `nil`
    /// means handle it here. A failure to reach the owner, or a forwarded message this node does
    /// not own, gets no answer, which the client treats as "send again".
    func forwardRegistration(_ message: WakuMessage, signer: Secp256k1PublicKey?, forwardedFrom: String?) async throws(StatusError) -> [WakuMessage]? {
        guard let router = self.router, let signer else { return nil }
        let partition = router.partition(scope: RegistrationScope.status, subject: StatusIdentity.hashedKey(signer))
        switch router.decide(partition: partition, forwardedFrom: forwardedFrom) {
        case .local:
            return nil
        case .unavailable(let reason):
            throw StatusError(.internalFailure, "the registration cannot be written now: \(reason)")
        case .forward(let owner):
            do {
                let answer = try await router.forward(Array(try JSONEncoder().encode(message)), path: Self.forwardingPath, to: owner)
                return try JSONDecoder().decode([WakuMessage].self, from: Data(answer))
            } catch {
                throw StatusError(.internalFailure, "forwarding the registration to \(owner.id) failed: \(error)")
            }
        }
    }
}
