public import HeraldCore

/// Why an incoming Status message was dropped without an answer, with a stable code for logs and
/// metric labels. (Answers with a protocol error code are not errors here: they are responses.)
public struct StatusError: CodedError {
    public enum Code: String, Sendable {
        /// The Waku message is not version 1, has no payload, or its JSON form is invalid.
        case invalidMessage = "status.invalid_message"
        /// The content topic is none of the server's topics nor a joined query topic.
        case unknownTopic = "status.unknown_topic"
        /// The envelope did not decrypt with the topic's key.
        case undecryptable = "status.undecryptable"
        /// The 26/WAKU2-PAYLOAD plaintext is malformed.
        case invalidPayload = "status.invalid_payload"
        /// The Waku payload carries no signature; status-go drops such payloads.
        case unsigned = "status.unsigned"
        /// The ApplicationMetadataMessage does not decode, or its signature does not recover.
        case invalidApplicationMessage = "status.invalid_application_message"
        /// A message type the push server does not handle, or one with an empty payload.
        case ignored = "status.ignored"
        /// The sender passed `status.rate-limit`; dropped in silence.
        case rateLimited = "status.rate_limited"
        /// The message was already handled (dedup by its message id).
        case duplicate = "status.duplicate"
        /// The pushes could not be handed to the external gorush; status-go answers nothing then.
        case deliveryFailed = "status.delivery_failed"
        /// A store or encoding failure kept the server from answering.
        case internalFailure = "status.internal_failure"
        /// `herald keygen` cannot write the identity key file.
        case identityKey = "status.identity_key_file"
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}
