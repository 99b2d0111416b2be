import Foundation
import MediaAssets

extension EncryptedBackend {
    /// Walks every stored entry once: re-encrypts those sealed with an older key the provider still
    /// has, and removes those whose key it no longer has or that do not open. Run it after a rotation
    /// (or periodically) off the main path: `sweepInBackground()` starts one at background priority.
    ///
    /// Entries written or removed through this backend while it runs are left as they are (counted as
    /// skipped, sealed with the current key anyway); the storage must list its keys
    /// (`CacheBackend.storedKeys(batchSize:)`: every backend of the package does).
    ///
    /// - Throws: the storage's failures to list, read or write (a sweep can be started again), or
    ///   `AssetsError.unsupported` for a storage that cannot list its keys.
    @discardableResult
    public func sweep(batchSize: Int = 64) async throws -> SweepReport {
        let current = try keys.currentKey()
        var report = SweepReport()
        for try await names in storage.storedKeys(batchSize: batchSize) {
            for name in names {
                try Task.checkCancellation()
                report.examined += 1
                guard writes.claim(name.rawValue) else {
                    report.skipped += 1
                    continue
                }
                defer { writes.release(name.rawValue) }
                try await sweepOne(name, current: current, into: &report)
            }
        }
        return report
    }

    /// Starts `sweep()` in a detached task at background priority; await its value for the report.
    @discardableResult
    public func sweepInBackground() -> Task<SweepReport, any Error> {
        Task.detached(priority: .background) { [self] in try await sweep() }
    }

    private func sweepOne(_ name: CacheKey, current: EncryptionKey, into report: inout SweepReport) async throws {
        guard let stored = try await storage.entry(forKey: name) else {
            report.skipped += 1
            return
        }
        countSweepRead()
        let isCurrent = stored.data.withUnsafeBytes { raw in
            (try? SealedEntry.header(of: raw))?.keyID == current.id
        }
        if isCurrent {
            report.current += 1
            return
        }
        switch try open(stored, name: name, key: nil) {
        case .opened(let entry, let key):
            let resealed = try SealedEntry.seal(entry, key: key, name: name, with: current)
            try await storage.store(CacheEntry(data: resealed, metadata: stored.metadata), forKey: name)
            countResealed()
            report.resealed += 1
        case .unknownKey:
            try await storage.removeEntry(forKey: name)
            report.shredded += 1
        case .damaged:
            try await storage.removeEntry(forKey: name)
            report.undecryptable += 1
        }
    }
}
