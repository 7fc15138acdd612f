import CSecp256k1

/// A point on secp256k1, checked on creation. Two keys are equal iff their affine X and Y are equal, whichever
/// encoding they were read from (status-go `IsPubKeyEqual`).
public struct Secp256k1PublicKey: Sendable, Hashable, CustomStringConvertible {
    public static let compressedByteCount = 33
    public static let uncompressedByteCount = 65

    /// `04 ‖ X ‖ Y`, always a valid point.
    private let uncompressed: [UInt8]

    /// Reads a compressed (`02`/`03` ‖ X, 33 bytes) or uncompressed (`04` ‖ X ‖ Y, 65 bytes) key. The "hybrid"
    /// `06`/`07` forms libsecp256k1 would also take are refused, as go-ethereum refuses them.
    public init(bytes: some Collection<UInt8>) throws {
        let bytes = Array(bytes)
        switch (bytes.count, bytes.first) {
        case (Self.compressedByteCount, 0x02), (Self.compressedByteCount, 0x03),
            (Self.uncompressedByteCount, 0x04):
            break
        case (Self.compressedByteCount, _), (Self.uncompressedByteCount, _):
            throw CryptoError(
                .invalidPublicKey,
                "a \(bytes.count)-byte public key cannot start with \(bytes.first.map { String($0, radix: 16) } ?? "")"
            )
        default:
            throw CryptoError(.invalidPublicKey, "a public key is 33 or 65 bytes, not \(bytes.count)")
        }
        var key = secp256k1_pubkey()
        guard secp256k1_ec_pubkey_parse(Secp256k1Context.shared.pointer, &key, bytes, bytes.count) == 1 else {
            throw CryptoError(.invalidPublicKey, "the public key is not a point on secp256k1")
        }
        self.init(parsed: key)
    }

    /// A key libsecp256k1 has already parsed or produced.
    init(parsed key: secp256k1_pubkey) {
        self.uncompressed = Self.serialize(key, flags: UInt32(SECP256K1_EC_UNCOMPRESSED), count: 65)
    }

    /// `02`/`03` ‖ X: 33 bytes.
    public var compressedRepresentation: [UInt8] {
        self.withParsed { Self.serialize($0, flags: UInt32(SECP256K1_EC_COMPRESSED), count: 33) }
    }

    /// `04` ‖ X ‖ Y: 65 bytes.
    public var uncompressedRepresentation: [UInt8] { self.uncompressed }

    /// The affine X coordinate, big-endian, 32 bytes.
    public var x: ArraySlice<UInt8> { self.uncompressed[1..<33] }

    /// The affine Y coordinate, big-endian, 32 bytes.
    public var y: ArraySlice<UInt8> { self.uncompressed[33..<65] }

    /// Status's key string: `0x` and the lowercase hex of the 65-byte form.
    public var description: String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = Array("0x".utf8)
        for byte in self.uncompressed {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Calls `body` with the libsecp256k1 form of the key.
    func withParsed<Result>(_ body: (inout secp256k1_pubkey) throws -> Result) rethrows -> Result {
        var key = secp256k1_pubkey()
        let parsed = secp256k1_ec_pubkey_parse(
            Secp256k1Context.shared.pointer,
            &key,
            self.uncompressed,
            self.uncompressed.count
        )
        precondition(parsed == 1, "a checked public key no longer parses")
        return try body(&key)
    }

    private static func serialize(_ key: secp256k1_pubkey, flags: UInt32, count: Int) -> [UInt8] {
        var key = key
        var output = [UInt8](repeating: 0, count: count)
        var length = count
        let written = secp256k1_ec_pubkey_serialize(Secp256k1Context.shared.pointer, &output, &length, &key, flags)
        precondition(written == 1 && length == count, "secp256k1_ec_pubkey_serialize failed")
        return output
    }
}
