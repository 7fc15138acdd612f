import Crypto
import Foundation
import HeraldCore
import HeraldTesting
import NIOHPACK
import Testing

@testable import HeraldDelivery

/// Herald's APNs request path against the strict mock over real TLS and HTTP/2, with either codec.
@Suite struct APNSOverHTTP2Tests {
    @Test(arguments: HTTP2Codec.allCases) func acceptedPushArrivesWithEveryHeaderAndThePayload(codec: HTTP2Codec) async throws {
        try await MockAPNSHarness.with { harness in
            let connection = try await harness.connect(codec: codec)
            let notification = MockAPNSHarness.notification()
            let response = try await harness.send(notification, on: connection)
            #expect(response.status == 200)
            #expect(response.apnsID?.lowercased() == notification.id)
            #expect(response.decision == .finish(.delivered))
            let accepted = try #require(harness.mock.accepted.first)
            #expect(accepted.token == notification.device.token)
            #expect(accepted.topic == MockAPNSHarness.topic)
            #expect(accepted.pushType == "alert")
            #expect(accepted.priority == "10")
            #expect(accepted.payload == notification.payload)
            #expect(accepted.keyID == MockAPNSHarness.keyID)
            await connection.close()
        }
    }

    @Test(arguments: HTTP2Codec.allCases) func streamLimitStartsAtOneAndRisesAfterTheFirstAuthenticatedPush(codec: HTTP2Codec) async throws {
        try await MockAPNSHarness.with { harness in
            let connection = try await harness.connect(codec: codec)
            #expect(connection.maxConcurrentStreams == 1)
            _ = try await harness.send(MockAPNSHarness.notification(), on: connection)
            try await waitUntil("the client learns the mock's limit of 1,000 streams", observing: { connection.maxConcurrentStreams }) { $0 == 1000 }
            await connection.close()
        }
    }

    @Test(arguments: HTTP2Codec.allCases) func loweredStreamLimitBoundsRequestsInFlight(codec: HTTP2Codec) async throws {
        try await MockAPNSHarness.with { harness in
            let connection = try await harness.connect(codec: codec)
            _ = try await harness.send(MockAPNSHarness.notification(), on: connection)
            harness.mock.setMaxConcurrentStreams(2)
            try await waitUntil("the client learns the lowered limit of 2 streams", observing: { connection.maxConcurrentStreams }) { $0 == 2 }
            harness.mock.setLatency(.milliseconds(20))
            let highest = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<12 {
                    group.addTask {
                        let response = try await harness.send(MockAPNSHarness.notification(), on: connection)
                        #expect(response.status == 200)
                        return 0
                    }
                }
                group.addTask {
                    // Samples the client's open streams until the mock has every push.
                    var highest = 0
                    try await waitUntil("the mock accepts all 13 pushes", every: .milliseconds(1)) {
                        highest = max(highest, connection.openStreams)
                        return harness.mock.accepted.count
                    } _: { $0 == 13 }
                    return highest
                }
                return try await group.reduce(0, max)
            }
            #expect(highest >= 1 && highest <= 2)
            #expect(harness.mock.accepted.count == 13)
            await connection.close()
        }
    }

    @Test(arguments: HTTP2Codec.allCases) func unregisteredTokenIsADeadTokenWithItsTimestamp(codec: HTTP2Codec) async throws {
        try await MockAPNSHarness.with { harness in
            let token = String(repeating: "b2", count: 32)
            let since = Date(timeIntervalSince1970: 1_700_000_000.5)
            harness.mock.script(token: token, .unregistered(since: since))
            let connection = try await harness.connect(codec: codec)
            let response = try await harness.send(MockAPNSHarness.notification(token: token), on: connection)
            #expect(response.status == 410)
            #expect(response.reason == .unregistered)
            #expect(response.timestamp == 1_700_000_000_500)
            #expect(response.decision == .finish(.deadToken(reason: "Unregistered")))
            #expect(harness.mock.accepted.isEmpty)
            await connection.close()
        }
    }

    @Test(arguments: HTTP2Codec.allCases) func throttledTokenIsRetriedAfterRetryAfter(codec: HTTP2Codec) async throws {
        try await MockAPNSHarness.with { harness in
            let token = String(repeating: "c3", count: 32)
            harness.mock.script(token: token, .throttled(retryAfterSeconds: 9))
            let connection = try await harness.connect(codec: codec)
            let response = try await harness.send(MockAPNSHarness.notification(token: token), on: connection)
            #expect(response.decision == .retry(reason: "TooManyRequests", after: .seconds(9), then: .none))
            await connection.close()
        }
    }

    @Test(arguments: HTTP2Codec.allCases) func everyNthFailureIsInjected(codec: HTTP2Codec) async throws {
        try await MockAPNSHarness.with { harness in
            harness.mock.fail(every: 3, status: 500, reason: "InternalServerError")
            let connection = try await harness.connect(codec: codec)
            var statuses: [Int] = []
            for _ in 0..<6 { statuses.append(try await harness.send(MockAPNSHarness.notification(), on: connection).status) }
            #expect(statuses == [200, 200, 500, 200, 200, 500])
            await connection.close()
        }
    }

    @Test(arguments: HTTP2Codec.allCases) func goAwayStopsNewWorkAndCarriesTheReason(codec: HTTP2Codec) async throws {
        try await MockAPNSHarness.with { harness in
            let connection = try await harness.connect(codec: codec)
            _ = try await harness.send(MockAPNSHarness.notification(), on: connection)
            harness.mock.sendGoAway(reason: "Shutdown")
            try await waitUntil("the connection stops being usable") { !connection.isUsable }
            do {
                _ = try await harness.send(MockAPNSHarness.notification(), on: connection)
                Issue.record("a request after GOAWAY must fail")
            } catch let error as HTTP2ConnectionError {
                #expect([.goingAway, .closed].contains(error.code))
            }
            // A new connection works.
            let fresh = try await harness.connect(codec: codec)
            #expect(try await harness.send(MockAPNSHarness.notification(), on: fresh).status == 200)
            await fresh.close()
        }
    }

    @Test(arguments: HTTP2Codec.allCases) func closedPeerFailsTheConnectionNotTheProcess(codec: HTTP2Codec) async throws {
        try await MockAPNSHarness.with { harness in
            let connection = try await harness.connect(codec: codec)
            await connection.close()
            await #expect(throws: HTTP2ConnectionError.self) {
                try await harness.send(MockAPNSHarness.notification(), on: connection)
            }
        }
    }

}

@Suite struct HTTP2KeepAliveTests {
    @Test(arguments: HTTP2Codec.allCases) func answeredPingsKeepTheConnection(codec: HTTP2Codec) async throws {
        try await MockAPNSHarness.with { harness in
            var configuration = try HTTP2Connection.Configuration(
                host: "127.0.0.1",
                port: harness.mock.port,
                authority: "localhost",
                trustRootsPEM: [harness.mock.certificatePEM]
            )
            // Wide enough that a busy test machine answers each PING before the next one.
            configuration.pingInterval = .milliseconds(250)
            configuration.codec = codec
            let connection = try await HTTP2Connection.connect(configuration, group: harness.group)
            try await waitUntil("two pings are acknowledged", observing: { connection.pingsAcknowledged }) { $0 >= 2 }
            #expect(connection.isUsable)
            await connection.close()
        }
    }
}
