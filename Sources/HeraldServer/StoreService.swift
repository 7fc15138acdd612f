import HeraldCore
import HeraldStore
import ServiceLifecycle

/// Holds the store open while the node runs and closes it last: it stands first in the service
/// group, so graceful shutdown reaches it after HTTP and the log follower have stopped.
struct StoreService: Service, DescribedByName {
    let store: LocalStore

    func run() async throws {
        do {
            try await gracefulShutdown()
        } catch is CancellationError {
            // Cancelled instead of shut down gracefully: still close cleanly.
        }
        try await self.store.close()
    }
}
