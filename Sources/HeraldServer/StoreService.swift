import HeraldCore
import HeraldStore
import ServiceLifecycle

/// Holds the store (and the journal of accepted work) open while the node runs and closes them last: it stands first in the service
/// group, so graceful shutdown reaches it after HTTP and the log follower have stopped.
struct StoreService: Service, DescribedByName {
    let store: LocalStore
    let journal: LMDBWorkJournal?

    func run() async throws {
        do {
            try await gracefulShutdown()
        } catch is CancellationError {
            // Cancelled instead of shut down gracefully: still close cleanly.
        }
        // The journal's last ends are written before it closes: a clean stop resumes nothing.
        try? await self.journal?.close()
        try await self.store.close()
    }
}
