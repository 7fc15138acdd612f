import Crypto
import Foundation
import SwiftASN1
import X509

/// A private CA made when a test starts, and leaf certificates it signs, for tests of mutual TLS
/// between nodes. No key material is committed and none outlives the test.
public struct TestCertificateAuthority: Sendable {
    public struct Leaf: Sendable {
        public let certificatePEM: String
        public let privateKeyPEM: String
    }

    public let certificatePEM: String
    private let key: Certificate.PrivateKey
    private let name: DistinguishedName

    public init(name commonName: String = "Herald test CA") throws {
        let key = Certificate.PrivateKey(P256.Signing.PrivateKey())
        let name = try DistinguishedName { CommonName(commonName) }
        self.certificatePEM = try Self.sign(
            subject: name,
            publicKey: key.publicKey,
            issuer: name,
            issuerKey: key,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            }
        )
        self.key = key
        self.name = name
    }

    /// A certificate for `commonName`, good for both ends of a TLS connection, valid for
    /// 127.0.0.1 and localhost.
    public func issue(commonName: String) throws -> Leaf {
        let key = Certificate.PrivateKey(P256.Signing.PrivateKey())
        let certificatePEM = try Self.sign(
            subject: try DistinguishedName { CommonName(commonName) },
            publicKey: key.publicKey,
            issuer: self.name,
            issuerKey: self.key,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth, .clientAuth])
                SubjectAlternativeNames([.dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
            }
        )
        return Leaf(certificatePEM: certificatePEM, privateKeyPEM: try key.serializeAsPEM().pemString)
    }

    /// A certificate valid from a minute ago for `lifetime`, in PEM: the one recipe of the test
    /// certificates, self-signed or not.
    static func sign(
        subject: DistinguishedName,
        publicKey: Certificate.PublicKey,
        issuer: DistinguishedName,
        issuerKey: Certificate.PrivateKey,
        lifetime: TimeInterval = 86_400,
        extensions: Certificate.Extensions
    ) throws -> String {
        let now = Date()
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: publicKey,
            notValidBefore: now.addingTimeInterval(-60),
            notValidAfter: now.addingTimeInterval(lifetime),
            issuer: issuer,
            subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: extensions,
            issuerPrivateKey: issuerKey
        )
        return try certificate.serializeAsPEM().pemString
    }
}
