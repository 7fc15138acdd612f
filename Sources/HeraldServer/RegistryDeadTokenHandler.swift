import HeraldCluster
import HeraldCore
import HeraldDelivery
import HeraldStore
import Logging

/// Disables the registration a dead token came from, through the command log, so every node
/// stops pushing to it. In a cluster the partition's owner writes it: another node forwards the
/// command there once. Pushes that name no registration (gorush callers) are only reported.
///
/// A disable that cannot be written now is dropped with a log line: the next push to the token
/// meets the same answer from the provider and tries again.
struct RegistryDeadTokenHandler: DeadTokenHandler {
    static let internalPath = "/internal/v1/registry/disable-token"

    let registry: Registry
    let router: ClusterRouter?
    let logger: Logger

    func tokenIsDead(_ notification: PushNotification, reason: String) async {
        guard let key = notification.registration else { return }
        let command = RegistryCommand.disableToken(key, token: notification.device.token, reason: reason)
        if let router {
            let partition = key.partition(of: router.membership.configuration.partitions)
            switch router.decide(partition: partition, forwardedFrom: nil) {
            case .local:
                break
            case .unavailable(let reason):
                self.logger.warning("cannot disable a dead token's registration now", metadata: ["registration": "\(key)", "reason": "\(reason)"])
                return
            case .forward(let owner):
                do {
                    _ = try await router.forward(command.encoded(), path: Self.internalPath, to: owner, contentType: "application/octet-stream")
                } catch {
                    self.logger.warning("cannot forward a dead token's disable to \(owner.id)", metadata: ["registration": "\(key)", "error": "\(error)"])
                }
                return
            }
        }
        do {
            try await self.disable(command)
        } catch {
            self.logger.error("cannot disable a dead token's registration", metadata: ["registration": "\(key)", "error": "\(error)"])
        }
    }

    /// Writes `command` on this node, the partition's owner.
    func disable(_ command: RegistryCommand) async throws {
        // Disabling twice changes nothing, so a retry after a fenced append is safe.
        try await self.registry.submitCatchingUp(command)
    }
}
