import HeraldCore
import HeraldTesting
import Testing

@testable import HeraldStore

@Suite struct StoreCodableTests {
    let key = try! RegistrationKey(scope: .status, subject: [1, 2, 3], installationID: "install-1")

    @Test func everyCommandKindRoundTrips() throws {
        let device = Device(platform: .fcm, token: "tok", topic: nil, app: "wallet")
        let commands: [RegistryCommand] = [
            .register(Registration(key: key, version: 7, device: device, enabled: false, attributes: [0, 255, 9])),
            .register(Registration(key: key, version: .max, device: Device(platform: Platform(rawValue: 9), token: "", topic: "t"))),
            .unregister(key, version: 8),
            .disableToken(key, token: "tok", reason: "Unregistered"),
        ]
        for command in commands {
            #expect(try RegistryCommand.decoded(from: command.encoded()) == command)
        }
    }

    @Test func syntheticStreamRoundTrips() throws {
        let stream = SyntheticCommands(seed: 3, subjects: 100)
        for command in stream.commands(0..<500) {
            #expect(try RegistryCommand.decoded(from: command.encoded()) == command)
        }
    }

    @Test func recordsKeepTheVersionOfAnUnregisteredKey() throws {
        let record = RegistryRecord(version: 42, registration: nil)
        #expect(try RegistryRecord.decoded(from: record.encoded()) == record)
    }

    @Test func firstByteIsTheFormatVersion() {
        #expect(RegistryCommand.unregister(key, version: 1).encoded().first == RegistryCommand.formatVersion)
    }

    @Test func unknownFormatVersionIsRefused() {
        var bytes = RegistryCommand.unregister(key, version: 1).encoded()
        bytes[0] = 200
        #expect(throws: StoreError(.unsupportedFormat, "")) { try RegistryCommand.decoded(from: bytes) }
    }

    @Test func unknownCommandTagIsRefused() {
        var bytes = RegistryCommand.unregister(key, version: 1).encoded()
        bytes[1] = 99
        #expect(throws: StoreError(.unsupportedFormat, "")) { try RegistryCommand.decoded(from: bytes) }
    }

    @Test func everyTruncationIsCorruptNotACrash() {
        let bytes = RegistryCommand.disableToken(key, token: "abcdef", reason: "BadDeviceToken").encoded()
        for length in 1..<bytes.count {
            #expect(throws: StoreError(.corrupt, "")) { try RegistryCommand.decoded(from: Array(bytes.prefix(length))) }
        }
    }

    @Test func trailingBytesAreCorrupt() {
        let bytes = RegistryRecord(version: 1, registration: nil).encoded() + [0]
        #expect(throws: StoreError(.corrupt, "")) { try RegistryRecord.decoded(from: bytes) }
    }

    @Test func integerKeysSortNumerically() {
        let keys: [UInt64] = [0, 1, 255, 256, 65_536, .max]
        let encoded = keys.map(\.storeKeyBytes)
        #expect(encoded == encoded.sorted { $0.lexicographicallyPrecedes($1) })
    }

    @Test func registrationKeyBytesRoundTrip() throws {
        let bytes = key.storeKeyBytes
        let decoded = try bytes.withUnsafeBytes { try RegistrationKey(storeKeyBytes: $0) }
        #expect(decoded == key)
        #expect(bytes.starts(with: RegistrationKey.prefix(scope: .status, subject: [1, 2, 3])))
    }
}
