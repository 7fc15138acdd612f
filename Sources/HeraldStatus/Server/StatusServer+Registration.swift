import SwiftProtobuf
import Foundation
import HeraldCore
import HeraldCrypto
import HeraldStore
import Logging

extension StatusServer {
    /// Why a registration was refused, as the code the client receives.
    struct RegistrationRefusal: Error {
        let code: Protobuf_PushNotificationRegistrationResponse.ErrorType
        let reason: String
        /// Not a refusal the client hears: the registration gets no answer at all.
        var isUnanswerable = false

        static func malformed(_ reason: String) -> Self { Self(code: .malformedMessage, reason: reason) }
        static func versionMismatch(_ reason: String) -> Self { Self(code: .versionMismatch, reason: reason) }
        static func internalError(_ reason: String) -> Self { Self(code: .internalError, reason: reason) }
        /// The store cannot take the write now (a cluster without quorum): status-go answers
        /// nothing when its store fails, and the client sends again.
        static func unanswerable(_ reason: String) -> Self { Self(code: .internalError, reason: reason, isUnanswerable: true) }
    }

    /// status-go `buildPushNotificationRegistrationResponse`: every registration that reaches the
    /// handler is answered, undecryptable ones included (the 71/ spec says to discard them).
    func handleRegistration(_ message: ApplicationMessage) async throws(StatusError) -> WakuMessage {
        var response = Protobuf_PushNotificationRegistrationResponse()
        // Over the encrypted blob, before any check, so the client can match even a refusal.
        response.requestID = Data(SHAKE256.hash(message.payload))
        do {
            try await self.register(message)
            response.success = true
            self.metrics.answered("registration", result: "success")
        } catch where error.isUnanswerable {
            self.metrics.answered("registration", result: "unanswered")
            throw StatusError(.internalFailure, "the registration was not stored and is not answered: \(error.reason)")
        } catch {
            response.error = error.code
            self.metrics.answered("registration", result: "\(error.code)")
            self.logger.debug("status registration refused", metadata: ["code": "\(error.code)", "reason": "\(error.reason)"])
        }
        guard let signer = message.signer else {
            throw StatusError(.invalidApplicationMessage, "a registration without a signer cannot be answered")
        }
        return try self.reply(.pushNotificationRegistrationResponse, response, to: signer)
    }

    /// Validates in status-go's order (status.md §5.2; first failure wins) and stores.
    private func register(_ message: ApplicationMessage) async throws(RegistrationRefusal) {
        guard let signer = message.signer else { throw .malformed("the registration has no signer") }
        let plaintext: [UInt8]
        do {
            let key = try ECDH.sharedSecret(privateKey: self.identity.privateKey, publicKey: signer)
            plaintext = try AESGCMFrame.open(message.payload, key: key)
        } catch {
            throw .malformed("the registration does not decrypt with the signer's shared key: \(error)")
        }
        let registration: Protobuf_PushNotificationRegistration
        do {
            registration = try Protobuf_PushNotificationRegistration(serializedBytes: plaintext)
        } catch {
            throw .malformed("the registration does not decode: \(error)")
        }
        guard registration.version >= 1 else { throw .versionMismatch("version must be at least 1") }
        guard GoUUID.isValid(registration.installationID) else {
            throw .malformed("installation_id is not a UUID")
        }
        let hashedKey = StatusIdentity.hashedKey(signer)
        let key: RegistrationKey
        do {
            key = try RegistrationKey(scope: .status, subject: hashedKey, installationID: registration.installationID)
        } catch {
            throw .malformed("the registration key is invalid: \(error)")
        }
        try self.checkVersion(registration.version, of: key)
        if !registration.unregister {
            try self.validateRegistration(registration, signer: signer)
        }
        // status-go cannot store a version with the high bit set (SQLite integers are signed)
        // and answers INTERNAL_ERROR; Herald mirrors it rather than accept what status-go refuses.
        guard registration.version < 1 << 63 else {
            throw .internalError("version \(registration.version) does not fit a signed 64-bit integer")
        }

        let command: RegistryCommand
        if registration.unregister {
            command = .unregister(key, version: registration.version)
        } else {
            command = .register(
                Registration(
                    key: key,
                    version: registration.version,
                    device: Device(
                        platform: Platform(rawValue: UInt8(clamping: registration.tokenType.rawValue)),
                        token: registration.deviceToken,
                        topic: registration.apnTopic.isEmpty ? nil : registration.apnTopic
                    ),
                    enabled: registration.enabled,
                    // The decrypted message as received, unknown fields and all.
                    attributes: plaintext
                )
            )
        }
        let applied: RegistryRecord?
        do {
            applied = try await self.store(command, version: registration.version)
        } catch let refusal as RegistrationRefusal {
            throw refusal
        } catch {
            throw .internalError("storing the registration failed: \(error)")
        }
        // A concurrent registration of a higher version, or another of the same version applied
        // first, wins; this one was then not applied.
        let won: Bool
        switch command {
        case .register(let submitted): won = applied?.registration == submitted
        default:
            // Unregistering what was never registered stores nothing (status.md §5.2).
            won = applied.map { $0.version == registration.version && $0.registration == nil } ?? true
        }
        guard won else {
            throw .versionMismatch("version \(registration.version) was overtaken by \(applied?.version ?? 0)")
        }
        // status-go joins the query topic after an unregister too.
        self.queryTopics.join(hashedKey: hashedKey)
    }

