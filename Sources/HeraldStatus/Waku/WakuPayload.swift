public import HeraldCrypto

/// The 26/WAKU2-PAYLOAD version 1 plaintext (go-waku `waku_payload.go`, after Whisper):
/// `flags ‖ size ‖ data ‖ padding ‖ signature?`. Flag bits 0–1 give the size field's length,
/// bit 2 says a 65-byte signature over Keccak-256 of everything before it ends the payload.
public struct WakuPayload: Sendable, Hashable {
    static let signedFlag: UInt8 = 0x04
    static let sizeLengthMask: UInt8 = 0x03
    /// Senders pad so the whole plaintext is a multiple of this.
    static let paddingBlock = 256
    /// The size field is at most 3 bytes long.
    static let maximumDataLength = 1 << 24

    /// The carried bytes (for Status, a serialized ApplicationMetadataMessage).
    public var data: [UInt8]
    /// Who signed the payload; `nil` when it is unsigned.
    public var signer: Secp256k1PublicKey?

    public init(data: [UInt8], signer: Secp256k1PublicKey?) {
        self.data = data
        self.signer = signer
    }

    /// Parses a decrypted payload. Padding is ignored, as every receiver does; a signature that
    /// does not recover is an error.
    public init(decoding plaintext: [UInt8]) throws(StatusError) {
        guard let flags = plaintext.first else {
            throw StatusError(.invalidPayload, "the Waku payload is empty")
        }
        var end = plaintext.count
        var signer: Secp256k1PublicKey?
        if flags & Self.signedFlag != 0 {
            end -= RecoverableSignature.byteCount
            guard end > 1 else {
                throw StatusError(.invalidPayload, "a signed Waku payload must be longer than 66 bytes, got \(plaintext.count)")
            }
            do {
                let signature = try RecoverableSignature(rawRepresentation: plaintext[end...])
                signer = try signature.recoverPublicKey(fromDigest: Keccak256.hash(plaintext[..<end]))
            } catch {
                throw StatusError(.invalidPayload, "the Waku payload signature does not recover: \(error)")
            }
        }
        let sizeLength = Int(flags & Self.sizeLengthMask)
        var data: [UInt8] = []
        if sizeLength > 0 {
            guard 1 + sizeLength <= end else {
                throw StatusError(.invalidPayload, "the Waku payload size field runs past the end")
            }
            var size = 0
            for (shift, byte) in plaintext[1..<(1 + sizeLength)].enumerated() {
                size |= Int(byte) << (8 * shift)
            }
            let start = 1 + sizeLength
            guard size <= end - start else {
                throw StatusError(.invalidPayload, "the Waku payload says \(size) data bytes but holds \(end - start)")
            }
            data = Array(plaintext[start..<(start + size)])
        }
        self.data = data
        self.signer = signer
    }

    /// Encodes `data` signed by `key`, with `padding` (random bytes; see `paddingLength(for:)`).
    public static func encode(_ data: [UInt8], signedBy key: Secp256k1PrivateKey, padding: [UInt8]) throws -> [UInt8] {
        guard data.count < Self.maximumDataLength else {
            throw StatusError(.invalidPayload, "a Waku payload holds less than \(Self.maximumDataLength) bytes, not \(data.count)")
        }
        let sizeLength = Self.sizeFieldLength(for: data.count)
        var out: [UInt8] = []
        out.reserveCapacity(1 + sizeLength + data.count + padding.count + RecoverableSignature.byteCount)
        out.append(UInt8(sizeLength) | Self.signedFlag)
        for index in 0..<sizeLength {
            out.append(UInt8(truncatingIfNeeded: data.count >> (8 * index)))
        }
        out += data
        out += padding
        out += try key.signature(forDigest: Keccak256.hash(out)).rawRepresentation
        return out
    }

    /// Encodes `data` signed by `key` with fresh random padding.
    public static func encode(_ data: [UInt8], signedBy key: Secp256k1PrivateKey) throws -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        let padding = (0..<Self.paddingLength(forSignedData: data.count)).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return try Self.encode(data, signedBy: key, padding: padding)
    }

    /// Padding that makes a signed payload a multiple of 256 bytes: always 1 to 256 bytes.
    public static func paddingLength(forSignedData count: Int) -> Int {
        let unpadded = 1 + Self.sizeFieldLength(for: count) + count + RecoverableSignature.byteCount
        return Self.paddingBlock - unpadded % Self.paddingBlock
    }

    /// The fewest little-endian bytes that hold `count`; 1 for an empty payload.
    static func sizeFieldLength(for count: Int) -> Int {
        var length = 1
        while length < 3, count >> (8 * length) != 0 { length += 1 }
        return length
    }
}
