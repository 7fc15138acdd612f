import Crypto
import Foundation
import HeraldCore
import HeraldStore
import HTTPTypes
import Testing

@testable import HeraldSilent

/// Registry keys of silent-sync registrations, and registering, moving and unregistering in a
/// real store.
@Suite struct SilentRegistrationsTests {
    static let deviceIDs = ["A-INSTALL", "SECRET-DEVICE-ID-1234", "0f6e2a9c-7d1b-4c55-9a0e-1b2c3d4e5f60", String(repeating: "z", count: 255)]

    // MARK: Keys

    @Test func keysAreStableServiceSeparatedAndHoldOnlyAHashOfTheDeviceID() {
        for deviceID in Self.deviceIDs {
            let key = SilentRegistrations.key(service: "default", deviceID: deviceID)
            #expect(key == SilentRegistrations.key(service: "default", deviceID: deviceID))
            #expect(key != SilentRegistrations.key(service: "news", deviceID: deviceID))
            #expect(key.scope == RegistrationScope.silentSync)
            #expect(key.installationID.isEmpty)
            #expect(key.subject == Array("default".utf8) + [0] + Array(SHA256.hash(data: Array(deviceID.utf8))))
            #expect(!key.storeKeyBytes.containsRun(Array(deviceID.utf8)), "the deviceId is a bearer secret")
        }
        #expect(Set(Self.deviceIDs.map { SilentRegistrations.key(service: "default", deviceID: $0) }).count == Self.deviceIDs.count)
        // Pinned: stored keys must not change between versions, or registrations are lost.
        #expect(
            Hex.encode(SilentRegistrations.key(service: "default", deviceID: "A-INSTALL").storeKeyBytes)
                == "022864656661756c7400c8c2e298637844ee2ab1d5fbdec91c91544726657341292bf69bf543c8d7f19a"
        )
        #expect(SilentRegistrations.keyPrefix(service: "default") == [2, 40] + Array("default".utf8) + [0])
    }

    @Test func limiterAndLogIDsAreTheTailOfTheHash() {
        let key = SilentRegistrations.key(service: "default", deviceID: "A-INSTALL")
        #expect(SilentSender.limiterKey(key) == (0xF69B_F543_C8D7_F19A as UInt64))
        #expect(SilentSync.logID(key) == "f543c8d7f19a")
        let ids = Set((0..<1000).map { SilentSender.limiterKey(SilentRegistrations.key(service: "default", deviceID: "device-\($0)")) })
        #expect(ids.count == 1000)
    }

    @Test func aServicesKeyPrefixFindsItsRegistrationsAndNoOneElses() async throws {
        // "a" is a prefix of "ab" as text; the key prefix still tells them apart.
        let inA = (0..<3).map { Fixtures.registration(service: "a", deviceID: "device-\($0)", token: Fixtures.apnsToken($0)) }
        let inAB = (0..<2).map { Fixtures.registration(service: "ab", deviceID: "device-\($0)", token: Fixtures.apnsToken(10 + $0)) }
        let prefix = SilentRegistrations.keyPrefix(service: "a")
        #expect(inA.allSatisfy { $0.key.storeKeyBytes.starts(with: prefix) })
        #expect(!inAB.contains { $0.key.storeKeyBytes.starts(with: prefix) })
        try await withStore { store in
            try await seed(store, inAB + inA)
            let page = try store.view.registrations(keyPrefix: prefix, after: nil, limit: 100)
            #expect(Set(page.registrations.map(\.key)) == Set(inA.map(\.key)))
        }
    }

    // MARK: Applying registrations

    static let service = SilentService(name: "default", app: "toot", sandboxApp: "toot-dev")

    @Test func registerUpdateUnchangedUnregisterAndAbsent() async throws {
        try await withRegistry { store, registry in
            let registrations = SilentRegistrations(registry: registry, deadTokens: nil, logger: Fixtures.logger)
            func apply(_ token: String?, deviceID: String = "A", at now: Date = Fixtures.now) async throws -> SilentRegistrations.Action {
                let request = SilentRegistrationRequest(deviceID: deviceID, pushType: .ios, token: token)
                return try await registrations.apply(request, service: Self.service, appID: "toot", now: now)
            }
            let key = SilentRegistrations.key(service: "default", deviceID: "A")
            let first = Fixtures.apnsToken(1)
            #expect(try await apply(first) == .registered)
            let stored = try registry.record(for: key)?.registration
            #expect(stored?.device == Device(platform: .apns, token: first, app: "toot"))
            #expect(stored?.attributes == [UInt8]([0]), "IOS")
            #expect(stored?.version == UInt64(1_700_000_000_000_000), "the clock's microseconds")
            #expect(try await apply(first) == .unchanged)
            #expect(try registry.record(for: key)?.version == UInt64(1_700_000_000_000_000), "nothing written")
            // The clock went back a minute: the version still grows.
            #expect(try await apply(Fixtures.apnsToken(2), at: Fixtures.now.addingTimeInterval(-60)) == .updated)
            #expect(try registry.record(for: key)?.version == UInt64(1_700_000_000_000_001))
            #expect(try registry.record(for: key)?.registration?.device.token == Fixtures.apnsToken(2))
            #expect(try await apply(nil) == .unregistered)
            #expect(try registry.record(for: key)?.registration == nil)
            #expect(try await apply(nil) == .absent)
            #expect(try await apply(nil, deviceID: "never-seen") == .absent)
            #expect(try store.view.recordCount() == 1, "nothing is written for nothing")
        }
    }

    @Test func aTokenThatMovesToAnotherInstallEvictsTheOldOne() async throws {
        try await withRegistry { _, registry in
            let handler = RecordingDeadTokenHandler()
            let registrations = SilentRegistrations(registry: registry, deadTokens: handler, logger: Fixtures.logger)
            let token = Fixtures.fcmToken(1)
            func apply(_ deviceID: String) async throws -> SilentRegistrations.Action {
                let request = SilentRegistrationRequest(deviceID: deviceID, pushType: .and, token: token)
                return try await registrations.apply(request, service: Self.service, appID: "toot", now: Fixtures.now)
            }
            #expect(try await apply("A") == .registered)
            #expect(handler.reports.isEmpty)
            #expect(try await apply("B") == .registered)
            let reports = handler.reports
            #expect(reports.count == 1)
            #expect(reports.first?.notification.registration == SilentRegistrations.key(service: "default", deviceID: "A"))
            #expect(reports.first?.notification.device == Device(platform: .fcm, token: token, app: "toot"))
            #expect(reports.first?.reason.contains("moved") == true)
            let moved = try registry.record(for: SilentRegistrations.key(service: "default", deviceID: "B"))?.registration
            #expect(moved?.device == Device(platform: .fcm, token: token, app: "toot"))
            #expect(moved?.attributes == [UInt8]([1]), "AND")
        }
    }

    @Test func aTokenForAnAppTheServiceLacksIsNotServed() async throws {
        try await withRegistry { store, registry in
            let registrations = SilentRegistrations(registry: registry, deadTokens: nil, logger: Fixtures.logger)
            let request = SilentRegistrationRequest(deviceID: "D", pushType: .iod, token: Fixtures.apnsToken(3))
            let error = await #expect(throws: SilentError.self) {
                try await registrations.apply(request, service: Self.service, appID: nil, now: Fixtures.now)
            }
            #expect(error?.status == HTTPResponse.Status.badRequest)
            #expect(try store.view.recordCount() == 0)
            // With the sandbox app it reaches, the same registration is kept, as IOD.
            #expect(try await registrations.apply(request, service: Self.service, appID: "toot-dev", now: Fixtures.now) == .registered)
            let stored = try registry.record(for: SilentRegistrations.key(service: "default", deviceID: "D"))?.registration
            #expect(stored?.device == Device(platform: .apns, token: Fixtures.apnsToken(3), app: "toot-dev"))
            #expect(stored?.attributes == [UInt8]([2]))
        }
    }

    // MARK: Benchmark registrations

    @Test func benchRegistrationsAreWhatTheFrontDoorWouldStore() throws {
        var tokens: Set<String> = []
        for index in [0, 1, 10, 11, 255, 4096] {
            let command = SilentBenchRegistrations.command(service: "bench", app: "toot", index: index, fcmEvery: 10)
            guard case .register(let registration) = command else {
                Issue.record("device \(index) is not a registration")
                continue
            }
            let isFCM = index % 10 == 0
            #expect(registration.key == SilentRegistrations.key(service: "bench", deviceID: "bench-device-\(index)"))
            #expect(registration.device.platform == (isFCM ? Platform.fcm : Platform.apns))
            #expect(registration.device.app == "toot")
            #expect(registration.attributes == [UInt8]([isFCM ? 1 : 0]))
            // Its token passes the checks a registering app's would.
            let type: SilentRegistrationRequest.PushType = isFCM ? .and : .ios
            #expect(try SilentRegistrationRequest.checked(registration.device.token, for: type) == registration.device.token)
            tokens.insert(registration.device.token)
        }
        #expect(tokens.count == 6)
        guard case .register(let onlyAPNs) = SilentBenchRegistrations.command(service: "bench", app: "toot", index: 0, fcmEvery: 0) else {
            Issue.record("not a registration")
            return
        }
        #expect(onlyAPNs.device.platform == Platform.apns, "fcmEvery 0: no FCM devices")
    }
}
