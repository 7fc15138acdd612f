import Foundation
import FuzzSupport
import HeraldCrypto
import HeraldFrontDoor
import HeraldStatus

// Waku input as Status's front door and nwaku adapter receive it. The first byte picks what the
// rest is:
//   0  a `/waku/v1/messages` body (one message or an array), each message re-encoded and decoded
//      again to the same value, its content topic parsed;
//   1  a decrypted 26/WAKU2-PAYLOAD plaintext, and the ApplicationMetadataMessage it carries;
//   2  a symmetric envelope opened with a query topic's key (the test vectors' key);
//   3  a plaintext sealed under that key with a fixed nonce, which must open to itself and is
//      then read as in 1, so the fuzzer reaches the payload parser through the envelope;
//   4  data signed into a payload with a fixed key, which must decode to the same data and signer.

enum Fixture {
    /// The key of the vectors' symmetric envelopes (Tests/HeraldStatusTests/vectors/status.json).
    static let topicKey = hexBytes("c97e4b363d05f6d8fec0d7ea3e4c51cc229e98f32a6cbcb50ecd74eb06c02771")
    static let nonce = hexBytes("34d72c8a8d6dbb36e5d74e72")
    /// The vectors' client key.
    static let signer: Secp256k1PrivateKey = {
        guard let key = try? Secp256k1PrivateKey(rawRepresentation: hexBytes("0000000000000000000000000000000000000000000000000000000000000003")) else {
            preconditionFailure("the fixed key is valid")
        }
        return key
    }()
}

func messages(_ body: [UInt8]) {
    guard let messages = try? StatusRoutes<HeraldRequestContext>.decode(Data(body)) else { return }
    for message in messages {
        _ = ContentTopic.value(of: message.contentTopic)
        guard let encoded = try? JSONEncoder().encode(message) else {
            require(false, "a decoded Waku message does not encode")
            return
        }
        let again = try? JSONDecoder().decode(WakuMessage.self, from: encoded)
        require(again == message, "a Waku message changed through JSON: \(String(decoding: encoded, as: UTF8.self))")
    }
}

func payload(_ plaintext: [UInt8]) {
    guard let payload = try? WakuPayload(decoding: plaintext) else { return }
    require(payload.data.count < plaintext.count, "the payload's data is longer than the plaintext")
    if let signer = payload.signer {
        _ = try? ApplicationMessage(decoding: payload.data, transportSigner: signer)
    }
}

func envelope(_ bytes: [UInt8]) {
    guard let plaintext = try? WakuEnvelope.openSymmetric(bytes, key: Fixture.topicKey) else { return }
    payload(plaintext)
}

func sealed(_ plaintext: [UInt8]) {
    guard let envelope = try? WakuEnvelope.sealSymmetric(plaintext, key: Fixture.topicKey, nonce: Fixture.nonce) else {
        require(false, "sealing with a valid key and nonce failed")
        return
    }
    let opened = try? WakuEnvelope.openSymmetric(envelope, key: Fixture.topicKey)
    require(opened == plaintext, "a sealed envelope did not open to its plaintext")
    payload(plaintext)
}

func signed(_ data: [UInt8]) {
    guard let encoded = try? WakuPayload.encode(data, signedBy: Fixture.signer, padding: []) else {
        require(false, "a \(data.count)-byte payload does not encode")
        return
    }
    let decoded = try? WakuPayload(decoding: encoded)
    require(decoded?.data == data, "a signed payload did not decode to its data")
    require(decoded?.signer == Fixture.signer.publicKey, "a signed payload did not recover its signer")
}

runFuzzer { buffer in
    var input = FuzzInput(buffer)
    switch input.byte() % 5 {
    case 0: messages(input.rest())
    case 1: payload(input.rest())
    case 2: envelope(input.rest())
    case 3: sealed(input.rest())
    default: signed(input.rest())
    }
}
