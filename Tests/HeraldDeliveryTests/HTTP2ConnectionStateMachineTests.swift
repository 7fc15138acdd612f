import NIOCore
import NIOHTTP2
import Testing

@testable import HeraldDelivery

/// The connection's state machine as a value: events in, actions out, no channel and no clock.
@Suite struct HTTP2ConnectionStateMachineTests {
    typealias Machine = HTTP2Connection.StateMachine
    typealias Action = Machine.Action
    typealias WaiterID = StreamPermits.WaiterID

    static let waiter1 = WaiterID(rawValue: 1)
    static let waiter2 = WaiterID(rawValue: 2)
    static let waiter3 = WaiterID(rawValue: 3)
    static let start = NIODeadline.uptimeNanoseconds(1_000_000_000)

    /// A machine past its preface, with `limit` streams allowed and `open` of them open.
    static func active(limit: Int, open: Int = 0) -> Machine {
        var machine = Machine()
        #expect(machine.settingsReceived(maxConcurrentStreams: limit) == Action(preface: .succeed))
        for _ in 0..<open { #expect(machine.streamRequested() == .opened(.none)) }
        return machine
    }

    /// Queues `id` and checks it had to wait.
    static func queue(_ id: WaiterID, on machine: inout Machine, deadline: NIODeadline? = nil) -> NIODeadline? {
        #expect(machine.streamRequested() == .mustWait)
        guard case .queued(let scheduleTimer) = machine.waiterQueued(id, deadline: deadline) else {
            Issue.record("\(id) was not queued")
            return nil
        }
        return scheduleTimer
    }

    // MARK: Preface and SETTINGS

    @Test func firstSettingsCompleteThePrefaceAndWithoutALimitAllowOneHundredStreams() {
        var machine = Machine()
        #expect(machine.state == .awaitingPreface)
        #expect(machine.snapshot.maxConcurrentStreams == 0)
        #expect(machine.streamRequested() == .mustWait, "nothing opens before the peer's SETTINGS")
        #expect(machine.settingsReceived(maxConcurrentStreams: nil) == Action(preface: .succeed))
        #expect(machine.state == .active)
        #expect(machine.snapshot == Machine.Snapshot(isUsable: true, isGoingAway: false, openStreams: 0, maxConcurrentStreams: 100))
    }

    @Test func laterSettingsWithoutALimitKeepTheCurrentOne() {
        var machine = Self.active(limit: 1)
        #expect(machine.settingsReceived(maxConcurrentStreams: nil) == .none)
        #expect(machine.snapshot.maxConcurrentStreams == 1)
        #expect(machine.settingsReceived(maxConcurrentStreams: 500) == .none)
        #expect(machine.snapshot.maxConcurrentStreams == 500)
    }

    @Test func waitersQueuedBeforeThePrefaceAreAdmittedWithIt() {
        var machine = Machine()
        _ = Self.queue(Self.waiter1, on: &machine)
        _ = Self.queue(Self.waiter2, on: &machine)
        #expect(machine.settingsReceived(maxConcurrentStreams: 1) == Action(preface: .succeed, admit: [Self.waiter1]))
        #expect(machine.snapshot.openStreams == 1)
        #expect(machine.permits.waiting == 1)
    }

    // MARK: Stream limits

    @Test func streamsUpToTheLimitOpenAtOnceAndLaterOnesWaitTheirTurn() {
        var machine = Self.active(limit: 2, open: 2)
        _ = Self.queue(Self.waiter1, on: &machine)
        _ = Self.queue(Self.waiter2, on: &machine)
        #expect(machine.streamClosed() == Action(admit: [Self.waiter1]))
        #expect(machine.streamClosed() == Action(admit: [Self.waiter2]))
        #expect(machine.snapshot.openStreams == 2)
        #expect(machine.streamClosed() == .none)
        #expect(machine.snapshot.openStreams == 1)
    }

    @Test func aNewRequestDoesNotOvertakeWaitersWhenAPermitFrees() {
        var machine = Self.active(limit: 1, open: 1)
        _ = Self.queue(Self.waiter1, on: &machine)
        // The permit freed here is the waiter's, not the next comer's.
        #expect(machine.streamClosed() == Action(admit: [Self.waiter1]))
        #expect(machine.streamRequested() == .mustWait)
    }

    @Test func loweredLimitLetsOpenStreamsFinishWhileNewOnesWait() {
        var machine = Self.active(limit: 3, open: 3)
        #expect(machine.settingsReceived(maxConcurrentStreams: 1) == .none)
        #expect(machine.snapshot == Machine.Snapshot(isUsable: true, isGoingAway: false, openStreams: 3, maxConcurrentStreams: 1))
        _ = Self.queue(Self.waiter1, on: &machine)
        #expect(machine.streamClosed() == .none)
        #expect(machine.streamClosed() == .none)
        #expect(machine.streamClosed() == Action(admit: [Self.waiter1]))
        #expect(machine.snapshot.openStreams == 1)
    }

    @Test func raisedLimitAdmitsWaitersInArrivalOrder() {
        var machine = Self.active(limit: 1, open: 1)
        _ = Self.queue(Self.waiter1, on: &machine)
        _ = Self.queue(Self.waiter2, on: &machine)
        _ = Self.queue(Self.waiter3, on: &machine)
        #expect(machine.settingsReceived(maxConcurrentStreams: 3) == Action(admit: [Self.waiter1, Self.waiter2]))
        #expect(machine.settingsReceived(maxConcurrentStreams: 10) == Action(admit: [Self.waiter3]))
    }

    // MARK: Waiters' deadlines and cancellation

    @Test func theTimerFollowsTheEarliestDeadlineAndFailsOnlyWaitersPastTheirs() {
        var machine = Self.active(limit: 1, open: 1)
        let early = Self.start + .seconds(1)
        let middle = Self.start + .seconds(5)
        let late = Self.start + .seconds(9)
        #expect(Self.queue(Self.waiter1, on: &machine, deadline: middle) == middle)
        #expect(Self.queue(Self.waiter2, on: &machine, deadline: late) == nil, "a later deadline needs no timer of its own")
        #expect(Self.queue(Self.waiter3, on: &machine, deadline: early) == early, "an earlier one moves the timer")
        let fired = machine.permitTimerFired(deadline: early, now: early)
        #expect(fired.fail == Machine.FailWaiters(waiters: [Self.waiter3], error: HTTP2ConnectionError(.timedOut, "")))
        #expect(fired.scheduleTimer == middle)
        #expect(machine.permits.waiting == 2)
    }

    @Test func aTimerFiringAfterItsWaiterWasAdmittedFailsNobodyAndMovesOn() {
        var machine = Self.active(limit: 1, open: 1)
        let first = Self.start + .seconds(1)
        let second = Self.start + .seconds(2)
        #expect(Self.queue(Self.waiter1, on: &machine, deadline: first) == first)
        _ = Self.queue(Self.waiter2, on: &machine, deadline: second)
        #expect(machine.streamClosed() == Action(admit: [Self.waiter1]))
        #expect(machine.permitTimerFired(deadline: first, now: first) == Action(scheduleTimer: second))
        #expect(machine.permits.waiting == 1)
    }

    @Test func aTimerFiringWhenNobodyWaitsSetsNoOther() {
        var machine = Self.active(limit: 1, open: 1)
        let deadline = Self.start + .seconds(1)
        #expect(Self.queue(Self.waiter1, on: &machine, deadline: deadline) == deadline)
        #expect(machine.waiterCancelled(Self.waiter1) == true)
        #expect(machine.permitTimerFired(deadline: deadline, now: deadline) == .none)
        // The next waiter needs a timer again.
        #expect(Self.queue(Self.waiter2, on: &machine, deadline: deadline + .seconds(1)) == deadline + .seconds(1))
    }

    @Test func aCancelledWaiterLeavesTheQueueWithoutAPermit() {
        var machine = Self.active(limit: 1, open: 1)
        _ = Self.queue(Self.waiter1, on: &machine)
        _ = Self.queue(Self.waiter2, on: &machine)
        #expect(machine.waiterCancelled(Self.waiter1) == true)
        #expect(machine.waiterCancelled(Self.waiter1) == false, "gone already")
        #expect(machine.streamClosed() == Action(admit: [Self.waiter2]))
        #expect(machine.waiterCancelled(Self.waiter2) == false, "admitted already")
        #expect(machine.snapshot.openStreams == 1)
    }

    // MARK: GOAWAY and retirement

    @Test func goAwayFailsWaitersRefusesNewStreamsAndClosesWhenTheLastStreamEnds() {
        var machine = Self.active(limit: 2, open: 2)
        _ = Self.queue(Self.waiter1, on: &machine)
        _ = Self.queue(Self.waiter2, on: &machine)
        let action = machine.goAwayReceived(lastStreamID: 3, errorCode: .noError, reason: "Shutdown")
        #expect(action.fail == Machine.FailWaiters(waiters: [Self.waiter1, Self.waiter2], error: HTTP2ConnectionError(.goingAway, "")))
        #expect(action.fail?.error.peerReason == "Shutdown")
        #expect(!action.closeChannel, "two streams are still open")
        #expect(action.scheduleHardClose)
        #expect(machine.state == .draining(.init(lastStreamID: 3, reason: "Shutdown")))
        #expect(machine.snapshot == Machine.Snapshot(isUsable: false, isGoingAway: true, openStreams: 2, maxConcurrentStreams: 2))
        #expect(machine.streamRequested() == .refused(HTTP2ConnectionError(.goingAway, "")))
        #expect(machine.streamClosed() == .none)
        #expect(machine.streamClosed() == Action(closeChannel: true))
    }

    @Test func goAwayWithNothingOpenClosesAtOnce() {
        var machine = Self.active(limit: 10)
        #expect(machine.goAwayReceived(lastStreamID: 0, errorCode: .noError, reason: nil) == Action(closeChannel: true, scheduleHardClose: true))
    }

    @Test func aSecondGoAwayKeepsDrainingWithTheNewestReason() {
        var machine = Self.active(limit: 10, open: 1)
        _ = machine.goAwayReceived(lastStreamID: .maxID, errorCode: .noError, reason: "Shutdown")
        #expect(machine.goAwayReceived(lastStreamID: 1, errorCode: .noError, reason: "IdleTimeout") == Action(scheduleHardClose: true))
        #expect(machine.goAway == .init(lastStreamID: 1, reason: "IdleTimeout"))
        #expect(machine.streamRequested() == .refused(HTTP2ConnectionError(.goingAway, "")))
    }

    @Test func retirementDrainsLikeAGoAwayForEveryOpenStream() {
        var machine = Self.active(limit: 1, open: 1)
        _ = Self.queue(Self.waiter1, on: &machine)
        let action = machine.retired(reason: "Shutdown")
        #expect(action.fail?.waiters == [Self.waiter1])
        #expect(action.fail?.error.code == .goingAway)
        #expect(action.fail?.error.message == "connection retired: Shutdown")
        #expect(action.fail?.error.peerReason == "Shutdown")
        #expect(action.scheduleHardClose && !action.closeChannel)
        #expect(machine.goAway == .init(lastStreamID: .maxID, reason: "Shutdown"))
        #expect(machine.retired(reason: "again") == .none, "retiring twice changes nothing")
        #expect(machine.streamClosed() == Action(closeChannel: true))
    }

    @Test func streamIDsRunningLowRetireTheConnection() {
        var machine = Machine(maximumStreams: 3)
        _ = machine.settingsReceived(maxConcurrentStreams: 10)
        #expect(machine.streamRequested() == .opened(.none))
        #expect(machine.streamRequested() == .opened(.none))
        #expect(machine.streamRequested() == .opened(Action(scheduleHardClose: true)), "the third stream still opens")
        #expect(machine.goAway?.reason == "stream ids exhausted")
        #expect(!machine.snapshot.isUsable)
    }

    // MARK: Closing

    @Test func closingBeforeThePrefaceFailsIt() {
        var machine = Machine()
        _ = Self.queue(Self.waiter1, on: &machine)
        let action = machine.closed(reason: "connection closed")
        #expect(action.preface == .fail(HTTP2ConnectionError(.closed, "")))
        #expect(action.fail == Machine.FailWaiters(waiters: [Self.waiter1], error: HTTP2ConnectionError(.closed, "")))
        #expect(machine.state == .closed(reason: "connection closed", goAway: nil))
    }

    @Test func thePrefaceIsCompletedOnceEvenWhenDrainingStartedBeforeIt() {
        var retired = Machine()
        _ = retired.retired(reason: "Shutdown")
        #expect(retired.closed(reason: "connection closed").preface == .fail(HTTP2ConnectionError(.closed, "")))
        var early = Machine()
        _ = early.goAwayReceived(lastStreamID: 0, errorCode: .noError, reason: nil)
        #expect(early.settingsReceived(maxConcurrentStreams: nil).preface == .succeed)
        #expect(early.settingsReceived(maxConcurrentStreams: nil).preface == .none)
        #expect(early.closed(reason: "connection closed").preface == .none)
    }

    @Test func closingFailsWaitersAndEveryLaterRequestAndKeepsTheFirstReason() {
        var machine = Self.active(limit: 1, open: 1)
        _ = Self.queue(Self.waiter1, on: &machine)
        #expect(machine.closed(reason: "connection reset").fail?.waiters == [Self.waiter1])
        #expect(machine.closed(reason: "connection closed") == .none)
        #expect(machine.state == .closed(reason: "connection reset", goAway: nil))
        #expect(machine.streamRequested() == .refused(HTTP2ConnectionError(.closed, "")))
        #expect(!machine.snapshot.isUsable && !machine.snapshot.isGoingAway)
        #expect(machine.streamClosed() == .none, "a closed connection is not closed twice")
    }

    @Test func closingAfterAGoAwayKeepsItsReasonForLateStreams() {
        var machine = Self.active(limit: 1, open: 1)
        _ = machine.goAwayReceived(lastStreamID: 1, errorCode: .noError, reason: "Shutdown")
        _ = machine.closed(reason: "connection closed")
        #expect(machine.state == .closed(reason: "connection closed", goAway: .init(lastStreamID: 1, reason: "Shutdown")))
        #expect(machine.snapshot.isGoingAway)
        #expect(machine.streamRequested() == .refused(HTTP2ConnectionError(.goingAway, "")), "the first failure stays")
    }

    // MARK: PING

    @Test func anAnsweredPingIsCountedAndAnotherSent() {
        var machine = Self.active(limit: 1)
        #expect(machine.pingIntervalPassed(.seconds(60), nextPing: 7) == .send(7))
        machine.pingAcknowledged(99)
        #expect(machine.pingsAcknowledged == 0, "an answer to another PING is not this one's")
        machine.pingAcknowledged(7)
        #expect(machine.pingsAcknowledged == 1)
        #expect(machine.pingIntervalPassed(.seconds(60), nextPing: 8) == .send(8))
    }

    @Test func aPingWithoutAnswerByTheNextIntervalClosesTheConnection() {
        var machine = Self.active(limit: 1, open: 1)
        _ = Self.queue(Self.waiter1, on: &machine)
        #expect(machine.pingIntervalPassed(.seconds(60), nextPing: 7) == .send(7))
        guard case .close(let action) = machine.pingIntervalPassed(.seconds(60), nextPing: 8) else {
            Issue.record("an unanswered PING must close the connection")
            return
        }
        #expect(action.closeChannel)
        #expect(action.fail == Machine.FailWaiters(waiters: [Self.waiter1], error: HTTP2ConnectionError(.closed, "")))
        guard case .closed(let reason, nil) = machine.state else {
            Issue.record("not closed: \(machine.state)")
            return
        }
        #expect(reason == "no answer to PING within 60.0 seconds")
    }

    // MARK: Snapshot

    @Test(arguments: [
        Machine.Snapshot(isUsable: true, isGoingAway: false, openStreams: 0, maxConcurrentStreams: 100),
        Machine.Snapshot(isUsable: false, isGoingAway: true, openStreams: 12, maxConcurrentStreams: 1),
        Machine.Snapshot(isUsable: false, isGoingAway: false, openStreams: Int(Int32.max), maxConcurrentStreams: Int(Int32.max)),
    ])
    func theSnapshotSurvivesPackingIntoOneWord(snapshot: Machine.Snapshot) {
        #expect(Machine.unpack(Machine.pack(snapshot)) == snapshot)
    }

    @Test func aStreamLimitBeyondThirtyOneBitsIsReadAsTheLargestThatFits() {
        let snapshot = Machine.Snapshot(isUsable: true, isGoingAway: false, openStreams: 1, maxConcurrentStreams: Int(UInt32.max))
        #expect(Machine.unpack(Machine.pack(snapshot)).maxConcurrentStreams == Int(Int32.max))
        #expect(Machine.unpack(Machine.pack(snapshot)).openStreams == 1)
    }
}
