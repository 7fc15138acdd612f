import Synchronization

/// Wakes tasks waiting for a position (a log head, an applied position) to pass a value.
public final class PositionSignal: Sendable {
    private struct Waiter {
        var threshold: UInt64
        var continuation: CheckedContinuation<UInt64, any Error>
    }

    private struct State {
        var position: UInt64
        var nextID: UInt64 = 0
        var waiters: [UInt64: Waiter] = [:]
    }

    private enum Decision {
        case ready(UInt64)
        case cancelled
        case parked
    }

    private let state: Mutex<State>

    public init(position: UInt64) {
        self.state = Mutex(State(position: position))
    }

    public var position: UInt64 { self.state.withLock { $0.position } }

    /// How many tasks wait, so a test can tell a waiter has parked instead of pausing for it.
    public var waiting: Int { self.state.withLock { $0.waiters.count } }

    /// Raises the position (never lowers it) and resumes every waiter it now satisfies.
    public func advance(to position: UInt64) {
        let ready: [CheckedContinuation<UInt64, any Error>] = self.state.withLock { state in
            guard position > state.position else { return [] }
            state.position = position
            let satisfied = state.waiters.filter { $0.value.threshold < position }
            for id in satisfied.keys { state.waiters[id] = nil }
            return satisfied.values.map(\.continuation)
        }
        for continuation in ready {
            continuation.resume(returning: position)
        }
    }

    /// Returns the position once it is greater than `threshold`.
    public func wait(beyond threshold: UInt64) async throws -> UInt64 {
        let id = self.state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let decision: Decision = self.state.withLock { state in
                    if state.position > threshold { return .ready(state.position) }
                    if Task.isCancelled { return .cancelled }
                    state.waiters[id] = Waiter(threshold: threshold, continuation: continuation)
                    return .parked
                }
                switch decision {
                case .ready(let position): continuation.resume(returning: position)
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .parked: break
                }
            }
        } onCancel: {
            let waiter = self.state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }
}
