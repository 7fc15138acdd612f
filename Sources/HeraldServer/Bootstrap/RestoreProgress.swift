import Synchronization

/// How far a node's restore from a member's snapshot has come, for the probes and metrics it
/// answers while it is not serving yet.
public final class RestoreProgress: Sendable {
    public struct Snapshot: Sendable, Hashable {
        /// The member the snapshot comes from.
        public var member: String
        public var receivedBytes: Int
        /// What the member announced; `nil` when it did not.
        public var totalBytes: Int?
    }

    private enum Phase {
        case waiting
        case restoring(Snapshot)
        case finished
    }

    private struct State {
        var phase = Phase.waiting
        var waiters: [CheckedContinuation<Bool, Never>] = []
        var finishWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    public init() {}

    /// The restore under way; `nil` before it begins and after it ends.
    public var current: Snapshot? {
        self.state.withLock { state in
            if case .restoring(let snapshot) = state.phase { return snapshot }
            return nil
        }
    }

    /// A snapshot starts arriving from `member`.
    public func begin(member: String, totalBytes: Int?) {
        let waiters = self.state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            guard case .finished = state.phase else {
                state.phase = .restoring(Snapshot(member: member, receivedBytes: 0, totalBytes: totalBytes))
                defer { state.waiters = [] }
                return state.waiters
            }
            return []
        }
        for waiter in waiters { waiter.resume(returning: true) }
    }

    public func received(_ bytes: Int) {
        self.state.withLock { state in
            if case .restoring(var snapshot) = state.phase {
                snapshot.receivedBytes = bytes
                state.phase = .restoring(snapshot)
            }
        }
    }

    /// The restore is over (installed, or given up): the node is about to serve.
    public func finish() {
        let (waiters, finishWaiters) = self.state.withLock { state in
            state.phase = .finished
            defer {
                state.waiters = []
                state.finishWaiters = []
            }
            return (state.waiters, state.finishWaiters)
        }
        for waiter in waiters { waiter.resume(returning: false) }
        for waiter in finishWaiters { waiter.resume() }
    }

    /// Waits until a restore begins (`true`) or the bootstrap ends without one (`false`).
    func waitForBegin() async -> Bool {
        await withCheckedContinuation { continuation in
            let now = self.state.withLock { state -> Bool? in
                switch state.phase {
                case .restoring: return true
                case .finished: return false
                case .waiting:
                    state.waiters.append(continuation)
                    return nil
                }
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    /// Waits until `finish()`.
    func waitForFinish() async {
        await withCheckedContinuation { continuation in
            let done = self.state.withLock { state -> Bool in
                if case .finished = state.phase { return true }
                state.finishWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }
}
