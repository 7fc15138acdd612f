import HeraldCore
import HeraldDelivery
import ServiceLifecycle

/// Delivers the journaled pushes no front door's queue claims this run (one turned off since
/// they were accepted), then stays until shutdown: a service group ends when one returns. A
/// shutdown cancels what is still under way; the journal keeps it for the next start.
struct UnclaimedPushesService: Service, DescribedByName {
    let acceptedPushes: AcceptedPushQueues

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await self.acceptedPushes.resumeUnclaimed()
        }
        try? await gracefulShutdown()
    }
}
