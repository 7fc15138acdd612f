public import HeraldCore
import NIOSSL

/// A client certificate chain and its private key, both PEM, presented during the TLS handshake.
public struct TLSClientIdentity: Sendable, Hashable, KeyMaterial {
    public var certificateChainPEM: String
    public var privateKeyPEM: String

    public init(certificateChainPEM: String, privateKeyPEM: String) {
        self.certificateChainPEM = certificateChainPEM
        self.privateKeyPEM = privateKeyPEM
    }

    /// Checks that both parse, so a bad file stops start-up rather than every connection.
    public func validate() throws {
        var tls = TLSConfiguration.makeClientConfiguration()
        try self.apply(to: &tls)
    }

    func apply(to tls: inout TLSConfiguration) throws {
        let chain = try NIOSSLCertificate.fromPEMBytes(Array(self.certificateChainPEM.utf8))
        guard !chain.isEmpty else { throw NIOSSLError.failedToLoadCertificate }
        tls.certificateChain = chain.map { .certificate($0) }
        tls.privateKey = .privateKey(try NIOSSLPrivateKey(bytes: Array(self.privateKeyPEM.utf8), format: .pem))
    }
}
