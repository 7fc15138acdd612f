import HeraldCrypto
import HeraldStatus
import HeraldTesting
import Logging
import Testing

/// The nwaku adapter against the REST test peer: subscribe, poll, answer, survive a restart.
@Suite struct NwakuRelayAdapterTests {
    @Test func answersRegistrationsAndQueriesThroughTheRelay() async throws {
        let nwaku = try await MockNwaku.start()
        defer { Task { await nwaku.stop() } }
        try await StatusServerHarness.run { harness in
            var configuration = NwakuRelayAdapter.Configuration(url: nwaku.url)
            configuration.pollInterval = .milliseconds(20)
            let adapter = NwakuRelayAdapter(configuration: configuration, server: harness.server, logger: Logger(label: "nwaku-test"))
            let running = Task { await adapter.run() }
            defer { running.cancel() }

            let s = StatusScenario(harness)
            let registration = try s.client.registration(
                installationID: StatusScenario.installationID,
                version: 1,
                accessToken: StatusScenario.accessToken,
                deviceToken: StatusScenario.deviceToken
            )
            // Traffic for other servers shares the pubsub topic; it is not answered.
            nwaku.inject(WakuMessage(payload: [1, 2, 3], contentTopic: "/waku/1/0x01020304/rfc26"))
            nwaku.inject(registration)
            let published = try await nwaku.waitForPublished(1)
            try #require(published.count == 1)
            #expect(nwaku.subscriptions == ["/waku/2/rs/16/32"])
            #expect(published[0].topic == "/waku/2/rs/16/32")
            #expect(published[0].message.contentTopic == ContentTopic.partitioned(s.client.publicKey).description)
            #expect(try StatusAnswer(published[0].message, openedWith: s.client.identity).registrationResponse().success)

            // A restarted nwaku forgets the subscription; the adapter subscribes again.
            nwaku.failNext(2)
            nwaku.inject(try s.sender.query(for: s.client.hashedKey, ephemeral: s.ephemeral))
            let afterRestart = try await nwaku.waitForPublished(2)
            try #require(afterRestart.count == 2)
            let response = try StatusAnswer(afterRestart[1].message, openedWith: s.ephemeral).queryResponse()
            #expect(response.success)
            #expect(response.info.map(\.accessToken) == [StatusScenario.accessToken])
            running.cancel()
            await running.value
        }
    }
}
