/// Keccak-256 as Ethereum and Status use it (`sha3.NewLegacyKeccak256`): the original Keccak padding `0x01`, rate
/// 136 bytes, 32-byte digest. Not FIPS SHA3-256, which pads with `0x06` and gives different digests.
///
/// Keccak-256("") = `c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470`.
public struct Keccak256: Sendable {
    /// The digest length in bytes.
    public static let byteCount = 32
    /// The block size (rate) in bytes.
    public static let blockByteCount = 136

    private var sponge = KeccakSponge(rate: Keccak256.blockByteCount, padding: 0x01)

    public init() {}

    /// The digest of `bytes` in one call.
    public static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var hasher = Keccak256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// Absorbs more input.
    public mutating func update(_ bytes: some Sequence<UInt8>) {
        self.sponge.absorb(bytes)
    }

    /// The digest of everything absorbed so far. The hasher itself is left unchanged, so it can keep absorbing.
    public func finalize() -> [UInt8] {
        var sponge = self.sponge
        return sponge.squeeze(Self.byteCount)
    }
}
