/// Identifies one registration: a subject (whom the front door registers, often a hash of
/// an identity, never a secret) and one of its installations.
public struct RegistrationKey: Hashable, Sendable, CustomStringConvertible {
    /// Longest subject accepted; a SHAKE-256/64 hash is 64 bytes, the rest is headroom.
    public static let maximumSubjectLength = 255
    /// Longest installation id accepted, in UTF-8 bytes. With the subject and two header bytes a
    /// stored key stays within LMDB's 511-byte key limit.
    public static let maximumInstallationIDLength = 200

    // Constants, so the limits checked in `init` hold for every key (the store relies on them).
    public let scope: RegistrationScope
    public let subject: [UInt8]
    public let installationID: String

    public init(scope: RegistrationScope, subject: [UInt8], installationID: String) throws(RegistryError) {
        guard !subject.isEmpty, subject.count <= Self.maximumSubjectLength else {
            throw RegistryError(.invalidKey, "subject must be 1 to \(Self.maximumSubjectLength) bytes, got \(subject.count)")
        }
        guard installationID.utf8.count <= Self.maximumInstallationIDLength else {
            throw RegistryError(
                .invalidKey,
                "installation id must be at most \(Self.maximumInstallationIDLength) bytes, got \(installationID.utf8.count)"
            )
        }
        self.scope = scope
        self.subject = subject
        self.installationID = installationID
    }

    public var description: String {
        "\(self.scope)/\(Hex.encode(self.subject.prefix(8)))…/\(self.installationID)"
    }
}
