import Foundation
import FuzzSupport
import HeraldAries
import HeraldCore

// DIDComm v1 (Aries RFC 0019) and the Aries messages Herald's mediator API reads. The first byte
// picks what the rest is:
//   0  an envelope posted to `/aries/v1/didcomm`, opened with Herald's fixed key;
//   1  a message authcrypt-packed from the wallet's key to Herald's, which must open to the
//      message and the wallet's verkey (so the fuzzer reaches what lies past the crypto);
//   2  the same, anoncrypt, which must open to the message and no sender;
//   3  a plaintext DIDComm message as `AriesService.handle` reads it: JSON, `@type` (ack or
//      a push-notifications/discover-features type), a `query` disclosed against, and a
//      `device_token` checked for either provider;
//   4  a `/aries/v1/notify` body.
// Herald's own JSON (JSONValue) must read back as the value it wrote.

enum Fixture {
    /// Herald's and the wallet's keys of the DIDComm vectors (Tests/HeraldAriesTests/vectors/didcomm_v1.json).
    static let herald = key("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")
    static let wallet = key("6465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f80818283")

    private static func key(_ seed: String) -> DIDCommKey {
        guard let key = try? DIDCommKey(seed: hexBytes(seed)) else { preconditionFailure("the fixed seed is valid") }
        return key
    }
}

func openEnvelope(_ envelope: [UInt8]) {
    guard let opened = try? DIDCommEnvelope.open(envelope, with: Fixture.herald) else { return }
    plaintext(opened.message)
}

func packed(_ message: [UInt8], from sender: DIDCommKey?) {
    guard let envelope = try? DIDCommEnvelope.pack(message, for: [Fixture.herald.verkeyBase58], from: sender) else {
        require(false, "packing for a valid verkey failed")
        return
    }
    let opened = try? DIDCommEnvelope.open(envelope, with: Fixture.herald)
    require(opened?.message == message, "a packed envelope did not open to its message")
    require(opened?.sender == sender?.verkeyBase58, "a packed envelope did not open to its sender")
}

func plaintext(_ body: [UInt8]) {
    guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(body)) else { return }
    rereads(value)
    guard case .object(let fields) = value else { return }
    let message = Dictionary(fields, uniquingKeysWith: { first, _ in first })
    guard case .string(let typeText)? = message["@type"] else { return }
    _ = AriesMessageType.isAck(typeText)
    _ = AriesMessageType(typeText)
    if case .string(let query)? = message["query"] {
        let disclosed = AriesReply.disclose(thread: "thread", query: query, protocols: AriesProtocol.allCases)
        require(isJSON(disclosed), "a disclose answer is not JSON")
    }
    if case .string(let token)? = message["device_token"] {
        for kind in [AriesProtocol.apns, .fcm] {
            if let checked = AriesService.checked(token, kind: kind) {
                require(AriesService.checked(checked, kind: kind) == checked, "a checked device token is not checked again as itself")
            }
        }
    }
}

func notify(_ body: [UInt8]) {
    guard let request = try? JSONDecoder().decode(AriesService.NotifyRequest.self, from: Data(body)) else { return }
    _ = request.ids.count + request.tags.count
}

/// JSON Herald writes from a decoded value must decode to that value again; object keys may come
/// back in another order (Foundation's decoder does not keep it), so they are compared sorted.
func rereads(_ value: JSONValue) {
    let written = value.bytes
    let again = try? JSONDecoder().decode(JSONValue.self, from: Data(written))
    require(again.map(canonical) == canonical(value), "JSONValue did not read back its own JSON: \(String(decoding: written, as: UTF8.self))")
}

func canonical(_ value: JSONValue) -> JSONValue {
    switch value {
    case .array(let values): .array(values.map(canonical))
    case .object(let pairs): .object(pairs.map { ($0.0, canonical($0.1)) }.sorted { $0.0 < $1.0 })
    default: value
    }
}

runFuzzer { buffer in
    var input = FuzzInput(buffer)
    switch input.byte() % 5 {
    case 0: openEnvelope(input.rest())
    case 1: packed(input.rest(), from: Fixture.wallet)
    case 2: packed(input.rest(), from: nil)
    case 3: plaintext(input.rest())
    default: notify(input.rest())
    }
}
