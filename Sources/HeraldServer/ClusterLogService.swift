import HeraldCore
import HeraldCluster
import ServiceLifecycle

/// Runs the cluster backend's work (following the shared log) for the node's lifetime and closes
/// its connections and the forwarder's after it; it stands after the store and before the
/// follower, so it stops after the follower and every writer, and before the store closes.
struct ClusterLogService: Service, DescribedByName {
    let backend: any ClusterBackend
    let forwarder: ClusterForwarder

    func run() async throws {
        do {
            try await self.backend.run()
        } catch is CancellationError {
            // Cancelled instead of shut down gracefully: still close the clients.
        } catch {
            // A failed watch service must not leave its HTTP clients open either.
            try? await self.forwarder.shutdown()
            try? await self.backend.shutdown()
            throw error
        }
        try? await self.forwarder.shutdown()
        try await self.backend.shutdown()
    }
}
