import Foundation
import FuzzSupport
import HeraldCrypto
import HeraldStatus
import SwiftProtobuf

// The Status protobufs a push server decodes (status.md §4–6), from swift-protobuf's generated
// code, and the checks Herald runs on what they hold. The first byte picks the message the rest
// is; each decoded message must encode and decode again to itself, unknown fields included.
//   0  ApplicationMetadataMessage, through Herald's `ApplicationMessage` (signature recovery);
//   1  PushNotificationRegistration, its installation id and access token checked as UUIDs;
//   2  PushNotificationQuery;
//   3  PushNotificationRequest, each request's installation id and access token checked.

func roundTrips<Message: SwiftProtobuf.Message & Equatable>(_ type: Message.Type, _ bytes: [UInt8]) -> Message? {
    guard let message = try? Message(serializedBytes: bytes) else { return nil }
    guard let encoded: [UInt8] = try? message.serializedBytes() else {
        require(false, "a decoded \(Message.protoMessageName) does not encode")
        return nil
    }
    let again = try? Message(serializedBytes: encoded)
    require(again == message, "a \(Message.protoMessageName) changed through its encoding")
    return message
}

func applicationMessage(_ bytes: [UInt8]) {
    guard roundTrips(Protobuf_ApplicationMetadataMessage.self, bytes) != nil else { return }
    guard let message = try? ApplicationMessage(decoding: bytes, transportSigner: nil) else { return }
    require(message.id.count == 32, "a message id is not a Keccak-256 digest")
}

func registration(_ bytes: [UInt8]) {
    guard let registration = roundTrips(Protobuf_PushNotificationRegistration.self, bytes) else { return }
    _ = GoUUID.isValid(registration.installationID)
    _ = GoUUID.isValid(registration.accessToken)
}

func query(_ bytes: [UInt8]) {
    _ = roundTrips(Protobuf_PushNotificationQuery.self, bytes)
}

func request(_ bytes: [UInt8]) {
    guard let request = roundTrips(Protobuf_PushNotificationRequest.self, bytes) else { return }
    for notification in request.requests {
        _ = GoUUID.isValid(notification.installationID)
        _ = GoUUID.isValid(notification.accessToken)
    }
}

runFuzzer { buffer in
    var input = FuzzInput(buffer)
    switch input.byte() % 4 {
    case 0: applicationMessage(input.rest())
    case 1: registration(input.rest())
    case 2: query(input.rest())
    default: request(input.rest())
    }
}