    /// The version must be above the stored one (status.md §5.2).
    private func checkVersion(_ version: UInt64, of key: RegistrationKey) throws(RegistrationRefusal) {
        let stored: UInt64
        do {
            stored = try self.registry.record(for: key)?.version ?? 0
        } catch {
            throw .malformed("looking up the stored version failed: \(error)")
        }
        guard version > stored else {
            throw .versionMismatch("version \(version) is not above the stored \(stored)")
        }
    }

    /// Appends `command` and returns the record the view then holds. In a cluster another node
    /// may have written the partition since this one checked the version: the append is fenced
    /// off, the view catches up, and the version is checked again, so the loser of a race hears
    /// VERSION_MISMATCH, as it would have from one node.
    private func store(_ command: RegistryCommand, version: UInt64) async throws -> RegistryRecord? {
        for attempt in 1...3 {
            do {
                try await self.registry.submit(command)
                return try self.registry.record(for: command.key)
            } catch let error as StoreError where error.code == .fenced && attempt < 3 {
                do {
                    try await self.registry.catchUp()
                } catch {
                    throw RegistrationRefusal.unanswerable("catching up after a fenced append failed: \(error)")
                }
                try self.checkVersion(version, of: command.key)
            } catch let error as StoreError where error.code == .unavailable || error.code == .fenced {
                throw RegistrationRefusal.unanswerable("\(error)")
            }
        }
        throw RegistrationRefusal.unanswerable("the partition kept moving")
    }

    /// Steps 10–14 of status.md §5.2, skipped for an unregister.
    private func validateRegistration(_ registration: Protobuf_PushNotificationRegistration, signer: Secp256k1PublicKey) throws(RegistrationRefusal) {
        guard GoUUID.isValid(registration.accessToken) else { throw .malformed("access_token is not a UUID") }
        guard !registration.grant.isEmpty else { throw .malformed("the grant is missing") }
        var material = Keccak256()
        material.update(signer.compressedRepresentation)
        material.update(self.identity.publicKey.compressedRepresentation)
        material.update(registration.accessToken.utf8)
        do {
            let grant = try RecoverableSignature(rawRepresentation: registration.grant)
            guard try grant.recoverPublicKey(fromDigest: material.finalize()) == signer else {
                throw CryptoError(.recoveryFailed, "the grant was not made by the registering key for this server")
            }
        } catch {
            throw .malformed("the grant does not verify: \(error)")
        }
        guard !registration.deviceToken.isEmpty else { throw .malformed("device_token is missing") }
        guard registration.tokenType.rawValue != 0 else { throw .malformed("token_type is unknown") }
    }
}
