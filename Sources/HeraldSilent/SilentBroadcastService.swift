import HeraldCore
import ServiceLifecycle

/// Resumes the broadcasts a previous run left unfinished, and stops their walks at shutdown
/// (they stay `running` in LMDB and resume at the next start).
struct SilentBroadcastService: Service, DescribedByName {
    let broadcasts: SilentBroadcasts

    func run() async throws {
        try await self.broadcasts.resume()
        // Returns at graceful shutdown, or throws if cancelled first: either way the walks stop.
        try? await gracefulShutdown()
        await self.broadcasts.stop()
    }
}
