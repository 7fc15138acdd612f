import HeraldStatus
import ServiceLifecycle

/// Runs the nwaku relay adapter until graceful shutdown; started after delivery, so it stops
/// first and no answer is lost to closed provider connections.
struct NwakuRelayService: Service {
    let adapter: NwakuRelayAdapter

    func run() async throws {
        let polling = Task { await self.adapter.run() }
        await withGracefulShutdownHandler {
            await withTaskCancellationHandler {
                await polling.value
            } onCancel: {
                polling.cancel()
            }
        } onGracefulShutdown: {
            polling.cancel()
        }
    }
}
