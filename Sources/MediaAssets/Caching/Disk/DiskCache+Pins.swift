import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Pins: rules and pinned file names saved in `.pins` (see `PinsFile`), pinned files skipped by every
/// sweep and counted against `Configuration.pinnedQuota`.
extension DiskCache {
    /// Pins `pin`: the files it covers now and those stored later under a covered key are never
    /// evicted. The rule and the covered files' names are saved in `.pins` before this returns.
    ///
    /// - Throws: `AssetsError.pinnedQuotaExceeded` when the covered files do not fit the pinned quota,
    ///   `AssetsError.writeFailed` when `.pins` cannot be written; nothing is pinned then.
    /// - Complexity: O(1) for a key; for an asset, O(n), reading the headers of files whose key the
    ///   index has not learnt yet (once).
    public func pin(_ pin: Pin) async throws {
        // An asset's files are selected from the index, which must hold every file first.
        if case .asset = pin { await waitUntilIndexed() }
        try await onWriteQueue { [self] in try addPin(pin) }
    }

    /// Removes `pin`; the files no other pin covers become evictable again.
    public func unpin(_ pin: Pin) async throws {
        try await onWriteQueue { [self] in try removePin(pin) }
    }

    /// The pins held.
    package var pins: [Pin] { state.withLock { $0.pins.pins } }

    /// The keys of the entry files, in batches of `batchSize`; a file whose key the index has not
    /// learnt is read once (its header only).
    public func storedKeys(batchSize: Int) -> AsyncThrowingStream<[CacheKey], any Error> {
        let size = max(1, batchSize)
        return AsyncThrowingStream { continuation in
            let producer = Task { [self] in
                await waitUntilIndexed()
                let names = state.withLock { $0.records.namesByRecency }
                do {
                    for start in stride(from: 0, to: names.count, by: size) {
                        try Task.checkCancellation()
                        let batch = Array(names[start..<min(start + size, names.count)])
                        let keys = try await onWriteQueue { [self] in batch.compactMap { knownKey(of: $0) } }
                        if !keys.isEmpty { continuation.yield(keys) }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in producer.cancel() }
        }
    }

    // MARK: On the write queue

    /// Whether an entry stored under `key` is pinned, after checking the quota, and the bytes of the
    /// other pinned files; saves `.pins` first when a newly covered file joins it. Runs before the
    /// entry file is renamed into place.
    func admitPinned(_ key: CacheKey, name: EntryName, fileSize: Int) throws -> (isPinned: Bool, pinnedBytes: Int) {
        let (covered, others, isListed) = state.withLock { index -> (Bool, Int, Bool) in
            guard !index.pinnedNames.isEmpty || !index.pins.isEmpty else { return (false, 0, false) }
            let isListed = index.pinnedNames.contains(name)
            let replaced = isListed ? index.records.record(for: name)?.size ?? 0 : 0
            return (!index.pins.isEmpty && index.pins.covers(key), index.pinned.bytes - replaced, isListed)
        }
        guard covered else { return (false, others) }
        guard others + fileSize <= configuration.pinnedQuota else {
            throw AssetsError.pinnedQuotaExceeded(
                key: key, bytes: fileSize, pinnedBytes: others, quota: configuration.pinnedQuota)
        }
        if !isListed {
            let (pins, names) = state.withLock { ($0.pins, $0.pinnedNames.union([name])) }
            try savePins(pins, names: names, failing: key)
            _ = state.withLock { $0.pinnedNames.insert(name) }
        }
        return (true, others)
    }

    /// Reads `.pins` at open (before the index, whose first sweep must skip pinned files).
    func loadPins() {
        let file = open(path + "/" + PinsFile.fileName, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return }
        defer { POSIX.closeDescriptor(file) }
        guard let info = try? POSIX.status(file), info.st_size > 0, info.st_size < 1 << 30 else { return }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        let count = bytes.withUnsafeMutableBytes { buffer in
            (try? POSIX.read(file, into: buffer.baseAddress!, count: buffer.count, offset: 0)) ?? 0
        }
        guard count == bytes.count, let saved = try? bytes.withUnsafeBytes({ try PinsFile.decode($0) }) else { return }
        state.withLock { index -> Void in
            index.pins = saved.pins
            index.pinnedNames = saved.names
        }
    }

    private func addPin(_ pin: Pin) throws {
        guard !state.withLock({ $0.pins.contains(pin) }) else { return }
        let covered: [EntryName]
        switch pin {
        case .key(let key): covered = [EntryName(key: key)]
        case .asset(let asset): covered = selectedNames(.asset(asset))
        }
        let (pins, names, added, pinnedBytes) = state.withLock { index in
            var pins = index.pins
            pins.insert(pin)
            let new = covered.filter { index.records.record(for: $0) != nil && !index.pinnedNames.contains($0) }
            let added = new.reduce(0) { $0 + (index.records.record(for: $1)?.size ?? 0) }
            return (pins, index.pinnedNames.union(new), added, index.pinned.bytes)
        }
        guard pinnedBytes + added <= configuration.pinnedQuota else {
            throw AssetsError.pinnedQuotaExceeded(
                key: pin.key, bytes: added, pinnedBytes: pinnedBytes, quota: configuration.pinnedQuota)
        }
        try savePins(pins, names: names, failing: pin.key)
        state.withLock { index in
            index.pins = pins
            index.pinnedNames = names
        }
    }

    private func removePin(_ pin: Pin) throws {
        guard state.withLock({ $0.pins.contains(pin) }) else { return }
        var pins = state.withLock { $0.pins }
        pins.remove(pin)
        // A listed file stays pinned if another pin covers its key (learnt from its header if needed).
        let listed = state.withLock { $0.pinnedNames }
        let names = listed.filter { name in knownKey(of: name).map(pins.covers) ?? false }
        try savePins(pins, names: names, failing: pin.key)
        state.withLock { index in
            index.pins = pins
            index.pinnedNames = names
        }
    }

    /// The key of the file `name`, from the index or its header; nil if it is gone or damaged.
    func knownKey(of name: EntryName) -> CacheKey? {
        if let identity = state.withLock({ $0.identities[name] }) { return identity.key }
        return learnHeader(name)?.identity.key
    }

    /// Writes `.pins` to a temporary file and renames it into place.
    private func savePins(_ pins: PinSet, names: Set<EntryName>, failing key: CacheKey) throws {
        let finalPath = path + "/" + PinsFile.fileName
        let bytes = PinsFile.encode(pins: pins, names: names)
        let temporaryPath = finalPath + Self.temporarySuffix
        let file = open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard file >= 0 else {
            throw AssetsError.writeFailed(key: key, path: temporaryPath, reason: errnoDescription())
        }
        let nothing = UnsafeRawBufferPointer(start: nil, count: 0)
        do {
            try bytes.withUnsafeBytes { try POSIX.write(file, $0, nothing) }
        } catch {
            POSIX.closeDescriptor(file)
            unlink(temporaryPath)
            throw AssetsError.writeFailed(key: key, path: temporaryPath, reason: "\(error)")
        }
        guard POSIX.closeDescriptor(file) == 0, rename(temporaryPath, finalPath) == 0 else {
            let reason = errnoDescription()
            unlink(temporaryPath)
            throw AssetsError.writeFailed(key: key, path: finalPath, reason: reason)
        }
    }
}
