import Foundation
import Synchronization

/// Bounds a manager's downloads per host (``FetchPolicy/maxConnectionsPerHost``): one `WorkLimiter` per
/// host name and port, made when a download to it starts and dropped when the last one ends.
///
/// A download takes its host's slot before it asks for one of the manager's download slots, so one busy host
/// never holds global slots while its own downloads queue.
final class HostLimiter: Sendable {
    private struct Entry {
        let limiter: WorkLimiter
        var users: Int
    }

    /// The most downloads to one host at once.
    let limit: Int
    private let entries = Mutex<[String: Entry]>([:])

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// The host key of `url`: its lowercased host and port.
    static func host(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        return FetchPolicy.normalizedHost(url.host ?? "") + ":" + String(port)
    }

    /// Runs `operation` once fewer than `limit` operations for `host` run, ranked by the current ask's priority.
    ///
    /// - Throws: `CancellationError` if the task is cancelled while waiting, or `operation`'s error.
    func run<T: Sendable>(host: String, _ operation: () async throws -> T) async throws -> T {
        let limiter = entries.withLock { entries in
            let limiter = entries[host]?.limiter ?? WorkLimiter(limit: limit)
            entries[host] = Entry(limiter: limiter, users: (entries[host]?.users ?? 0) + 1)
            return limiter
        }
        defer {
            entries.withLock { entries in
                guard let entry = entries[host] else { return }
                if entry.users <= 1 {
                    entries[host] = nil
                } else {
                    entries[host]?.users -= 1
                }
            }
        }
        return try await limiter.run(operation)
    }
}
