import Foundation

/// etcd's v3 JSON gateway forms (etcd.md §1b): bytes as standard base64, 64-bit integers as JSON
/// strings, zero values left out. Every field decodes as optional with a default.
enum EtcdWire {
    /// An int64 that etcd writes as a string and accepts either way.
    struct Int64String: Codable, Hashable, Sendable {
        var value: Int64

        init(_ value: Int64) { self.value = value }

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self), let value = Int64(text) {
                self.value = value
            } else {
                self.value = try container.decode(Int64.self)
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(String(self.value))
        }
    }

    /// Bytes as standard base64.
    struct Bytes: Codable, Hashable, Sendable {
        var value: [UInt8]

        init(_ value: [UInt8]) { self.value = value }

        init(from decoder: any Decoder) throws {
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let data = Data(base64Encoded: text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not base64: \(text.prefix(40))"))
            }
            self.value = Array(data)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(Data(self.value).base64EncodedString())
        }
    }

    struct Header: Decodable, Sendable {
        var revision: Int64String?
        /// A uint64, which the gateway sends as a decimal string.
        var cluster_id: UInt64String?
    }

    struct UInt64String: Decodable, Hashable, Sendable {
        var value: UInt64

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self), let value = UInt64(text) {
                self.value = value
            } else {
                self.value = try container.decode(UInt64.self)
            }
        }
    }

    struct KeyValue: Decodable, Sendable {
        var key: Bytes
        var create_revision: Int64String?
        var mod_revision: Int64String?
        var version: Int64String?
        var value: Bytes?
        var lease: Int64String?
    }

    struct RangeRequest: Encodable, Sendable {
        var key: Bytes
        var range_end: Bytes?
        var limit: Int64String?
        var revision: Int64String?
        var sort_order: String?
        var sort_target: String?
        var serializable: Bool?
        var keys_only: Bool?
        var count_only: Bool?
        var min_mod_revision: Int64String?
    }

    struct RangeResponse: Decodable, Sendable {
        var header: Header?
        var kvs: [KeyValue]?
        var more: Bool?
        var count: Int64String?
    }

    struct PutRequest: Encodable, Sendable {
        var key: Bytes
        var value: Bytes
        var lease: Int64String?
    }

    struct PutResponse: Decodable, Sendable {
        var header: Header?
    }

    struct DeleteRangeRequest: Encodable, Sendable {
        var key: Bytes
        var range_end: Bytes?
    }

    struct DeleteRangeResponse: Decodable, Sendable {
        var header: Header?
        var deleted: Int64String?
    }

    struct Compare: Encodable, Sendable {
        var key: Bytes
        var result: String
        var target: String
        var mod_revision: Int64String?
        var create_revision: Int64String?
        var version: Int64String?
        var value: Bytes?
    }

    struct RequestOp: Encodable, Sendable {
        var request_range: RangeRequest?
        var request_put: PutRequest?
        var request_delete_range: DeleteRangeRequest?
    }

    struct TxnRequest: Encodable, Sendable {
        var compare: [Compare]
        var success: [RequestOp]
        var failure: [RequestOp]
    }

    struct ResponseOp: Decodable, Sendable {
        var response_range: RangeResponse?
        var response_put: PutResponse?
        var response_delete_range: DeleteRangeResponse?
    }

    struct TxnResponse: Decodable, Sendable {
        var header: Header?
        var succeeded: Bool?
        var responses: [ResponseOp]?
    }

    struct LeaseGrantRequest: Encodable, Sendable {
        var TTL: Int64String
        var ID: Int64String?
    }

    struct LeaseGrantResponse: Decodable, Sendable {
        var ID: Int64String?
        var TTL: Int64String?
        var error: String?
    }

    struct LeaseIDRequest: Encodable, Sendable {
        var ID: Int64String
    }

    struct LeaseKeepAliveResult: Decodable, Sendable {
        var result: LeaseKeepAliveResponse?
    }

    struct LeaseKeepAliveResponse: Decodable, Sendable {
        var ID: Int64String?
        var TTL: Int64String?
    }

    struct CompactionRequest: Encodable, Sendable {
        var revision: Int64String
        var physical: Bool
    }

    struct WatchCreateRequest: Encodable, Sendable {
        var key: Bytes
        var range_end: Bytes?
        var start_revision: Int64String?
        var progress_notify: Bool?
        var filters: [String]?
        var fragment: Bool?
    }

    struct WatchRequest: Encodable, Sendable {
        var create_request: WatchCreateRequest
    }

    struct Event: Decodable, Sendable {
        var type: String?
        var kv: KeyValue?
    }

    struct WatchResponse: Decodable, Sendable {
        var header: Header?
        var created: Bool?
        var canceled: Bool?
        var compact_revision: Int64String?
        var cancel_reason: String?
        var fragment: Bool?
        var events: [Event]?
    }

    /// One line of a watch stream: a result, or the stream's error (quorum lost with `hasleader`).
    struct WatchLine: Decodable, Sendable {
        var result: WatchResponse?
        var error: StreamError?
    }

    struct StreamError: Decodable, Sendable {
        var grpc_code: Int?
        var http_code: Int?
        var message: String?
    }

    /// A unary call's error body.
    struct ErrorBody: Decodable, Sendable {
        var error: String?
        var message: String?
        var code: Int?
    }
}
