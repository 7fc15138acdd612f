import Foundation

extension Protobuf_PushNotificationRequest {
    /// A request for one notification of `type` to the installation `installationID` of the
    /// client whose hashed key is `publicKey`, under the access token it granted, as status-go's
    /// sender builds one; `messageID` defaults to 32 random bytes, a new message each call.
    public static func notifying(
        _ publicKey: [UInt8],
        installationID: String,
        accessToken: String,
        type: Protobuf_PushNotification.PushNotificationType = .message,
        messageID: [UInt8] = (0..<32).map { _ in UInt8.random(in: 0...255) }
    ) -> Self {
        var notification = Protobuf_PushNotification()
        notification.type = type
        notification.publicKey = Data(publicKey)
        notification.installationID = installationID
        notification.accessToken = accessToken
        var request = Protobuf_PushNotificationRequest()
        request.requests = [notification]
        request.messageID = Data(messageID)
        return request
    }
}
