import NIOCore
import NIOHTTP2

extension HTTP2Connection {
    /// What one connection knows of its peer and its streams, as a value: events are facts the
    /// pipeline or a request reports, each returning what the owner must do (complete the
    /// preface, wake or fail waiters, close the channel, set a timer). No channel, task or clock
    /// in here; `HTTP2ConnectionDriver` runs it under its lock and acts after unlocking.
    struct StateMachine {
        enum State: Equatable {
            /// Connected; the server's first SETTINGS frame has not arrived.
            case awaitingPreface
            case active
            /// After a GOAWAY or retirement: no new stream, the open ones finish.
            case draining(GoAway)
            /// The first reason stays; a GOAWAY before it is kept for the errors of late streams.
            case closed(reason: String, goAway: GoAway?)
        }

        struct GoAway: Equatable {
            /// `.maxID` for a retirement: every stream already open may finish.
            var lastStreamID: HTTP2StreamID
            var reason: String?
        }

        enum Preface: Equatable {
            case none
            case succeed
            case fail(HTTP2ConnectionError)
        }

        struct FailWaiters: Equatable {
            var waiters: [StreamPermits.WaiterID]
            var error: HTTP2ConnectionError
        }

        /// What the owner does after an event, in this order: waiters, preface, channel, timer.
        struct Action: Equatable {
            var preface: Preface = .none
            /// Waiters given a permit, in the order they came.
            var admit: [StreamPermits.WaiterID] = []
            var fail: FailWaiters?
            /// Close the channel now: going away with nothing open, or the peer stopped answering.
            var closeChannel = false
            /// Close the channel after `HTTP2ConnectionDriver.drainLimit` whatever is still open.
            var scheduleHardClose = false
            /// Set the connection's one permit timer for this deadline.
            var scheduleTimer: NIODeadline?

            static let none = Action()
        }

        enum StreamRequest: Equatable {
            case opened(Action)
            case mustWait
            case refused(HTTP2ConnectionError)
        }

        enum WaiterQueueing: Equatable {
            case opened(Action)
            case queued(scheduleTimer: NIODeadline?)
            case refused(HTTP2ConnectionError)
        }

        enum PingAction: Equatable {
            case send(UInt64)
            /// The previous PING is unanswered: the peer is gone.
            case close(Action)
        }

        /// What every push reads to pick a connection, published after each event.
        struct Snapshot: Equatable {
            var isUsable: Bool
            var isGoingAway: Bool
            var openStreams: Int
            var maxConcurrentStreams: Int
        }

        /// The snapshot in one word, for one atomic load: 31 bits each for the two counts (a
        /// SETTINGS value may reach 2³² − 1, far past any stream count NIO allows), one bit each
        /// for the two flags.
        static func pack(_ snapshot: Snapshot) -> UInt64 {
            let mask = UInt64(Int32.max)
            var word = min(UInt64(max(snapshot.maxConcurrentStreams, 0)), mask)
            word |= min(UInt64(max(snapshot.openStreams, 0)), mask) << 31
            if snapshot.isGoingAway { word |= 1 << 62 }
            if snapshot.isUsable { word |= 1 << 63 }
            return word
        }

        static func unpack(_ word: UInt64) -> Snapshot {
            let mask = UInt64(Int32.max)
            return Snapshot(
                isUsable: word & (1 << 63) != 0,
                isGoingAway: word & (1 << 62) != 0,
                openStreams: Int((word >> 31) & mask),
                maxConcurrentStreams: Int(word & mask)
            )
        }

        /// Client stream ids are odd and 31-bit: after about a billion streams the connection is
        /// retired (then replaced) before NIO runs out of ids.
        static let maximumStreams = (1 << 30) - 1024

