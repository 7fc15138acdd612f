import Foundation
import HeraldCore
import _CryptoExtras

/// A Google service account made for one test run: an RSA-2048 key made in this process and the
/// JSON file Google would issue for it, so no credentials are committed and the mock FCM can
/// verify its JWTs.
public struct TestServiceAccount: Sendable {
    /// Where an account's key comes from.
    public enum Key: Sendable {
        /// One key for every such account of the process, made on first use: a debug build
        /// spends about a second of CPU on each RSA-2048 key, and a suite starting dozens of
        /// harnesses at once on two cores stalled every test for half a minute. Accounts still
        /// differ in their key id, e-mail and client id.
        case shared
        /// A key no other account has, for a test of a stranger's signature.
        case fresh
    }

    /// Made once per process; a failure is kept and rethrown to every account that asks.
    private static let sharedKey = Result { try _RSA.Signing.PrivateKey(keySize: .bits2048) }

    public let projectID: String
    public let clientEmail: String
    /// 40 hex digits, as Google's `private_key_id`.
    public let privateKeyID: String
    /// PKCS#8 (`BEGIN PRIVATE KEY`) PEM, the form Google writes into `private_key`.
    public let privateKeyPEM: String
    /// SubjectPublicKeyInfo (`BEGIN PUBLIC KEY`) PEM.
    public let publicKeyPEM: String
    /// Google's numeric `client_id` of the account.
    public let clientID: String

    public init(projectID: String = "herald-test", clientEmail: String? = nil, key source: Key = .shared) throws {
        let key = switch source {
        case .shared: try Self.sharedKey.get()
        case .fresh: try _RSA.Signing.PrivateKey(keySize: .bits2048)
        }
        self.projectID = projectID
        self.clientEmail = clientEmail ?? "herald-sender@\(projectID).iam.gserviceaccount.com"
        self.privateKeyID = (0..<20).map { _ in UInt8.random(in: .min ... .max) }
            .map { String($0, radix: 16) }
            .map { $0.count == 1 ? "0" + $0 : $0 }
            .joined()
        self.privateKeyPEM = key.pkcs8PEMRepresentation
        self.publicKeyPEM = key.publicKey.pemRepresentation
        self.clientID = "1" + (0..<20).map { _ in String(Int.random(in: 0...9)) }.joined()
    }

    /// The service-account JSON file as Google issues it, with `token_uri` pointing at
    /// `tokenURI` (a mock's `tokenURI`, or Google's).
    public func json(tokenURI: String = "https://oauth2.googleapis.com/token") -> String {
        let encodedEmail = self.clientEmail.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(.init(charactersIn: "-._~"))) ?? self.clientEmail
        let file = JSONValue.object([
            ("type", .string("service_account")),
            ("project_id", .string(self.projectID)),
            ("private_key_id", .string(self.privateKeyID)),
            ("private_key", .string(self.privateKeyPEM.hasSuffix("\n") ? self.privateKeyPEM : self.privateKeyPEM + "\n")),
            ("client_email", .string(self.clientEmail)),
            ("client_id", .string(self.clientID)),
            ("auth_uri", .string("https://accounts.google.com/o/oauth2/auth")),
            ("token_uri", .string(tokenURI)),
            ("auth_provider_x509_cert_url", .string("https://www.googleapis.com/oauth2/v1/certs")),
            ("client_x509_cert_url", .string("https://www.googleapis.com/robot/v1/metadata/x509/\(encodedEmail)")),
            ("universe_domain", .string("googleapis.com")),
        ])
        return String(decoding: file.bytes, as: UTF8.self)
    }

    /// A mock FCM configuration that trusts this account for its project.
    public func mockConfiguration() -> MockFCM.Configuration {
        MockFCM.Configuration(
            projectID: self.projectID,
            clientEmail: self.clientEmail,
            publicKeyPEM: self.publicKeyPEM,
            privateKeyID: self.privateKeyID
        )
    }
}
