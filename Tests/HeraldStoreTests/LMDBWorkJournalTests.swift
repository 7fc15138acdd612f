import Foundation
import HeraldCore
import HeraldStore
import HeraldTesting
import Logging
import Testing

struct LMDBWorkJournalTests {
    static let logger = Logger(label: "test")

    static func push(_ token: String) -> PushNotification {
        PushNotification(id: RandomUUID.lowercased(), device: Device(platform: .apns, token: token, topic: "im.herald"), payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8))
    }

    static func work(_ owner: String, _ item: AcceptedWork.Item, at milliseconds: Int64 = 1_000) -> AcceptedWork {
        AcceptedWork(owner: owner, acceptedAt: milliseconds, deadline: 2_000_000_000, item: item)
    }

    @Test func unfinishedWorkSurvivesAReopenAndEndedWorkDoesNot() async throws {
        try await withTemporaryDirectory { directory in
            let cipher = try StoreCipher(text: StoreCipher.newKeyText())
            let first = try LMDBWorkJournal(storePath: directory, cipher: cipher, logger: Self.logger)
            let pushes = [Self.push("01"), Self.push("02"), Self.push("03")]
            let ids = try await first.record(pushes.map { Self.work("door", .push($0)) })
            #expect(ids == [1, 2, 3])
            let document = Self.work("feedback", .document(Array("{}".utf8)), at: 500)
            _ = try await first.record([document])
            first.finished([ids[1]])
            // Nothing recorded in this run is the run's to resume.
            #expect(try first.unfinished(owner: "door").isEmpty)
            try await first.close()

            let second = try LMDBWorkJournal(storePath: directory, cipher: cipher, logger: Self.logger)
            let left = try second.unfinished(owner: "door")
            #expect(left.map(\.id) == [1, 3])
            #expect(left.map(\.work.item) == [.push(pushes[0]), .push(pushes[2])])
            #expect(try second.unfinished(owner: "feedback").map(\.work) == [document])
            #expect(try second.unfinishedOwners() == ["door", "feedback"])
            let depth = try second.depth()
            #expect(depth.entries == 3)
            #expect(depth.oldestAcceptedAt == 1_000)
            // Ids go on rising past what is left.
            #expect(try await second.record([Self.work("door", .push(Self.push("04")))]) == [5])
            #expect(try second.unfinished(owner: "door").count == 2)
            try await second.close()
        }
    }

    @Test func everyFieldOfAPushIsKept() throws {
        var push = Self.push("abcdef")
        push.device.app = "demo"
        push.priority = .powerConsiderate
        push.expiration = 1_800_000_000
        push.collapseID = "sync"
        push.pushType = "background"
        push.registration = try RegistrationKey(scope: RegistrationScope(rawValue: 7), subject: Array(repeating: 9, count: 32), installationID: "phone")
        push.callerReference = "notif-1"
        push.deadline = .milliseconds(2500)
        let work = AcceptedWork(owner: "gorush", acceptedAt: -1, deadline: 42, item: .push(push))
        #expect(try AcceptedWork.decoded(from: work.encoded()) == work)
        let bare = Self.work("status", .push(Self.push("00")))
        #expect(try AcceptedWork.decoded(from: bare.encoded()) == bare)
    }

    @Test func workSealedWithAKeyNoLongerInTheRingIsLeftWhereItIs() async throws {
        try await withTemporaryDirectory { directory in
            let first = try LMDBWorkJournal(storePath: directory, cipher: try StoreCipher(text: StoreCipher.newKeyText()), logger: Self.logger)
            _ = try await first.record([Self.work("door", .push(Self.push("01")))])
            try await first.close()
            let second = try LMDBWorkJournal(storePath: directory, cipher: try StoreCipher(text: StoreCipher.newKeyText()), logger: Self.logger)
            #expect(try second.unfinished(owner: "door").isEmpty)
            #expect(try second.depth().entries == 1)
            try await second.close()
        }
    }

    @Test func concurrentRecordsEachGetTheirOwnIds() async throws {
        try await withTemporaryDirectory { directory in
            let journal = try LMDBWorkJournal(storePath: directory, cipher: nil, logger: Self.logger)
            let ids = try await withThrowingTaskGroup(of: [UInt64].self) { group in
                for index in 0..<200 {
                    group.addTask { try await journal.record([Self.work("door", .push(Self.push(String(index))))]) }
                }
                return try await group.reduce(into: [UInt64]()) { $0 += $1 }
            }
            #expect(Set(ids) == Set(1...200))
            journal.finished(ids)
            try await journal.close()
            let reopened = try LMDBWorkJournal(storePath: directory, cipher: nil, logger: Self.logger)
            // The ends were written before the close.
            #expect(try reopened.depth().entries == 0)
            try await reopened.close()
        }
    }
}