        private(set) var state = State.awaitingPreface
        /// Whether the first SETTINGS came, apart from `state`: a retirement or GOAWAY may come
        /// first, and the preface must still be completed exactly once.
        private var prefaceReceived = false
        private(set) var permits = StreamPermits(limit: 0)
        private(set) var pingsAcknowledged = 0
        private var pingOutstanding: UInt64?
        private var streamsOpened = 0
        private let maximumStreams: Int

        init(maximumStreams: Int = Self.maximumStreams) {
            self.maximumStreams = maximumStreams
        }

        var snapshot: Snapshot {
            Snapshot(
                isUsable: self.isUsable,
                isGoingAway: self.goAway != nil,
                openStreams: self.permits.inUse,
                maxConcurrentStreams: self.permits.limit
            )
        }

        var isUsable: Bool {
            switch self.state {
            case .awaitingPreface, .active: true
            case .draining, .closed: false
            }
        }

        var goAway: GoAway? {
            switch self.state {
            case .awaitingPreface, .active: nil
            case .draining(let goAway): goAway
            case .closed(_, let goAway): goAway
            }
        }

        var isClosed: Bool {
            if case .closed = self.state { return true }
            return false
        }

        // MARK: Peer

        /// Each SETTINGS frame carries only what changed: `nil` keeps the old stream limit.
        mutating func settingsReceived(maxConcurrentStreams: Int?) -> Action {
            var action = Action()
            let first = !self.prefaceReceived
            if let limit = maxConcurrentStreams ?? (first ? Self.defaultMaxConcurrentStreams : nil) {
                self.admitted(self.permits.setLimit(limit), into: &action)
            }
            if first {
                self.prefaceReceived = true
                if self.state == .awaitingPreface { self.state = .active }
                action.preface = .succeed
            }
            return action
        }

        /// RFC 9113 leaves the limit open until the peer names one; NIO assumes 100, and so does Herald.
        static let defaultMaxConcurrentStreams = 100

        mutating func goAwayReceived(lastStreamID: HTTP2StreamID, errorCode: HTTP2ErrorCode, reason: String?) -> Action {
            let goAway = GoAway(lastStreamID: lastStreamID, reason: reason)
            switch self.state {
            case .awaitingPreface, .active, .draining:
                self.state = .draining(goAway)
                let error = HTTP2ConnectionError(.goingAway, "peer sent GOAWAY (\(errorCode))", peerReason: reason)
                return self.drain(failing: error)
            case .closed(let closedReason, _):
                self.state = .closed(reason: closedReason, goAway: goAway)
                return .none
            }
        }

        /// Takes no new streams from now on, as after a GOAWAY, and closes once idle.
        mutating func retired(reason: String) -> Action {
            let goAway = GoAway(lastStreamID: .maxID, reason: reason)
            switch self.state {
            case .awaitingPreface, .active:
                self.state = .draining(goAway)
                return self.drain(failing: HTTP2ConnectionError(.goingAway, "connection retired: \(reason)", peerReason: reason))
            case .draining:
                return .none
            case .closed(let closedReason, let earlier):
                self.state = .closed(reason: closedReason, goAway: earlier ?? goAway)
                return .none
            }
        }

        /// The channel closed or hit a connection error: everything waiting fails.
        mutating func closed(reason: String) -> Action {
            let error = HTTP2ConnectionError(.closed, reason)
            var action = Action()
            if !self.prefaceReceived {
                // Only once: the preface is completed by the first SETTINGS or by this.
                self.prefaceReceived = true
                action.preface = .fail(error)
            }
            switch self.state {
            case .awaitingPreface:
                self.state = .closed(reason: reason, goAway: nil)
            case .active:
                self.state = .closed(reason: reason, goAway: nil)
            case .draining(let goAway):
                self.state = .closed(reason: reason, goAway: goAway)
            case .closed:
                return .none
            }
            self.failed(self.permits.fail(error), with: error, into: &action)
            return action
        }

