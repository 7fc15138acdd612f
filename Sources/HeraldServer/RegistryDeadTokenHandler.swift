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
        let command = RegistryCommand.disableToken(key, token: notification.device.token, reason: reason)
        // In a cluster another node may have written the partition since this one applied it:
        // catch up and try again. Disabling twice changes nothing, so a retry is safe.
        for attempt in 1...3 {
            do {
                try await self.registry.submit(command)
                return
            } catch let error as StoreError where error.code == .fenced && attempt < 3 {
                try? await self.registry.catchUp()
            } catch {
                self.logger.error("cannot disable a dead token's registration", metadata: ["registration": "\(key)", "error": "\(error)"])
                return
            }
        }
    }
}
