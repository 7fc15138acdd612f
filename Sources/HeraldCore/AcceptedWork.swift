/// Something a node acknowledged before doing it: a push a front door answered for before
/// delivering it, or a failure event the feedback webhook is still to post. It is written to
/// an `AcceptedWorkJournal` first, so a crash between the answer and the end of the work does
/// not lose it.
public struct AcceptedWork: Sendable, Hashable {
    public enum Item: Sendable, Hashable {
        case push(PushNotification)
        /// Bytes only the owner reads (a feedback event's JSON).
        case document([UInt8])
    }

    /// Who resumes it after a restart: a front door's queue (its name) or the feedback webhook.
    public var owner: String
    /// UNIX milliseconds.
    public var acceptedAt: Int64
    /// UNIX seconds after which it is not worth doing; a restart reports it failed instead.
    public var deadline: Int64
    public var item: Item

    public init(owner: String, acceptedAt: Int64, deadline: Int64, item: Item) {
        self.owner = owner
        self.acceptedAt = acceptedAt
        self.deadline = deadline
        self.item = item
    }
}

/// One journaled piece of work and the id its end is reported by.
public struct JournaledWork: Sendable, Hashable {
    public var id: UInt64
    public var work: AcceptedWork

    public init(id: UInt64, work: AcceptedWork) {
        self.id = id
        self.work = work
    }
}

/// Where a node keeps what it acknowledged and has not finished: its own disk, nowhere else.
/// Recording is durable before `record` returns (concurrent callers share one commit); ending is
/// not awaited, so a crash may leave ended work behind, which a restart does again: a duplicate,
/// never a loss.
public protocol AcceptedWorkJournal: Sendable {
    /// Writes `entries` durably and hands their ids, in order, to `completion` (`nil` when they
    /// could not be written). Never waits: for callers that may not suspend.
    func record(_ entries: [AcceptedWork], completion: @escaping @Sendable ([UInt64]?) -> Void)
    /// Forgets work that ended.
    func finished(_ ids: [UInt64])
    /// Work of `owner` recorded before this process opened the journal and not finished, oldest
    /// first: what a restart resumes. Work recorded since is its recorder's to finish.
    func unfinished(owner: String) throws -> [JournaledWork]
    /// Owners with such work.
    func unfinishedOwners() throws -> Set<String>
    /// Entries recorded and not ended, and when the oldest was accepted (UNIX milliseconds).
    func depth() throws -> (entries: Int, oldestAcceptedAt: Int64?)
}

extension AcceptedWorkJournal {
    /// Writes `entries` durably; their ids, in order.
    public func record(_ entries: [AcceptedWork]) async throws(JournalUnavailable) -> [UInt64] {
        let ids = await withCheckedContinuation { continuation in
            self.record(entries) { continuation.resume(returning: $0) }
        }
        guard let ids else { throw JournalUnavailable() }
        return ids
    }
}

/// The journal could not write: the work was not accepted.
public struct JournalUnavailable: Error, Sendable, Hashable {
    public init() {}
}
