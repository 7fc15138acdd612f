import HeraldCore
import HeraldConfig
import NIOSSL

/// Mutual TLS between nodes, from `cluster.tls-*`: what the internal listener serves and asks of
/// its clients, and what this node presents to the others. Both ends must hold a certificate the
/// cluster's CA signed; host names are not checked, since the private CA is the trust boundary.
struct ClusterTLS: KeyMaterial {
    let server: TLSConfiguration
    let client: TLSConfiguration

    init(_ cluster: HeraldConfiguration.Cluster) throws {
        guard let certificateFile = cluster.tlsCertificateFile, let keyFile = cluster.tlsKeyFile, let caFile = cluster.tlsCAFile else {
            throw ConfigurationError(.invalidValue, "configuration keys cluster.tls-certificate-file, cluster.tls-key-file and cluster.tls-ca-file go together")
        }
        let chain = try Self.certificates(in: certificateFile, key: "cluster.tls-certificate-file")
        let roots = try Self.certificates(in: caFile, key: "cluster.tls-ca-file")
        let privateKey: NIOSSLPrivateKey
        do {
            privateKey = try NIOSSLPrivateKey(bytes: try ConfigurationFile.bytes(keyFile, key: "cluster.tls-key-file"), format: .pem)
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError(.invalidValue, "configuration key cluster.tls-key-file: cannot read \(keyFile) as a PEM private key: \(error)")
        }
        var server = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(privateKey))
        server.trustRoots = .certificates(roots)
        server.certificateVerification = .noHostnameVerification
        server.minimumTLSVersion = .tlsv12
        var client = TLSConfiguration.makeClientConfiguration()
        client.certificateChain = chain.map { .certificate($0) }
        client.privateKey = .privateKey(privateKey)
        client.trustRoots = .certificates(roots)
        client.certificateVerification = .noHostnameVerification
        client.minimumTLSVersion = .tlsv12
        self.server = server
        self.client = client
    }

    private static func certificates(in file: String, key: String) throws -> [NIOSSLCertificate] {
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMBytes(try ConfigurationFile.bytes(file, key: key))
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError(.invalidValue, "configuration key \(key): cannot read \(file) as PEM certificates: \(error)")
        }
        guard !certificates.isEmpty else {
            throw ConfigurationError(.invalidValue, "configuration key \(key): \(file) holds no PEM certificate")
        }
        return certificates
    }
}
