import HeraldCore
import Synchronization
import Testing

@testable import HeraldDelivery

/// The pool's connections as a value: which connection a request gets, when one is opened, the
/// back-off after failures, and shutdown — with plain instants and connections that are values,
/// no sockets and no sleeping.
@Suite struct ConnectionPoolStateMachineTests {
    typealias Instant = DeliveryClock.Instant
    typealias Machine = ConnectionPool.StateMachine<Connection, Instant>

    /// A connection as the machine sees it: its fields are set by the test.
    final class Connection: PoolConnection {
        private let state: Mutex<(usable: Bool, open: Int, limit: Int)>
        let loopID: ObjectIdentifier
        private enum Loop0 {}
        private enum Loop1 {}
        /// Two event loops, told apart only by identity.
        private static let loops = [ObjectIdentifier(Loop0.self), ObjectIdentifier(Loop1.self)]

        init(open: Int = 0, limit: Int = 10, loop: Int = 0) {
            self.state = Mutex((true, open, limit))
            self.loopID = Self.loops[loop]
        }

        var isUsable: Bool { self.state.withLock { $0.usable } }
        var openStreams: Int { self.state.withLock { $0.open } }
        var maxConcurrentStreams: Int { self.state.withLock { $0.limit } }
        func set(open: Int) { self.state.withLock { $0.open = open } }
        func retire() { self.state.withLock { $0.usable = false } }
    }

    static let start = Instant(offset: .seconds(100))
    static let backoff = Backoff(initial: .milliseconds(200), multiplier: 2, maximum: .seconds(30), jitter: 0)

    static func isNone(_ pick: Machine.Pick?) -> Bool {
        if case .none = pick { return true }
        return false
    }

    func machine(wanted: Int = 2) -> Machine {
        Machine(wanted: wanted, backoff: Self.backoff, now: Self.start)
    }

    @Test func theFirstRequestOpensAConnectionAndWaitsForIt() {
        var machine = self.machine()
        guard case .connect(let avoiding) = machine.connectionWanted(now: Self.start, deadline: Self.start + .seconds(10)) else {
            Issue.record("an empty pool must open a connection")
            return
        }
        #expect(avoiding.isEmpty)
        machine.connecting()
        guard case .waitForConnecting = machine.connectionWanted(now: Self.start, deadline: Self.start + .seconds(10)) else {
            Issue.record("a second request waits for the connection being opened")
            return
        }
        let connection = Connection()
        #expect(machine.connected(connection) == true)
        guard case .use(let picked, nil) = machine.connectionWanted(now: Self.start, deadline: Self.start + .seconds(10)) else {
            Issue.record("an open connection with free streams is used")
            return
        }
        #expect(picked === connection)
    }

    @Test func theLeastBusyFreeConnectionIsPickedAndAFullPoolOpensAnotherOnANewLoop() {
        var machine = self.machine(wanted: 2)
        let busy = Connection(open: 7, limit: 10, loop: 0)
        #expect(machine.connected(busy) == true)
        let quiet = Connection(open: 2, limit: 10, loop: 0)
        #expect(machine.connected(quiet) == true)
        guard case .use(let picked, nil) = machine.connectionWanted(now: Self.start, deadline: Self.start + .seconds(1)) else {
            Issue.record("a free stream is used at once")
            return
        }
        #expect(picked === quiet)

        var one = self.machine(wanted: 2)
        let full = Connection(open: 10, limit: 10, loop: 1)
        #expect(one.connected(full) == true)
        // At its stream limit: the request queues on it while a second connection opens on
        // another loop.
        guard case .use(let queued, let avoiding?) = one.connectionWanted(now: Self.start, deadline: Self.start + .seconds(1)) else {
            Issue.record("a full connection is queued on while another opens")
            return
        }
        #expect(queued === full)
        #expect(avoiding == [full.loopID])
    }

    @Test func unusableConnectionsAreDroppedAndNotPicked() {
        var machine = self.machine(wanted: 1)
        let retired = Connection()
        #expect(machine.connected(retired) == true)
        retired.retire()
        guard case .connect = machine.connectionWanted(now: Self.start, deadline: Self.start + .seconds(1)) else {
            Issue.record("a retired connection is replaced")
            return
        }
        #expect(machine.connections.isEmpty)
    }

    @Test func failedConnectsBackOffAndADeadlineBeforeTheNextTryFails() {
        var machine = self.machine()
        machine.connecting()
        let first = machine.connectFailed("connection refused", outOfFiles: false, now: Self.start)
        #expect(first == .milliseconds(200))
        machine.connecting()
        let second = machine.connectFailed("connection refused", outOfFiles: true, now: Self.start)
        #expect(second == .milliseconds(400))
        #expect(machine.failureCounts == { var counts = ConnectFailures(); counts.other = 1; counts.outOfFiles = 1; return counts }())

        // Within the back-off a request with time to spare sleeps until the next try ...
        guard case .sleep(let until) = machine.connectionWanted(now: Self.start, deadline: Self.start + .seconds(5)) else {
            Issue.record("a request with time waits out the back-off")
            return
        }
        #expect(until == Self.start + .milliseconds(400))
        // ... one whose deadline comes first fails, naming why.
        guard case .fail(.noConnection(let reason)) = machine.connectionWanted(now: Self.start, deadline: Self.start + .milliseconds(300)) else {
            Issue.record("a request that cannot wait fails")
            return
        }
        #expect(reason == "cannot connect: connection refused")
        // After the back-off a request may open one again; a success resets the count.
        guard case .connect = machine.connectionWanted(now: Self.start + .milliseconds(400), deadline: Self.start + .seconds(5)) else {
            Issue.record("after the back-off a connection is opened")
            return
        }
        machine.connecting()
        #expect(machine.connected(Connection()) == true)
        #expect(machine.connectFailures == 0 && machine.lastConnectError == nil)
    }

    @Test func fillingOpensUpToTheWantedNumberOnlyOutsideTheBackOff() {
        var machine = self.machine(wanted: 2)
        guard case .connect? = machine.fillWanted(now: Self.start) else {
            Issue.record("work with no connection starts one")
            return
        }
        machine.connecting()
        guard case .waitForConnecting? = machine.fillWanted(now: Self.start) else {
            Issue.record("filling waits for the one being opened")
            return
        }
        #expect(machine.connected(Connection(loop: 0)) == true)
        #expect(machine.connected(Connection(loop: 1)) == true)
        let full = machine.fillWanted(now: Self.start)
        #expect(Self.isNone(full), "two are wanted and two are open")

        var failing = self.machine(wanted: 2)
        failing.connecting()
        _ = failing.connectFailed("refused", outOfFiles: false, now: Self.start)
        let backingOff = failing.fillWanted(now: Self.start + .milliseconds(100))
        #expect(Self.isNone(backingOff), "no filling inside the back-off")
    }

    @Test func shutdownHandsBackEveryConnectionAndRefusesLaterPicksAndConnects() {
        var machine = self.machine()
        let first = Connection()
        let second = Connection(loop: 1)
        #expect(machine.connected(first) == true)
        #expect(machine.connected(second) == true)
        let closing = machine.shutDown()
        #expect(closing.count == 2 && closing[0] === first && closing[1] === second)
        guard case .fail(.shuttingDown) = machine.connectionWanted(now: Self.start, deadline: Self.start + .seconds(1)) else {
            Issue.record("picks fail once shutting down")
            return
        }
        let late = machine.connected(Connection())
        #expect(!late, "a connection that opens during shutdown is closed by the caller")
        let fill = machine.fillWanted(now: Self.start)
        #expect(Self.isNone(fill))
    }
}
