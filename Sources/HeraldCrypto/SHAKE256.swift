/// SHAKE-256, the FIPS 202 extendable-output function: padding `0x1F`, rate 136 bytes, output of any length.
/// Status's `HashPublicKey` and `request_id` read 64 bytes (`SHAKE256_64`).
///
/// SHAKE256_64("") = `46b9dd2b…b3b7c4be`.
public struct SHAKE256: Sendable {
    /// The output length Status uses everywhere.
    public static let defaultOutputByteCount = 64
    /// The block size (rate) in bytes.
    public static let blockByteCount = 136

    private var sponge = KeccakSponge(rate: SHAKE256.blockByteCount, padding: 0x1F)

    public init() {}

    /// `outputByteCount` bytes of output for `bytes` in one call; 64 bytes unless told.
    public static func hash(
        _ bytes: some Sequence<UInt8>,
        outputByteCount: Int = SHAKE256.defaultOutputByteCount
    ) -> [UInt8] {
        var hasher = SHAKE256()
        hasher.update(bytes)
        return hasher.finalize(outputByteCount: outputByteCount)
    }

    /// Absorbs more input.
    public mutating func update(_ bytes: some Sequence<UInt8>) {
        self.sponge.absorb(bytes)
    }

    /// The first `outputByteCount` bytes of output for everything absorbed so far. A shorter output is a prefix of a
    /// longer one. The hasher itself is left unchanged, so it can keep absorbing.
    public func finalize(outputByteCount: Int = SHAKE256.defaultOutputByteCount) -> [UInt8] {
        precondition(outputByteCount >= 0, "SHAKE256 output length must not be negative")
        var sponge = self.sponge
        return sponge.squeeze(outputByteCount)
    }
}
