import Foundation
import Testing

@testable import HeraldSilent

/// A broadcast's progress as LMDB keeps it and as `GET /silent/v1/broadcasts/<id>` shows it.
@Suite struct SilentBroadcastTests {
    static func finished() -> SilentBroadcast {
        var broadcast = SilentBroadcast(id: "4f0c2d4e-7a51-4b6e-9d1c-0e8b2f3a5c67", service: "news", startedAt: Fixtures.now)
        broadcast.status = .done
        broadcast.visited = 10
        broadcast.delivered = 6
        broadcast.deadTokens = 1
        broadcast.failed = 1
        broadcast.throttled = 1
        broadcast.coalesced = 1
        broadcast.finishedAt = Fixtures.now.addingTimeInterval(42)
        broadcast.cursor = [2, 37, 0x6E, 0x65, 0x77, 0x73, 0, 0xFF, 0x10]
        return broadcast
    }

    @Test func theStoredFormReadsBackWithItsCursor() {
        let broadcast = Self.finished()
        #expect(SilentBroadcast.decoded(broadcast.stored) == broadcast)
        let fresh = SilentBroadcast(id: "b", service: "default", startedAt: Fixtures.now)
        #expect(fresh.status == .running)
        #expect(SilentBroadcast.decoded(fresh.stored) == fresh, "no cursor and no end yet")
    }

    @Test func thePublicJSONHasSnakeCaseFieldsAndNoCursor() throws {
        let broadcast = Self.finished()
        let object = (try JSONSerialization.jsonObject(with: Data(broadcast.publicJSON)) as? [String: Any]) ?? [:]
        #expect(
            object.keys.sorted() == [
                "coalesced", "dead_tokens", "delivered", "failed", "finished_at", "id", "service", "started_at", "status", "throttled", "visited",
            ]
        )
        #expect(object["status"] as? String == "done")
        #expect(object["started_at"] as? String == "2023-11-14T22:13:20Z")
        #expect(object["finished_at"] as? String == "2023-11-14T22:14:02Z")
        // Read back, it is the same broadcast without the cursor.
        var withoutCursor = broadcast
        withoutCursor.cursor = nil
        #expect(SilentBroadcast.decoded(broadcast.publicJSON) == withoutCursor)
        #expect(String(decoding: broadcast.publicJSON, as: UTF8.self).hasPrefix(#"{"coalesced":1,"dead_tokens":1,"#), "keys sorted")
    }

    @Test func damagedBytesAreRefused() {
        let stored = Self.finished().stored
        #expect(SilentBroadcast.decoded([]) == nil)
        #expect(SilentBroadcast.decoded(Array(stored.dropLast())) == nil)
        #expect(SilentBroadcast.decoded(Array(stored.prefix(stored.count / 2))) == nil)
        #expect(SilentBroadcast.decoded([0xFF, 0xFE, 0x00]) == nil)
        let storedText = String(decoding: stored, as: UTF8.self)
        #expect(storedText.contains(#""status":"done""#))
        let unknownStatus = storedText.replacingOccurrences(of: #""status":"done""#, with: #""status":"paused""#)
        #expect(SilentBroadcast.decoded(Array(unknownStatus.utf8)) == nil, "a status this version does not know")
        let numericDate = storedText.replacingOccurrences(of: #""started_at":"2023-11-14T22:13:20Z""#, with: #""started_at":1700000000"#)
        #expect(numericDate != storedText)
        #expect(SilentBroadcast.decoded(Array(numericDate.utf8)) == nil, "dates are ISO 8601")
    }

    @Test func eachOutcomeIsCountedInItsOwnField() {
        var broadcast = SilentBroadcast(id: "b", service: "default", startedAt: Fixtures.now)
        for outcome in SilentSender.Outcome.allCases { broadcast.count(outcome) }
        broadcast.count(.delivered)
        #expect(broadcast.delivered == 2)
        #expect(broadcast.deadTokens == 1)
        #expect(broadcast.failed == 1)
        #expect(broadcast.throttled == 1)
        #expect(broadcast.coalesced == 1)
        #expect(broadcast.visited == 0, "registrations read are the walk's count, not a push's")
    }
}
