import HeraldCore
import Testing

@Suite struct RegistryCommandEffectTests {
    let key = try! RegistrationKey(scope: .first, subject: [7], installationID: "i")
    func registration(version: UInt64, token: String = "tok", enabled: Bool = true) -> Registration {
        Registration(key: key, version: version, device: Device(platform: .apns, token: token), enabled: enabled)
    }

    @Test func registerStoresAHigherVersion() {
        let stored = RegistryRecord(version: 3, registration: registration(version: 3))
        let effect = RegistryCommand.register(registration(version: 4)).effect(on: stored)
        #expect(effect == .store(RegistryRecord(version: 4, registration: registration(version: 4))))
    }

    @Test func registerOfANewKeyStores() {
        #expect(RegistryCommand.register(registration(version: 1)).effect(on: nil) == .store(RegistryRecord(version: 1, registration: registration(version: 1))))
    }

    @Test(arguments: [3, 2] as [UInt64])
    func registerAtOrBelowTheStoredVersionIsStale(version: UInt64) {
        let stored = RegistryRecord(version: 3, registration: nil)
        #expect(RegistryCommand.register(registration(version: version)).effect(on: stored) == .unchanged(.staleVersion))
    }

    @Test func unregisterKeepsTheNewVersion() {
        let stored = RegistryRecord(version: 3, registration: registration(version: 3))
        #expect(RegistryCommand.unregister(key, version: 4).effect(on: stored) == .store(RegistryRecord(version: 4, registration: nil)))
    }

    @Test func unregisterOfAnUnknownKeyStoresNothing() {
        #expect(RegistryCommand.unregister(key, version: 4).effect(on: nil) == .unchanged(.notRegistered))
    }

    @Test func unregisterWithAnOldVersionIsStale() {
        let stored = RegistryRecord(version: 5, registration: registration(version: 5))
        #expect(RegistryCommand.unregister(key, version: 5).effect(on: stored) == .unchanged(.staleVersion))
    }

    @Test func disableTurnsOffTheMatchingTokenAndKeepsTheVersion() {
        let stored = RegistryRecord(version: 5, registration: registration(version: 5))
        let expected = RegistryRecord(version: 5, registration: registration(version: 5, enabled: false))
        #expect(RegistryCommand.disableToken(key, token: "tok", reason: "Unregistered").effect(on: stored) == .store(expected))
    }

    @Test func disableOfAReplacedTokenDoesNothing() {
        let stored = RegistryRecord(version: 6, registration: registration(version: 6, token: "new"))
        #expect(RegistryCommand.disableToken(key, token: "old", reason: "Unregistered").effect(on: stored) == .unchanged(.tokenReplaced))
    }

    @Test func disableOfAnUnregisteredKeyDoesNothing() {
        let stored = RegistryRecord(version: 6, registration: nil)
        #expect(RegistryCommand.disableToken(key, token: "tok", reason: "x").effect(on: stored) == .unchanged(.notRegistered))
    }

    @Test func disableTwiceIsANoOp() {
        let stored = RegistryRecord(version: 6, registration: registration(version: 6, enabled: false))
        #expect(RegistryCommand.disableToken(key, token: "tok", reason: "x").effect(on: stored) == .unchanged(.alreadyDisabled))
    }
}
