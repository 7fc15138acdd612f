import NIOConcurrencyHelpers
import NIOCore

@testable import HeraldDelivery

extension HTTP2ConnectionDriver {
    /// Waits for a stream permit as `HTTP2Connection.send` does, through `acquire(deadline:then:)`;
    /// a cancelled task stops waiting.
    func acquire(deadline: NIODeadline? = nil) async throws {
        try Task.checkCancellation()
        if try self.acquireWithoutWaiting() { return }
        let waiter = NIOLockedValueBox<WaiterID?>(nil)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let id = self.acquire(deadline: deadline) { continuation.resume(with: $0) }
                waiter.withLockedValue { $0 = id }
                // Cancelled before the waiter was queued: the handler found nothing to cancel.
                if let id, Task.isCancelled { self.cancelWaiter(id) }
            }
        } onCancel: {
            if let id = waiter.withLockedValue({ $0 }) { self.cancelWaiter(id) }
        }
    }
}
