import HeraldCluster
import HeraldCore
import HeraldDelivery
import HeraldStore
import Logging

/// Disables the registration a dead token came from, through the command log, so every node
/// stops pushing to it. In a cluster the partition's owner writes it: another node forwards the
/// command there once. Pushes that name no registration are only reported.
///
/// A disable that cannot be written now is dropped with a log line: the next push to the token
/// meets the same answer from the provider and tries again.
struct RegistryDeadTokenHandler: DeadTokenHandler {
    static let internalPath = "/internal/v1/registry/disable-token"

    /// Why a disable was not written.
    struct Failure: OwnerUnavailableError, CustomStringConvertible {
        var description: String
        /// Whether this node, the owner, failed to write it (an error, not a passing state).
        var atOwner = false

        static func ownerUnavailable(_ reason: String) -> Failure {
            Failure(description: reason)
        }
    }

    let registry: Registry
    let routing: PartitionRouting
    let logger: Logger

    func tokenIsDead(_ notification: PushNotification, reason: String) async {
        guard let key = notification.registration else { return }
        let command = RegistryCommand.disableToken(key, token: notification.device.token, reason: reason)
        do throws(Failure) {
            try await self.routing.atOwner(
                of: PartitionKey(key),
                forwardedFrom: nil,
                forwarding: { PartitionRouting.Forwarding(path: Self.internalPath, body: command.encoded(), contentType: "application/octet-stream") },
                relay: { answer throws(Failure) in
                    guard (200..<300).contains(answer.status) else { throw .ownerUnavailable("the owner answered \(answer.status)") }
                },
                here: { () async throws(Failure) in
                    do {
                        try await self.disable(command)
                    } catch {
                        throw Failure(description: "\(error)", atOwner: true)
                    }
                }
            )
        } catch {
            if error.atOwner {
                self.logger.error("cannot disable a dead token's registration", metadata: ["registration": "\(key)", "error": "\(error)"])
            } else {
                self.logger.warning("cannot disable a dead token's registration now", metadata: ["registration": "\(key)", "reason": "\(error)"])
            }
        }
    }

    /// Writes `command` on this node, the partition's owner.
    func disable(_ command: RegistryCommand) async throws {
        // Disabling twice changes nothing, so a retry after a fenced append is safe.
        try await self.registry.submitCatchingUp(command)
    }
}
