import HeraldCore
import HeraldTesting
import Testing

@testable import HeraldStore

@Suite struct StoreCodableTests {
    let key = try! RegistrationKey(scope: .first, subject: [1, 2, 3], installationID: "install-1")

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

    @Test func storedRecordsRoundTripWithoutRepeatingTheKey() throws {
        let registration = Registration(key: key, version: 9, device: Device(platform: .apns, token: "ab", topic: "t"), enabled: false, attributes: [1, 2])
        for record in [RegistryRecord(version: 9, registration: registration), RegistryRecord(version: 42, registration: nil)] {
            let bytes = record.storedValue()
            let decoded = try bytes.withUnsafeBytes { try RegistryRecord(key: key, storedValue: $0) }
            #expect(decoded == record)
            #expect(!bytes.containsSequence(Array(key.installationID.utf8)), "the key must not be stored again in the value")
        }
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
        let bytes = RegistryRecord(version: 1, registration: nil).storedValue() + [0]
        #expect(throws: StoreError(.corrupt, "")) { try bytes.withUnsafeBytes { try RegistryRecord(key: key, storedValue: $0) } }
    }

    @Test func storedRecordOfAnUnknownFormatIsRefused() {
        var bytes = RegistryRecord(version: 1, registration: nil).storedValue()
        bytes[0] = 2
        #expect(throws: StoreError(.unsupportedFormat, "")) { try bytes.withUnsafeBytes { try RegistryRecord(key: key, storedValue: $0) } }
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
        #expect(bytes.starts(with: RegistrationKey.prefix(scope: .first, subject: [1, 2, 3])))
    }
}

extension Array where Element == UInt8 {
    fileprivate func containsSequence(_ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= self.count else { return false }
        return (0...(self.count - needle.count)).contains { Array(self[$0..<$0 + needle.count]) == needle }
    }
}
