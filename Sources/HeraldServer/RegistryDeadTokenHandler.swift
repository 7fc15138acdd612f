import HeraldCore
import HeraldDelivery
import HeraldStore
import Logging

/// Disables the registration a dead token came from, through the command log, so every node
/// stops pushing to it. Pushes that name no registration (gorush callers) are only reported.
struct RegistryDeadTokenHandler: DeadTokenHandler {
    let registry: Registry
    let logger: Logger

    func tokenIsDead(_ notification: PushNotification, reason: String) async {
        guard let key = notification.registration else { return }
        do {
            try await self.registry.submit(.disableToken(key, token: notification.device.token, reason: reason))
        } catch {
            self.logger.error("cannot disable a dead token's registration", metadata: ["registration": "\(key)", "error": "\(error)"])
        }
    }
}
