import CoreMetrics

/// What the etcd log's appends came to: transactions by result and the commands in them. A
/// fenced append is normal during a membership change; a steady stream of them means two nodes
/// disagree about ownership.
struct EtcdLogMetrics: Sendable {
    private let committedTransactions: Counter
    private let fencedTransactions: Counter
    private let failedTransactions: Counter
    private let committedCommands: Counter
    private let fencedCommands: Counter

    init(factory: any MetricsFactory) {
        let transactions = "herald_log_transactions_total"
        self.committedTransactions = Counter(label: transactions, dimensions: [("result", "committed")], factory: factory)
        self.fencedTransactions = Counter(label: transactions, dimensions: [("result", "fenced")], factory: factory)
        self.failedTransactions = Counter(label: transactions, dimensions: [("result", "failed")], factory: factory)
        let commands = "herald_log_appended_commands_total"
        self.committedCommands = Counter(label: commands, dimensions: [("result", "committed")], factory: factory)
        self.fencedCommands = Counter(label: commands, dimensions: [("result", "fenced")], factory: factory)
    }

    func committed(commands: Int) {
        self.committedTransactions.increment()
        self.committedCommands.increment(by: commands)
    }

    func fenced(commands: Int) {
        self.fencedTransactions.increment()
        self.fencedCommands.increment(by: commands)
    }

    func failed() {
        self.failedTransactions.increment()
    }
}
