public import Foundation

/// One broadcast's progress, as `GET /silent/v1/broadcasts/<id>` shows it and as it is kept in
/// LMDB between batches, so a restarted node resumes it from its cursor.
public struct SilentBroadcast: Codable, Sendable, Hashable {
    public enum Status: String, Codable, Sendable {
        case running
        case done
        case cancelled
    }

    public var id: String
    public var service: String
    public var status: Status
    /// Registrations read so far, live or not.
    public var visited = 0
    public var delivered = 0
    public var deadTokens = 0
    public var failed = 0
    public var throttled = 0
    public var coalesced = 0
    public var startedAt: Date
    public var finishedAt: Date?
    /// The stored key of the last registration read; the walk continues after it.
    var cursor: [UInt8]?

    enum CodingKeys: String, CodingKey {
        case id, service, status, visited, delivered, failed, throttled, coalesced, cursor
        case deadTokens = "dead_tokens"
        case startedAt = "started_at"
        case finishedAt = "finished_at"
    }

    init(id: String, service: String, startedAt: Date) {
        self.id = id
        self.service = service
        self.status = .running
        self.startedAt = startedAt
    }

    mutating func count(_ outcome: SilentSender.Outcome) {
        switch outcome {
        case .delivered: self.delivered += 1
        case .deadToken: self.deadTokens += 1
        case .failed: self.failed += 1
        case .throttled: self.throttled += 1
        case .coalesced: self.coalesced += 1
        case .unregistered: break
        }
    }

    /// The answer's JSON, without the cursor (store key bytes mean nothing to a caller).
    var publicJSON: [UInt8] {
        var shown = self
        shown.cursor = nil
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return Array((try? encoder.encode(shown)) ?? Data())
    }

    var stored: [UInt8] {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return Array((try? encoder.encode(self)) ?? Data())
    }

    static func decoded(_ bytes: [UInt8]) -> SilentBroadcast? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(SilentBroadcast.self, from: Data(bytes))
    }
}
