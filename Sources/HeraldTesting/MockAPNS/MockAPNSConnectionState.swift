import Foundation
import NIOConcurrencyHelpers

/// What the mock remembers about one client connection, as APNs does: the key and team its first
/// authenticated push bound it to, the tokens it has seen, and whether it has authenticated yet.
final class MockAPNSConnectionState: Sendable {
    struct State {
        var boundKeyID: String?
        var verified: [String: MockAPNSProviderToken] = [:]
        var lastToken: String?
        var lastTokenChange: Date?
        var authenticated = false
        var highestStreamID = 0
        /// Set when the mock sends GOAWAY: streams above it are refused, never processed, as
        /// HTTP/2 promises the client that sees the GOAWAY.
        var goAwayLastStreamID: Int?
    }

    let id: Int
    let state = NIOLockedValueBox(State())

    init(id: Int) {
        self.id = id
    }
}
