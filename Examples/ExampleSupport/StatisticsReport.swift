import MediaAssets

/// Prints the statistics every example ends with: each backend's counters, the manager's fetch
/// counters, and the counters of the utils the example used.
public enum StatisticsReport {
    /// Prints the report.
    ///
    /// - Parameters:
    ///   - manager: the manager whose backends and fetches are reported.
    ///   - utils: one line per util: its name and its statistics' description.
    public static func print(manager: AssetsManager, utils: [(name: String, statistics: String)] = []) async {
        let backends = await manager.statistics()
        Swift.print("Statistics")
        var table = TextTable(header: ["backend", "hits", "misses", "writes", "evictions", "entries", "size"])
        for storageType in backends.keys.sorted(by: { $0.description < $1.description }) {
            guard let statistics = backends[storageType] else { continue }
            table.add([
                storageType.description, String(statistics.hits), String(statistics.misses),
                String(statistics.writes), String(statistics.evictions), String(statistics.count),
                Formatting.bytes(storageType.memoryPartition == nil ? statistics.bytes : statistics.cost),
            ])
        }
        table.print()
        let lines = [("AssetsManager fetches", manager.fetchStatistics.description)] + utils
        let width = lines.map(\.0.count).max() ?? 0
        for (name, description) in lines {
            Swift.print("  " + name + String(repeating: " ", count: width - name.count) + "  " + description)
        }
    }
}
