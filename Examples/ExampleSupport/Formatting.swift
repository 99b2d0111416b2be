import Foundation

/// Human-readable numbers for the examples' output.
public enum Formatting {
    /// `1536` → `"1.5 KiB"`; bytes under 1 KiB stay exact (`"512 B"`).
    public static func bytes(_ count: Int) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(count)
        var unit = 0
        while abs(value) >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(count) B" : String(format: "%.1f %@", value, units[unit])
    }

    /// A duration in milliseconds (two decimals under 1 ms, one above), or seconds from ten seconds.
    public static func duration(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        if seconds >= 10 { return String(format: "%.2f s", seconds) }
        return String(format: seconds < 0.001 ? "%.2f ms" : "%.1f ms", seconds * 1_000)
    }

    /// Runs `body` and returns its result with how long it took.
    public static func timed<Result>(
        _ body: () async throws -> Result
    ) async rethrows -> (result: Result, duration: Duration) {
        let clock = ContinuousClock()
        let start = clock.now
        let result = try await body()
        return (result, clock.now - start)
    }
}
