import CSodium

/// The AEAD of a DIDComm v1 envelope's content, told apart by the iv's length: the header's `enc`
/// label says `xchacha20poly1305_ietf` for both in practice (aries.md §"Envelopes as real wallets
/// pack them").
enum ContentCipher {
    /// `crypto_aead_chacha20poly1305_ietf`, 12-byte nonce: what RFC 0019, ACA-Py, Credo and
    /// indy-sdk pack and open.
    case chacha20
    /// `crypto_aead_xchacha20poly1305_ietf`, 24-byte nonce: what the label literally names.
    case xchacha20

    static let tagLength = Int(crypto_aead_chacha20poly1305_ietf_ABYTES)

    init?(nonceLength: Int) {
        switch nonceLength {
        case Int(crypto_aead_chacha20poly1305_ietf_NPUBBYTES): self = .chacha20
        case Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES): self = .xchacha20
        default: return nil
        }
    }

    var nonceLength: Int {
        switch self {
        case .chacha20: Int(crypto_aead_chacha20poly1305_ietf_NPUBBYTES)
        case .xchacha20: Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
        }
    }

    /// Ciphertext followed by the 16-byte tag.
    func seal(_ message: [UInt8], aad: [UInt8], nonce: [UInt8], key: [UInt8]) throws(DIDCommError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: message.count + Self.tagLength)
        var length: UInt64 = 0
        let result: Int32
        switch self {
        case .chacha20:
            result = crypto_aead_chacha20poly1305_ietf_encrypt(&output, &length, message, UInt64(message.count), aad, UInt64(aad.count), nil, nonce, key)
        case .xchacha20:
            result = crypto_aead_xchacha20poly1305_ietf_encrypt(&output, &length, message, UInt64(message.count), aad, UInt64(aad.count), nil, nonce, key)
        }
        guard result == 0 else { throw .key("the content does not encrypt") }
        return Array(output[..<Int(length)])
    }

    /// The message of ciphertext-and-tag `sealed`, or a decryption error when the tag fails.
    func open(_ sealed: [UInt8], aad: [UInt8], nonce: [UInt8], key: [UInt8]) throws(DIDCommError) -> [UInt8] {
        guard sealed.count >= Self.tagLength else { throw .decryption("the content is shorter than its tag") }
        var output = [UInt8](repeating: 0, count: sealed.count)
        var length: UInt64 = 0
        let result: Int32
        switch self {
        case .chacha20:
            result = crypto_aead_chacha20poly1305_ietf_decrypt(&output, &length, nil, sealed, UInt64(sealed.count), aad, UInt64(aad.count), nonce, key)
        case .xchacha20:
            result = crypto_aead_xchacha20poly1305_ietf_decrypt(&output, &length, nil, sealed, UInt64(sealed.count), aad, UInt64(aad.count), nonce, key)
        }
        guard result == 0 else { throw .decryption("the content's tag does not verify") }
        return Array(output[..<Int(length)])
    }
}
