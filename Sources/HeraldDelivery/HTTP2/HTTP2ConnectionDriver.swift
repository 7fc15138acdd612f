import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP2
import Synchronization

/// Runs one connection's `HTTP2Connection.StateMachine` for the pipeline (which reports what the
/// peer does) and the tasks sending requests (which wait for stream permits): each event runs
/// under one lock, and what it asks for (waking waiters, completing the preface, closing the
/// channel, setting the permit timer) happens after unlocking.
final class HTTP2ConnectionDriver: Sendable {
    private typealias StateMachine = HTTP2Connection.StateMachine
    typealias WaiterID = StreamPermits.WaiterID

    /// Told once how a request's wait for a stream permit ended: with success it holds a permit
    /// (and gives it back with `release`).
    typealias Admission = @Sendable (Result<Void, any Error>) -> Void

    private struct Locked {
        var machine: StateMachine
        var waiters: [WaiterID: Admission] = [:]
        var firstError: (any Error)?

        /// The waiters an action answers, taken out under the lock.
        mutating func take(_ action: StateMachine.Action) -> Wake {
            var wake = Wake()
            for id in action.admit {
                if let waiter = self.waiters.removeValue(forKey: id) { wake.admitted.append(waiter) }
            }
            for id in action.fail?.waiters ?? [] {
                if let waiter = self.waiters.removeValue(forKey: id) { wake.failed.append(waiter) }
            }
            return wake
        }
    }

    private struct Wake {
        var admitted: [Admission] = []
        var failed: [Admission] = []
    }

    /// Streams still open this long after a GOAWAY or retirement are cut off.
    static let drainLimit = TimeAmount.seconds(30)

    let preface: EventLoopPromise<Void>
    /// Runs the permit timer and the hard close.
    let eventLoop: any EventLoop
    private let locked: NIOLockedValueBox<Locked>
    /// The machine's `Snapshot`, packed, so what every push reads takes no lock.
    private let published: Synchronization.Atomic<UInt64>
    private let nextWaiterID = Synchronization.Atomic<UInt64>(0)
    /// Closes the channel; set once the channel exists.
    private let closeChannel = NIOLockedValueBox<(@Sendable () -> Void)?>(nil)

    init(eventLoop: any EventLoop) {
        let machine = StateMachine()
        self.preface = eventLoop.makePromise()
        self.eventLoop = eventLoop
        self.published = Synchronization.Atomic(StateMachine.pack(machine.snapshot))
        self.locked = NIOLockedValueBox(Locked(machine: machine))
    }

    // MARK: Reads

    private var snapshot: StateMachine.Snapshot { StateMachine.unpack(self.published.load(ordering: .relaxed)) }

    /// Open, and no GOAWAY received nor retired.
    var isUsable: Bool { self.snapshot.isUsable }
    var isGoingAway: Bool { self.snapshot.isGoingAway }
    /// Streams open now (requests holding a permit).
    var openStreams: Int { self.snapshot.openStreams }
    /// The peer's current stream limit.
    var maxConcurrentStreams: Int { self.snapshot.maxConcurrentStreams }

    var isClosed: Bool { self.locked.withLockedValue { $0.machine.isClosed } }
    var goAwayReason: String? { self.locked.withLockedValue { $0.machine.goAway?.reason } }
    /// Requests waiting for a stream permit.
    var waiting: Int { self.locked.withLockedValue { $0.machine.permits.waiting } }
    /// PINGs the peer has answered.
    var pingsAcknowledged: Int { self.locked.withLockedValue { $0.machine.pingsAcknowledged } }
    /// The first error the pipeline reported (a TLS handshake failure, say).
    var firstError: (any Error)? { self.locked.withLockedValue { $0.firstError } }

    // MARK: Stream permits

    /// Takes a stream permit now or when one frees up, first come first served: `admitted` is
    /// called once, from this call when the answer is immediate, else from whatever frees the
    /// permit. With a `deadline` (on `eventLoop`'s clock), a request still waiting then fails with
    /// `HTTP2ConnectionError.timedOut`. Returns the waiter's id while it waits, for `cancelWaiter`.
    @discardableResult
    func acquire(deadline: NIODeadline?, then admitted: @escaping Admission) -> WaiterID? {
        let id = WaiterID(rawValue: self.nextWaiterID.add(1, ordering: .relaxed).newValue)
        let (immediate, action, wake) = self.locked.withLockedValue { locked -> (Result<Void, any Error>?, StateMachine.Action, Wake) in
            switch locked.machine.waiterQueued(id, deadline: deadline) {
            case .opened(let action):
                self.publish(locked.machine)
                return (.success(()), action, locked.take(action))
            case .refused(let error):
                return (.failure(error), .none, Wake())
            case .queued(let scheduleTimer):
                locked.waiters[id] = admitted
                return (nil, StateMachine.Action(scheduleTimer: scheduleTimer), Wake())
            }
        }
        self.run(action, wake)
        guard let immediate else { return id }
        admitted(immediate)
        return nil
    }

