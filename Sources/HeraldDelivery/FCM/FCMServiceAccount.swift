public import HeraldCore
public import Foundation

/// The fields of a Google service-account JSON key file that an FCM sender uses (fcm.md §1.1).
public struct FCMServiceAccount: Sendable, Hashable, KeyMaterial {
    public var projectID: String
    public var clientEmail: String
    public var privateKeyID: String?
    /// PEM RSA private key (PKCS#8, as Google issues it).
    public var privateKeyPEM: String
    public var tokenURI: String

    public static let defaultTokenURI = "https://oauth2.googleapis.com/token"

    public init(projectID: String, clientEmail: String, privateKeyID: String? = nil, privateKeyPEM: String, tokenURI: String = Self.defaultTokenURI) {
        self.projectID = projectID
        self.clientEmail = clientEmail
        self.privateKeyID = privateKeyID
        self.privateKeyPEM = privateKeyPEM
        self.tokenURI = tokenURI
    }

    /// Reads a key file; the error names the missing or wrong field.
    public init(json: Data) throws(FCMServiceAccountError) {
        let file: File
        do {
            file = try JSONDecoder().decode(File.self, from: json)
        } catch {
            throw FCMServiceAccountError("not a service-account JSON key file: \(error)")
        }
        if let type = file.type, type != "service_account" {
            throw FCMServiceAccountError("`type` is \"\(type)\", not \"service_account\"")
        }
        guard let projectID = file.project_id, !projectID.isEmpty else { throw FCMServiceAccountError("`project_id` is missing") }
        guard FCMProvider.isValidProjectID(projectID) else { throw FCMServiceAccountError("`project_id` is not a Google Cloud project id") }
        guard let clientEmail = file.client_email, !clientEmail.isEmpty else { throw FCMServiceAccountError("`client_email` is missing") }
        guard let privateKey = file.private_key, privateKey.contains("PRIVATE KEY") else {
            throw FCMServiceAccountError("`private_key` is missing or not a PEM private key")
        }
        self.init(
            projectID: projectID,
            clientEmail: clientEmail,
            privateKeyID: file.private_key_id,
            privateKeyPEM: privateKey,
            tokenURI: file.token_uri ?? Self.defaultTokenURI
        )
    }

    private struct File: Decodable {
        var type: String?
        var project_id: String?
        var private_key_id: String?
        var private_key: String?
        var client_email: String?
        var token_uri: String?
    }
}

public struct FCMServiceAccountError: CodedError {
    public enum Code: String, Sendable {
        case invalid = "fcm.invalid_service_account"
    }

    public let code = Code.invalid
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { self.message }
}
