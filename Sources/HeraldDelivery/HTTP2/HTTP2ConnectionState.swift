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
        var pingsAcknowledged = 0
    }

    let permits = StreamPermits(limit: 0)
    let preface: EventLoopPromise<Void>
    private let state = NIOLockedValueBox(State())

    init(eventLoop: any EventLoop) {
        self.preface = eventLoop.makePromise()
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
