import HeraldTesting
import Testing

@testable import HeraldDelivery

/// APNs certificate authentication: the PEM pair is checked at start-up, not at first connect.
@Suite struct TLSClientIdentityTests {
    @Test func aCertificateAndItsKeyAreAccepted() throws {
        let certificate = try TestCertificate()
        let identity = TLSClientIdentity(certificateChainPEM: certificate.certificatePEM, privateKeyPEM: certificate.privateKeyPEM)
        try identity.validate()
    }

    @Test func somethingElseIsRefused() throws {
        let certificate = try TestCertificate()
        #expect(throws: (any Error).self) {
            try TLSClientIdentity(certificateChainPEM: "not a certificate", privateKeyPEM: certificate.privateKeyPEM).validate()
        }
        #expect(throws: (any Error).self) {
            try TLSClientIdentity(certificateChainPEM: certificate.certificatePEM, privateKeyPEM: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n").validate()
        }
    }
}
