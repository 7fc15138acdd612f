import HeraldCore
import Testing

@Suite struct RegistrationKeyTests {
    @Test func emptySubjectIsRefused() {
        #expect(throws: RegistryError(.invalidKey, "")) { try RegistrationKey(scope: .first, subject: [], installationID: "i") }
    }

    @Test func overlongSubjectIsRefused() {
        let subject = [UInt8](repeating: 1, count: RegistrationKey.maximumSubjectLength + 1)
        #expect(throws: RegistryError(.invalidKey, "")) { try RegistrationKey(scope: .first, subject: subject, installationID: "i") }
    }

    @Test func overlongInstallationIDIsRefused() {
        let id = String(repeating: "x", count: RegistrationKey.maximumInstallationIDLength + 1)
        #expect(throws: RegistryError(.invalidKey, "")) { try RegistrationKey(scope: .first, subject: [1], installationID: id) }
    }

    @Test func keysAtTheLimitsAreAccepted() throws {
        let key = try RegistrationKey(
            scope: .second,
            subject: [UInt8](repeating: 1, count: RegistrationKey.maximumSubjectLength),
            installationID: String(repeating: "x", count: RegistrationKey.maximumInstallationIDLength)
        )
        #expect(key.subject.count == 255)
    }
}
