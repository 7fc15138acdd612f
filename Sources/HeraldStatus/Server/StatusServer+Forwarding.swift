import Foundation
import HeraldCluster
import HeraldCore
import HeraldCrypto
import HeraldStore

extension StatusServer {
    /// Where the internal API takes Waku messages forwarded by other nodes.
    static let forwardingPath = "/internal/v1/status/messages"

    /// In a cluster, every message of a client is handled by the owner of its key's partition:
    /// a registration must be written there, and with an nwaku adapter on several nodes each
    /// copy of a message meets the others at one node, which answers the first (the marker in
    /// `claimInCluster`). When the owner is another node, the message as received goes there
    /// once and its answers come back. `nil` means handle it here. A failure to reach the owner,
    /// or a forwarded message this node does not own, gets no answer, which the client treats as
    /// "send again".
    func forwardToOwner(
        _ message: WakuMessage,
        sender: Secp256k1PublicKey,
        router: ClusterRouter,
        forwardedFrom: String?
    ) async throws(StatusError) -> [WakuMessage]? {
        let partition = router.partition(scope: RegistrationScope.status, subject: StatusIdentity.hashedKey(sender))
        switch router.decide(partition: partition, forwardedFrom: forwardedFrom) {
        case .local:
            return nil
        case .unavailable(let reason):
            throw StatusError(.internalFailure, "the message cannot be handled now: \(reason)")
        case .forward(let owner):
            do {
                let answer = try await router.forward(Array(try JSONEncoder().encode(message)), path: Self.forwardingPath, to: owner)
                return try JSONDecoder().decode([WakuMessage].self, from: Data(answer))
            } catch {
                throw StatusError(.internalFailure, "forwarding the message to \(owner.id) failed: \(error)")
            }
        }
    }

    /// Marks a registration or query as handled by this owner, or throws `duplicate` for a copy
    /// another node's adapter already brought here.
    func claimInCluster(_ message: ApplicationMessage) async throws(StatusError) {
        guard try await self.claim(message.id, in: .statusClusterMessage, for: self.configuration.clusterDeduplicationWindow) else {
            throw StatusError(.duplicate, "message \(Hex.encode(message.id)) was already handled in the cluster")
        }
    }

    /// Records `id` for `window`; `false` when it already was.
    func claim(_ id: [UInt8], in namespace: MessageMarkers.Namespace, for window: Duration) async throws(StatusError) -> Bool {
        let now = self.unixSeconds
        let seconds = UInt64(clamping: max(window.components.seconds, 1))
        do {
            return try await self.markers.insert(id, in: namespace, expiry: now.addingReportingOverflow(seconds).overflow ? .max : now + seconds, now: now)
        } catch {
            throw StatusError(.internalFailure, "recording message \(Hex.encode(id)) failed: \(error)")
        }
    }

    /// Forgets a message's claim, for one handled with an internal failure and left unanswered.
    func releaseClaim(_ message: ApplicationMessage) async {
        try? await self.markers.remove(message.id, in: .statusClusterMessage)
    }

    /// The clock in UNIX seconds, clamped so a clock before 1970 or not a number cannot trap.
    var unixSeconds: UInt64 {
        let seconds = self.now().timeIntervalSince1970
        return seconds.isFinite && seconds > 0 ? UInt64(min(seconds, 4e18)) : 0
    }
}