    /// Takes a waiter out of the queue (its task was cancelled) and tells it so with a
    /// `CancellationError`; nothing when it has had its answer already.
    func cancelWaiter(_ id: WaiterID) {
        let waiter = self.locked.withLockedValue { locked -> Admission? in
            guard locked.machine.waiterCancelled(id) else { return nil }
            return locked.waiters.removeValue(forKey: id)
        }
        waiter?(.failure(CancellationError()))
    }

    /// Takes a free permit if there is one and nobody waits for it; `false` means `acquire` would
    /// have to wait.
    func acquireWithoutWaiting() throws -> Bool {
        let (request, wake) = self.locked.withLockedValue { locked -> (StateMachine.StreamRequest, Wake) in
            let request = locked.machine.streamRequested()
            guard case .opened(let action) = request else { return (request, Wake()) }
            self.publish(locked.machine)
            return (request, locked.take(action))
        }
        switch request {
        case .opened(let action):
            // Empty but for a retirement when stream ids run low.
            self.run(action, wake)
            return true
        case .mustWait:
            return false
        case .refused(let error):
            throw error
        }
    }

    /// Gives back the permit of a request that ended, answered or not.
    func release() {
        self.handle { $0.streamClosed() }
    }

    // MARK: Pipeline events

    /// The channel is connected and past its preface: closing actions close it from now on.
    func channelCreated(close: @escaping @Sendable () -> Void) {
        self.closeChannel.withLockedValue { $0 = close }
    }

    func settingsReceived(maxConcurrentStreams: Int?) {
        self.handle { $0.settingsReceived(maxConcurrentStreams: maxConcurrentStreams) }
    }

    func goAwayReceived(lastStreamID: HTTP2StreamID, errorCode: HTTP2ErrorCode, debugData: String?) {
        let reason = debugData.flatMap(Self.reason(fromJSON:)) ?? debugData
        self.handle { $0.goAwayReceived(lastStreamID: lastStreamID, errorCode: errorCode, reason: reason) }
    }

    /// Takes no new work from now on, as after a GOAWAY, and closes once idle.
    func retire(reason: String) {
        self.handle { $0.retired(reason: reason) }
    }

    func closed(because reason: String) {
        self.handle { $0.closed(reason: reason) }
    }

    func errorCaught(_ error: any Error) {
        self.locked.withLockedValue { locked in
            if locked.firstError == nil { locked.firstError = error }
        }
    }

    /// The keep-alive interval passed: returns the PING to send, or `nil` when the previous one
    /// is unanswered, after closing the connection.
    func pingIntervalPassed(_ interval: Duration, nextPing data: UInt64) -> UInt64? {
        let (ping, wake) = self.locked.withLockedValue { locked -> (StateMachine.PingAction, Wake) in
            let ping = locked.machine.pingIntervalPassed(interval, nextPing: data)
            self.publish(locked.machine)
            guard case .close(let action) = ping else { return (ping, Wake()) }
            return (ping, locked.take(action))
        }
        switch ping {
        case .send(let data):
            return data
        case .close(let action):
            self.run(action, wake)
            return nil
        }
    }

    func pingAcknowledged(_ data: UInt64) {
        self.locked.withLockedValue { $0.machine.pingAcknowledged(data) }
    }

    // MARK: Running the machine

    /// Runs one event under the lock and its action after unlocking.
    private func handle(_ event: (inout StateMachine) -> StateMachine.Action) {
        let (action, wake) = self.locked.withLockedValue { locked -> (StateMachine.Action, Wake) in
            let action = event(&locked.machine)
            self.publish(locked.machine)
            return (action, locked.take(action))
        }
        self.run(action, wake)
    }

    /// Called under the lock, so snapshots are published in the order of the events.
    private func publish(_ machine: StateMachine) {
        self.published.store(StateMachine.pack(machine.snapshot), ordering: .relaxed)
    }

    private func run(_ action: StateMachine.Action, _ wake: Wake) {
        for waiter in wake.admitted { waiter(.success(())) }
        if let error = action.fail?.error {
            for waiter in wake.failed { waiter(.failure(error)) }
        }
        switch action.preface {
        case .none: break
        case .succeed: self.preface.succeed()
        case .fail(let error): self.preface.fail(error)
        }
        if action.closeChannel {
            self.closeChannel.withLockedValue { $0 }?()
        }
        if action.scheduleHardClose {
            // A stream stuck opening after the GOAWAY would otherwise keep the connection forever.
            let close = self.closeChannel
            self.eventLoop.scheduleTask(in: Self.drainLimit) {
                close.withLockedValue { $0 }?()
            }
        }
        if let deadline = action.scheduleTimer {
            self.eventLoop.scheduleTask(deadline: deadline) { [weak self] in
                self?.permitTimerFired(deadline: deadline)
            }
        }
    }

    private func permitTimerFired(deadline: NIODeadline) {
        let now = self.eventLoop.now
        self.handle { $0.permitTimerFired(deadline: deadline, now: now) }
    }

    /// APNs puts `{"reason": "…"}` in GOAWAY debug data.
    static func reason(fromJSON text: String) -> String? {
        guard let data = text.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return object["reason"] as? String
    }
}
