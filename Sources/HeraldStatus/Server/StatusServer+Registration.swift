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

        static func malformed(_ reason: String) -> Self { Self(code: .malformedMessage, reason: reason) }
        static func versionMismatch(_ reason: String) -> Self { Self(code: .versionMismatch, reason: reason) }
        static func internalError(_ reason: String) -> Self { Self(code: .internalError, reason: reason) }
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
        let stored: UInt64
        do {
            key = try RegistrationKey(scope: .status, subject: hashedKey, installationID: registration.installationID)
            stored = try self.registry.record(for: key)?.version ?? 0
        } catch {
            throw .malformed("looking up the stored version failed: \(error)")
        }
        guard registration.version > stored else {
            throw .versionMismatch("version \(registration.version) is not above the stored \(stored)")
        }
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
            try await self.registry.submit(command)
            applied = try self.registry.record(for: key)
        } catch {
            throw .internalError("storing the registration failed: \(error)")
        }
        // A concurrent registration of a higher version wins; this one was then not applied.
        if let applied, applied.version != registration.version {
            throw .versionMismatch("version \(registration.version) was overtaken by \(applied.version)")
        }
        // status-go joins the query topic after an unregister too.
        self.queryTopics.join(hashedKey: hashedKey)
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
