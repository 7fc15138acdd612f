import HeraldCore
import HeraldCluster
import HeraldStore
import ServiceLifecycle

/// Runs the etcd log's watch for the node's lifetime and closes its etcd client after it; it
/// stands after the store and before the follower, so it stops after the follower and every
/// writer, and before the store closes.
struct ClusterLogService: Service, DescribedByName {
    let log: EtcdCommandLog
    let router: ClusterRouter

    func run() async throws {
        do {
            try await self.log.run()
        } catch is CancellationError {
            // Cancelled instead of shut down gracefully: still close the clients.
        } catch {
            // A failed watch service must not leave its HTTP clients open either.
            try? await self.router.shutdown()
            try? await self.log.client.shutdown()
            throw error
        }
        try? await self.router.shutdown()
        try await self.log.client.shutdown()
    }
}
