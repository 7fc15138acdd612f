import HeraldCore
import HeraldCrypto
import HeraldStatus
import HeraldStore
import Testing

/// The server against messages built by the independent Python implementation.
@Suite struct StatusVectorServerTests {
    static let cases = StatusVectors.shared.registrationCases.map(\.name)

    /// Each registration case on a fresh server: the §5.2 validation order, UUID forms, drops.
    @Test(arguments: cases)
    func registrationCase(_ name: String) async throws {
        let vector = StatusVectors.shared.registrationCases.first { $0.name == name }!
        try await StatusServerHarness.run { harness in
            let replies = await harness.server.handle(vector.message)
            try StatusExpectationCheck(serverPublicKey: harness.serverKey.publicKey)
                .check(replies, pushes: harness.delivery.pushes, against: vector.expect, name)
            // Only accepted registrations are stored.
            let stored = try harness.store.view.recordCount()
            let accepted = vector.expect.kind == "registrationResponse" && vector.expect.success == true && !name.contains("unregister")
            #expect(stored == (accepted ? 1 : 0), "\(name): stored records")
        }
    }

    /// register ×2, replay, query, push, duplicate push, wrong token + filtered mention,
    /// unregister, query, push to the unregistered, contacts-only register and query.
    @Test func fullFlowInOrder() async throws {
        try await StatusServerHarness.run { harness in
            let check = StatusExpectationCheck(serverPublicKey: harness.serverKey.publicKey)
            var handed = 0
            for step in StatusVectors.shared.flow.steps {
                let replies = await harness.server.handle(step.message)
                let pushes = Array(harness.delivery.pushes.dropFirst(handed))
                handed = harness.delivery.pushes.count
                try check.check(replies, pushes: pushes, against: step.expect, step.name)
            }
            #expect(harness.delivery.requests.count == 1, "one hand-over for the one request that pushed")
            // Handled on NIO's blocking-work pool, never on an event loop (or the caller's thread).
            #expect(harness.delivery.threadNames.allSatisfy { $0.hasPrefix("SGLTN-TP-#") }, "\(harness.delivery.threadNames)")
        }
    }
}