        /// The keep-alive interval passed: PING again, unless the last one is still unanswered.
        mutating func pingIntervalPassed(_ interval: Duration, nextPing data: UInt64) -> PingAction {
            guard self.pingOutstanding == nil else {
                var action = self.closed(reason: "no answer to PING within \(interval)")
                action.closeChannel = true
                return .close(action)
            }
            self.pingOutstanding = data
            return .send(data)
        }

        mutating func pingAcknowledged(_ data: UInt64) {
            guard self.pingOutstanding == data else { return }
            self.pingOutstanding = nil
            self.pingsAcknowledged += 1
        }

        // MARK: Streams

        /// A request wants a stream: it takes a free permit at once, or must queue.
        mutating func streamRequested() -> StreamRequest {
            switch self.permits.request() {
            case .granted:
                var action = Action()
                self.opened(count: 1, into: &action)
                return .opened(action)
            case .mustWait:
                return .mustWait
            case .refused(let error):
                return .refused(error)
            }
        }

        /// A request that found no free permit queues; one may have freed up since.
        mutating func waiterQueued(_ id: StreamPermits.WaiterID, deadline: NIODeadline?) -> WaiterQueueing {
            switch self.permits.enqueue(id, deadline: deadline) {
            case .granted:
                var action = Action()
                self.opened(count: 1, into: &action)
                return .opened(action)
            case .queued(let scheduleTimer):
                return .queued(scheduleTimer: scheduleTimer)
            case .refused(let error):
                return .refused(error)
            }
        }

        /// A waiter's task was cancelled; `false` when it already has its answer.
        mutating func waiterCancelled(_ id: StreamPermits.WaiterID) -> Bool {
            self.permits.cancel(id)
        }

        /// The permit timer set for `deadline` fired at `now`.
        mutating func permitTimerFired(deadline: NIODeadline, now: NIODeadline) -> Action {
            let (expired, next) = self.permits.timerFired(deadline: deadline, now: now)
            var action = Action(scheduleTimer: next)
            if !expired.isEmpty {
                action.fail = FailWaiters(waiters: expired, error: HTTP2ConnectionError(.timedOut, "no stream free before the deadline"))
            }
            return action
        }

        /// A stream's request ended (answered or not): its permit goes to the next waiter, and a
        /// draining connection closes with its last stream.
        mutating func streamClosed() -> Action {
            var action = Action()
            self.admitted(self.permits.release(), into: &action)
            if case .draining = self.state, self.permits.inUse == 0 {
                action.closeChannel = true
            }
            return action
        }

        // MARK: Helpers

        private mutating func drain(failing error: HTTP2ConnectionError) -> Action {
            var action = Action(closeChannel: self.permits.inUse == 0, scheduleHardClose: true)
            self.failed(self.permits.fail(error), with: error, into: &action)
            return action
        }

        private mutating func admitted(_ waiters: [StreamPermits.WaiterID], into action: inout Action) {
            guard !waiters.isEmpty else { return }
            action.admit.append(contentsOf: waiters)
            self.opened(count: waiters.count, into: &action)
        }

        /// Counts streams about to open; retires the connection when its ids run low.
        private mutating func opened(count: Int, into action: inout Action) {
            self.streamsOpened += count
            guard self.streamsOpened >= self.maximumStreams, self.isUsable else { return }
            let retirement = self.retired(reason: "stream ids exhausted")
            action.closeChannel = action.closeChannel || retirement.closeChannel
            action.scheduleHardClose = action.scheduleHardClose || retirement.scheduleHardClose
            if let fail = retirement.fail { self.failed(fail.waiters, with: fail.error, into: &action) }
        }

        private func failed(_ waiters: [StreamPermits.WaiterID], with error: HTTP2ConnectionError, into action: inout Action) {
            guard !waiters.isEmpty else { return }
            if var fail = action.fail {
                fail.waiters.append(contentsOf: waiters)
                action.fail = fail
            } else {
                action.fail = FailWaiters(waiters: waiters, error: error)
            }
        }
    }
}
