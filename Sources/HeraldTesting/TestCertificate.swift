import Crypto
public import Foundation
import SwiftASN1
import X509

/// A self-signed TLS server certificate for `localhost` and `127.0.0.1`, made when a test peer
/// starts, so no key material is committed and none outlives the test.
public struct TestCertificate: Sendable {
    public let certificatePEM: String
    public let privateKeyPEM: String

    public init(validFor lifetime: TimeInterval = 86_400) throws {
        let key = Certificate.PrivateKey(P256.Signing.PrivateKey())
        let name = try DistinguishedName { CommonName("localhost") }
        self.certificatePEM = try TestCertificateAuthority.sign(
            subject: name,
            publicKey: key.publicKey,
            issuer: name,
            issuerKey: key,
            lifetime: lifetime,
            extensions: try Certificate.Extensions {
                // No KeyUsage: without keyCertSign, BoringSSL will not take a self-signed
                // certificate as its own issuer, and verification fails.
                Critical(BasicConstraints.notCertificateAuthority)
                try ExtendedKeyUsage([.serverAuth, .clientAuth])
                SubjectAlternativeNames([.dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
            }
        )
        self.privateKeyPEM = try key.serializeAsPEM().pemString
    }
}
