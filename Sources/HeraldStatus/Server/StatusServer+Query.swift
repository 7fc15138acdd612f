import SwiftProtobuf
import Foundation
import HeraldCore
import HeraldStore
import Logging

extension StatusServer {
    /// status-go `HandlePushNotificationQuery`: one info per live registration of the asked keys;
    /// the access token only for registrations that take pushes from anyone, else the
    /// per-contact encrypted tokens.
    func handleQuery(_ message: ApplicationMessage) throws(StatusError) -> WakuMessage {
        guard let signer = message.signer else {
            throw StatusError(.invalidApplicationMessage, "a query without a signer cannot be answered")
        }
        let query: Protobuf_PushNotificationQuery
        do {
            query = try Protobuf_PushNotificationQuery(serializedBytes: message.payload)
        } catch {
            throw StatusError(.ignored, "the query does not decode: \(error)")
        }
        var response = Protobuf_PushNotificationQueryResponse()
        response.messageID = Data(message.id)
        if !query.publicKeys.isEmpty {
            do {
                response.info = try self.queryInfos(for: query.publicKeys)
                response.success = true
            } catch {
                self.logger.warning("status query lookup failed", metadata: ["error": "\(error)"])
            }
        }
        self.metrics.answered("query", result: response.success ? "success" : "failure")
        return try self.reply(.pushNotificationQueryResponse, response, to: signer)
    }

    static let hashedKeyLength = 64

    private func queryInfos(for keys: [Data]) throws -> [Protobuf_PushNotificationQueryInfo] {
        var infos: [Protobuf_PushNotificationQueryInfo] = []
        var seen: Set<Data> = []
        // Like SQL's `IN (…)`: each key once. Only a 64-byte SHAKE-256 digest can match a Status
        // registration; other keys are skipped without a lookup.
        for key in keys where key.count == Self.hashedKeyLength && seen.insert(key).inserted {
            for registration in try self.registry.registrations(scope: .status, subject: Array(key)) {
                let stored = try Protobuf_PushNotificationRegistration(serializedBytes: registration.attributes)
                var info = Protobuf_PushNotificationQueryInfo()
                info.publicKey = key
                info.installationID = registration.key.installationID
                info.grant = stored.grant
                info.version = registration.version
                if stored.allowFromContactsOnly {
                    info.allowedKeyList = stored.allowedKeyList
                } else {
                    info.accessToken = stored.accessToken
                }
                infos.append(info)
            }
        }
        return infos
    }
}
