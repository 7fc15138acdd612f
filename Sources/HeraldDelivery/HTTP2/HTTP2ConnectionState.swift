import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP2

/// What one connection has learned from its peer, shared between the pipeline (which learns it)
/// and the tasks sending requests (which act on it).
final class HTTP2ConnectionState: Sendable {
    private struct State {
        var settingsSeen = false
        var goAway: (lastStreamID: HTTP2StreamID, reason: String?)?
        var closedReason: String?
        var firstError: (any Error)?
        var pingOutstanding: UInt64?
        var streamsOpened = 0
        var pingsAcknowledged = 0
    }

    /// Client stream ids are odd and 31-bit: after about a billion streams the connection is
    /// retired (then replaced) before NIO runs out of ids.
    static let maximumStreams = (1 << 30) - 1024

    /// Streams still open this long after a GOAWAY or retirement are cut off.
    static let drainLimit = TimeAmount.seconds(30)

    let permits = StreamPermits(limit: 0)
    let preface: EventLoopPromise<Void>
    private let eventLoop: any EventLoop
    private let state = NIOLockedValueBox(State())
    /// Closes the channel; set once the channel exists.
    let closeChannel = NIOLockedValueBox<(@Sendable () -> Void)?>(nil)

    init(eventLoop: any EventLoop) {
        self.preface = eventLoop.makePromise()
        self.eventLoop = eventLoop
    }

    /// Closes the channel after `drainLimit` even if a stream never finishes (one stuck opening
    /// after the GOAWAY would otherwise keep the connection forever).
    private func scheduleHardClose() {
        let close = self.closeChannel
        self.eventLoop.scheduleTask(in: Self.drainLimit) {
            close.withLockedValue { $0 }?()
        }
    }

    /// Counts a stream about to open; retires the connection when its ids run low.
    func streamOpening() {
        let exhausted = self.state.withLockedValue { state in
            state.streamsOpened += 1
            return state.streamsOpened >= Self.maximumStreams
        }
        if exhausted { self.retire(reason: "stream ids exhausted") }
    }

    /// Takes no new work from now on, as after a GOAWAY, and closes once idle.
    func retire(reason: String) {
        let first = self.state.withLockedValue { state in
            guard state.goAway == nil else { return false }
            state.goAway = (.maxID, reason)
            return true
        }
        guard first else { return }
        self.permits.fail(HTTP2ConnectionError(.goingAway, "connection retired: \(reason)", peerReason: reason))
        self.closeIfIdle()
        self.scheduleHardClose()
    }

    /// After GOAWAY or retirement, closes the channel once no stream is open.
    func closeIfIdle() {
        if self.isGoingAway, self.permits.inUse == 0 {
            self.closeChannel.withLockedValue { $0 }?()
        }
    }

    /// The first error the pipeline reported (a TLS handshake failure, say).
    var firstError: (any Error)? { self.state.withLockedValue { $0.firstError } }

    func errorCaught(_ error: any Error) {
        self.state.withLockedValue { state in
            if state.firstError == nil { state.firstError = error }
        }
    }

    var isGoingAway: Bool { self.state.withLockedValue { $0.goAway != nil } }
    var isClosed: Bool { self.state.withLockedValue { $0.closedReason != nil } }
    var goAwayReason: String? { self.state.withLockedValue { $0.goAway?.reason } }

    /// PINGs the peer has answered.
    var pingsAcknowledged: Int { self.state.withLockedValue { $0.pingsAcknowledged } }

    /// Records a PING about to be sent; returns `false` when the previous one is still unanswered
    /// (the peer is gone).
    func pingSent(_ data: UInt64) -> Bool {
        self.state.withLockedValue { state in
            guard state.pingOutstanding == nil else { return false }
            state.pingOutstanding = data
            return true
        }
    }

    func pingAcknowledged(_ data: UInt64) {
        self.state.withLockedValue { state in
            if state.pingOutstanding == data {
                state.pingOutstanding = nil
                state.pingsAcknowledged += 1
            }
        }
    }

    func settingsReceived(maxConcurrentStreams: Int?) {
        let first = self.state.withLockedValue { state in
            defer { state.settingsSeen = true }
            return !state.settingsSeen
        }
        if let maxConcurrentStreams {
            self.permits.setLimit(maxConcurrentStreams)
        } else if first {
            // RFC 9113 leaves it unlimited; NIO assumes 100 until told otherwise, so do the same.
            self.permits.setLimit(100)
        }
        if first { self.preface.succeed() }
    }

    func goAwayReceived(lastStreamID: HTTP2StreamID, errorCode: HTTP2ErrorCode, debugData: String?) {
        let reason = debugData.flatMap(Self.reason(fromJSON:)) ?? debugData
        self.state.withLockedValue { $0.goAway = (lastStreamID, reason) }
        self.permits.fail(HTTP2ConnectionError(.goingAway, "peer sent GOAWAY (\(errorCode))", peerReason: reason))
        self.closeIfIdle()
        self.scheduleHardClose()
    }

    func closed(because reason: String) {
        self.state.withLockedValue { state in
            if state.closedReason == nil { state.closedReason = reason }
        }
        let error = HTTP2ConnectionError(.closed, reason)
        self.permits.fail(error)
        self.preface.fail(error)
    }

    /// APNs puts `{"reason": "…"}` in GOAWAY debug data.
    static func reason(fromJSON text: String) -> String? {
        guard let data = text.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return object["reason"] as? String
    }
}
