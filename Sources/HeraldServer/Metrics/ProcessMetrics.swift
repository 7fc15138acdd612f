import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The standard `process_*` metrics, read from `/proc` at scrape time (neither swift-metrics nor
/// swift-prometheus provides them). On systems without `/proc` nothing is written.
enum ProcessMetrics {
    static func render(into output: inout [UInt8]) {
        guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return }
        // Fields after the parenthesised command name; index 0 is field 3 of proc(5).
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 21 else { return }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let pageSize = Double(sysconf(Int32(_SC_PAGESIZE)))
        let cpuSeconds = ((Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)) / ticks
        let residentBytes = (Double(fields[21]) ?? 0) * pageSize
        let virtualBytes = Double(fields[20]) ?? 0
        let startTicks = Double(fields[19]) ?? 0
        let bootTime =
            (try? String(contentsOfFile: "/proc/stat", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("btime ") }
            .flatMap { Double($0.dropFirst(6)) } ?? 0
        let openFiles = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
        var maxFiles = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &maxFiles)

        let text = """
            # HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.
            # TYPE process_cpu_seconds_total counter
            process_cpu_seconds_total \(cpuSeconds)
            # HELP process_resident_memory_bytes Resident memory size in bytes.
            # TYPE process_resident_memory_bytes gauge
            process_resident_memory_bytes \(residentBytes)
            # HELP process_virtual_memory_bytes Virtual memory size in bytes.
            # TYPE process_virtual_memory_bytes gauge
            process_virtual_memory_bytes \(virtualBytes)
            # HELP process_open_fds Number of open file descriptors.
            # TYPE process_open_fds gauge
            process_open_fds \(openFiles)
            # HELP process_max_fds Maximum number of open file descriptors.
            # TYPE process_max_fds gauge
            process_max_fds \(maxFiles.rlim_cur)
            # HELP process_start_time_seconds Start time of the process since unix epoch in seconds.
            # TYPE process_start_time_seconds gauge
            process_start_time_seconds \(bootTime + startTicks / ticks)

            """
        output.append(contentsOf: text.utf8)
    }
}
