import HeraldCore
import HeraldDelivery
import ServiceLifecycle

/// Keeps the delivery pool for the node's lifetime and closes its connections on shutdown.
/// It stands after the store in the service list, so it stops before the store closes.
struct DeliveryService: Service, DescribedByName {
    let providers: AppProviders

    func run() async throws {
        do {
            try await gracefulShutdown()
        } catch is CancellationError {
            // Cancelled rather than shut down gracefully: close the connections all the same.
        }
        await self.providers.shutdown()
    }
}
