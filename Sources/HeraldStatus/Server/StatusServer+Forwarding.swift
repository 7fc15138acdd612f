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
    /// once and its answers come back. A failure to reach the owner, or a forwarded message this
    /// node does not own, gets no answer, which the client treats as "send again".
    func atOwner(
        _ message: WakuMessage,
        sender: Secp256k1PublicKey,
        forwardedFrom: String?,
        here: () async throws(StatusError) -> [WakuMessage]
    ) async throws(StatusError) -> [WakuMessage] {
        try await self.routing.atOwner(
            of: PartitionKey(scope: .status, subject: StatusIdentity.hashedKey(sender)),
            forwardedFrom: forwardedFrom,
            // A message decoded from JSON encodes again; an empty body would only be refused.
            forwarding: { PartitionRouting.Forwarding(path: Self.forwardingPath, body: (try? JSONEncoder().encode(message)).map { Array($0) } ?? []) },
            relay: { answer throws(StatusError) in
                guard (200..<300).contains(answer.status), let answers = try? JSONDecoder().decode([WakuMessage].self, from: Data(answer.body)) else {
                    throw .ownerUnavailable("the owner answered \(answer.status): \(String(decoding: answer.body.prefix(200), as: UTF8.self))")
                }
                return answers
            },
            here: here
        )
    }

    /// Marks a registration or query as handled by this owner, or throws `duplicate` for a copy
    /// another node's adapter already brought here.
    func claimInCluster(_ message: ApplicationMessage) async throws(StatusError) {
        guard try await self.claim(message.id, in: self.configuration.clusterMessageMarkers) else {
            throw StatusError(.duplicate, "message \(Hex.encode(message.id)) was already handled in the cluster")
        }
    }

    /// Records `id` for the namespace's TTL; `false` when it already was.
    func claim(_ id: [UInt8], in namespace: MessageMarkers.Namespace) async throws(StatusError) -> Bool {
        let now = self.unixSeconds
        do {
            return try await self.markers.insert(id, in: namespace, now: now)
        } catch {
            throw StatusError(.internalFailure, "recording message \(Hex.encode(id)) failed: \(error)")
        }
    }

    /// Forgets a message's claim, for one handled with an internal failure and left unanswered.
    func releaseClaim(_ message: ApplicationMessage) async {
        try? await self.markers.remove(message.id, in: self.configuration.clusterMessageMarkers)
    }

    /// The clock in UNIX seconds, clamped so a clock before 1970 or not a number cannot trap.
    var unixSeconds: UInt64 {
        let seconds = self.now().timeIntervalSince1970
        return seconds.isFinite && seconds > 0 ? UInt64(min(seconds, 4e18)) : 0
    }
}
