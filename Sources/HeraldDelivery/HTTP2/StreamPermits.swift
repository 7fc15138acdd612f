import NIOConcurrencyHelpers

/// Limits the streams open at once on one connection to what the peer allows.
///
/// NIO queues streams beyond the peer's `SETTINGS_MAX_CONCURRENT_STREAMS` without a bound; Herald
/// keeps its own count so waiting work stays visible (and boundable) in the delivery pool. The
/// limit follows every SETTINGS frame; lowering it lets open streams finish.
final class StreamPermits: Sendable {
    private struct State {
        var limit: Int
        var inUse = 0
        var failure: HTTP2ConnectionError?
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
        var timers: [UInt64: Task<Void, Never>] = [:]
        var nextID: UInt64 = 0
    }

    private let state: NIOLockedValueBox<State>

    init(limit: Int) {
        self.state = NIOLockedValueBox(State(limit: limit))
    }

    var limit: Int { self.state.withLockedValue { $0.limit } }
    var inUse: Int { self.state.withLockedValue { $0.inUse } }
    /// Requests waiting for a permit.
    var waiting: Int { self.state.withLockedValue { $0.waiters.count } }

    /// Waits for a permit. With a `deadline`, a request still waiting then fails with
    /// `HTTP2ConnectionError.timedOut`; the timer exists only for requests that have to wait.
    func acquire(deadline: ContinuousClock.Instant? = nil) async throws {
        // A free permit is taken without suspending: a continuation resumed at once still costs
        // the task a trip through the executor, on every push.
        try Task.checkCancellation()
        let taken = try self.state.withLockedValue { state -> Bool in
            if let failure = state.failure { throw failure }
            guard state.inUse < state.limit, state.waiters.isEmpty else { return false }
            state.inUse += 1
            return true
        }
        if taken { return }
        let id = self.state.withLockedValue { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let immediate: Result<Void, any Error>? = self.state.withLockedValue { state in
                    if let failure = state.failure { return .failure(failure) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if state.inUse < state.limit, state.waiters.isEmpty {
                        state.inUse += 1
                        return .success(())
                    }
                    state.waiters.append((id, continuation))
                    if let deadline {
                        state.timers[id] = Task { [weak self] in
                            guard (try? await Task.sleep(until: deadline, clock: .continuous)) != nil else { return }
                            self?.remove(id, throwing: HTTP2ConnectionError(.timedOut, "no stream free before the deadline"))
                        }
                    }
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            self.remove(id, throwing: CancellationError())
        }
    }

    /// Takes waiter `id` out of the queue, if it is still there, and fails it.
    private func remove(_ id: UInt64, throwing error: any Error) {
        let waiter = self.state.withLockedValue { state -> CheckedContinuation<Void, any Error>? in
            state.timers.removeValue(forKey: id)?.cancel()
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: index).continuation
        }
        waiter?.resume(throwing: error)
    }

    func release() {
        let next = self.state.withLockedValue { state -> [CheckedContinuation<Void, any Error>] in
            state.inUse -= 1
            return Self.admit(&state)
        }
        for continuation in next { continuation.resume() }
    }

    func setLimit(_ limit: Int) {
        let next = self.state.withLockedValue { state -> [CheckedContinuation<Void, any Error>] in
            state.limit = max(limit, 0)
            return Self.admit(&state)
        }
        for continuation in next { continuation.resume() }
    }

    /// Fails every waiter and every later `acquire` with `error`.
    func fail(_ error: HTTP2ConnectionError) {
        let waiters = self.state.withLockedValue { state -> [CheckedContinuation<Void, any Error>] in
            if state.failure == nil { state.failure = error }
            for timer in state.timers.values { timer.cancel() }
            state.timers = [:]
            defer { state.waiters = [] }
            return state.waiters.map(\.continuation)
        }
        for waiter in waiters { waiter.resume(throwing: error) }
    }

    private static func admit(_ state: inout State) -> [CheckedContinuation<Void, any Error>] {
        var admitted: [CheckedContinuation<Void, any Error>] = []
        while state.failure == nil, state.inUse < state.limit, !state.waiters.isEmpty {
            state.inUse += 1
            let waiter = state.waiters.removeFirst()
            state.timers.removeValue(forKey: waiter.id)?.cancel()
            admitted.append(waiter.continuation)
        }
        return admitted
    }
}
