import HeraldCore
import ServiceLifecycle
import Synchronization

/// Runs the nwaku relay adapter until graceful shutdown; started after delivery, so it stops
/// first and no answer is lost to closed provider connections. Graceful shutdown lets the batch
/// in hand be handled and answered; only cancellation cuts it short.
struct NwakuRelayService: Service, DescribedByName {
    let adapter: NwakuRelayAdapter

    func run() async throws {
        let stopping = StopFlag()
        let polling = Task { await self.adapter.run(until: { stopping.isSet }) }
        await withGracefulShutdownHandler {
            await withTaskCancellationHandler {
                await polling.value
            } onCancel: {
                polling.cancel()
            }
        } onGracefulShutdown: {
            stopping.set()
        }
    }

    private final class StopFlag: Sendable {
        private let flag = Atomic<Bool>(false)
        var isSet: Bool { self.flag.load(ordering: .relaxed) }
        func set() { self.flag.store(true, ordering: .relaxed) }
    }
}
