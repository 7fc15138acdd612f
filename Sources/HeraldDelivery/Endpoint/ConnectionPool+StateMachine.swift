extension ConnectionPool {
    /// The pool's connections as a value: the open ones, the one being opened, failed attempts
    /// and the back-off before the next, and shutdown. Its events (past tense: a connection was
    /// wanted, one connected, one failed to) return actions that the pool's actor runs after
    /// the change: start a connection, use one, wait, fail. It does no IO and reads time only as
    /// given, so its tests drive it on plain instants without sockets.
    struct StateMachine<Connection: PoolConnection, Instant: InstantProtocol> where Instant.Duration == Duration {
        /// The connections kept open when there is work.
        let wanted: Int
        let backoff: Backoff
        private(set) var connections: [Connection] = []
        private(set) var isConnecting = false
        private(set) var isShuttingDown = false
        private(set) var connectFailures = 0
        private(set) var lastConnectError: String?
        private(set) var nextConnectAt: Instant
        private(set) var failureCounts = ConnectFailures()

        init(wanted: Int, backoff: Backoff, now: Instant) {
            self.wanted = wanted
            self.backoff = backoff
            self.nextConnectAt = now
        }

        var usable: [Connection] { self.connections.filter(\.isUsable) }

        /// What a request that found no free stream on its own should do.
        enum Pick {
            /// Send on this connection (a free stream, or the least busy one to queue on), and
            /// open another meanwhile when `connectAvoiding` is set.
            case use(Connection, connectAvoiding: Set<ObjectIdentifier>?)
            /// Open a connection (on a loop none of the open ones uses, when the group has one)
            /// and ask again once it is open or has failed.
            case connect(avoiding: Set<ObjectIdentifier>)
            /// A connection is being opened: ask again once it is open or has failed.
            case waitForConnecting
            /// Nothing is open and the next attempt to connect waits out a back-off.
            case sleep(until: Instant)
            /// No connection can be had before the deadline, or the pool is shutting down.
            case fail(PickFailure)
        }

        enum PickFailure: Equatable {
            case shuttingDown
            case noConnection(String)
        }

        /// A request needs a connection and must have it before `deadline`. Drops connections
        /// that are no longer usable.
        mutating func connectionWanted(now: Instant, deadline: Instant) -> Pick {
            guard !self.isShuttingDown else { return .fail(.shuttingDown) }
            self.connections.removeAll { !$0.isUsable }
            if let free = self.connections.filter({ $0.openStreams < $0.maxConcurrentStreams }).min(by: { $0.openStreams < $1.openStreams }) {
                return .use(free, connectAvoiding: nil)
            }
            let mayConnect = self.connections.count < self.wanted && !self.isConnecting && now >= self.nextConnectAt
            // Every connection is at its stream limit: queue on the least busy one (its permits
            // admit the request as streams free up) while another connection may be opening.
            if let leastBusy = self.connections.min(by: { $0.openStreams < $1.openStreams }) {
                return .use(leastBusy, connectAvoiding: mayConnect ? self.loopsInUse : nil)
            }
            if mayConnect { return .connect(avoiding: self.loopsInUse) }
            if self.isConnecting { return .waitForConnecting }
            guard self.nextConnectAt < deadline else {
                return .fail(.noConnection(self.lastConnectError.map { "cannot connect: \($0)" } ?? "no connection"))
            }
            return .sleep(until: self.nextConnectAt)
        }

        /// Work arrived with fewer usable connections than wanted: whether to open one now.
        mutating func fillWanted(now: Instant) -> Pick? {
            guard !self.isShuttingDown, self.usable.count < self.wanted else { return nil }
            if self.isConnecting { return .waitForConnecting }
            guard now >= self.nextConnectAt else { return nil }
            return .connect(avoiding: self.loopsInUse)
        }

        /// The actor started opening a connection (after `.connect`).
        mutating func connecting() {
            self.isConnecting = true
        }

        private var loopsInUse: Set<ObjectIdentifier> { Set(self.usable.map(\.loopID)) }

        /// A connection opened. `false`: the pool is shutting down and the caller closes it.
        mutating func connected(_ connection: Connection) -> Bool {
            self.isConnecting = false
            self.connectFailures = 0
            self.lastConnectError = nil
            guard !self.isShuttingDown else { return false }
            self.connections.append(connection)
            return true
        }

        /// Opening a connection failed; returns how long until the next attempt may start.
        mutating func connectFailed(_ error: String, outOfFiles: Bool, now: Instant) -> Duration {
            self.isConnecting = false
            self.connectFailures += 1
            if outOfFiles { self.failureCounts.outOfFiles += 1 } else { self.failureCounts.other += 1 }
            self.lastConnectError = error
            let delay = self.backoff.delay(afterAttempt: self.connectFailures)
            self.nextConnectAt = now.advanced(by: delay)
            return delay
        }

        /// Shutdown began: returns the connections to close; later picks fail.
        mutating func shutDown() -> [Connection] {
            self.isShuttingDown = true
            defer { self.connections = [] }
            return self.connections
        }
    }
}
