import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension DiskCache {
    /// Removes the entry files `selection` takes; runs on the write queue.
    ///
    /// The index knows the key and partition of every file written or read since open; for the
    /// others only the header is read (never the body), once, and remembered. A file that cannot be
    /// removed stays indexed, and the first failure is thrown after the others were tried.
    func removeSelectedFiles(_ selection: EntrySelection) throws {
        var failures: [AssetsError] = []
        for name in selectedNames(selection) {
            do {
                try removeFile(named: name)
            } catch let error as AssetsError {
                failures.append(error)
            }
        }
        if let first = failures.first { throw first }
    }

    /// The files `selection` takes, decided from what the index knows, reading only the headers of
    /// files whose key and partition it has not learnt yet.
    func selectedNames(_ selection: EntrySelection) -> [EntryName] {
        // Decided under the lock from what the index knows; only unknown files are read after.
        let (selected, unknown) = state.withLock { index -> ([EntryName], [EntryName]) in
            var selected: [EntryName] = []
            var unknown: [EntryName] = []
            for name in index.records.namesByRecency {
                guard let identity = index.identities[name] else {
                    unknown.append(name)
                    continue
                }
                if selection.contains(key: identity.key, partition: identity.partition) { selected.append(name) }
            }
            return (selected, unknown)
        }
        let learnt = unknown.filter { name in
            guard let identity = learnHeader(name)?.identity else { return false }
            return selection.contains(key: identity.key, partition: identity.partition)
        }
        return selected + learnt
    }

    /// Reads the header of `name` (not its body) and records its expiry, key and partition in the
    /// index; nil if the file cannot be read or its header is damaged.
    func learnHeader(_ name: EntryName) -> (expiry: DiskIndex.Expiry, identity: DiskIndex.Identity)? {
        let descriptor = open(filePath(name), O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { POSIX.closeDescriptor(descriptor) }
        guard let info = try? POSIX.status(descriptor) else { return nil }
        var prefix = [UInt8](repeating: 0, count: EntryFile.smallestFixedHeaderLength)
        guard read(descriptor, into: &prefix, count: prefix.count),
            let headerLength = try? prefix.withUnsafeBytes({ try EntryFile.declaredHeaderLength($0) })
        else { return nil }
        var headerBytes = [UInt8](repeating: 0, count: headerLength)
        guard read(descriptor, into: &headerBytes, count: headerLength),
            let header = try? headerBytes.withUnsafeBytes({
                try EntryFile.decodeHeader($0, fileSize: Int(info.st_size))
            })
        else { return nil }
        let expiry = DiskIndex.Expiry(header.metadata.expires)
        let identity = DiskIndex.Identity(key: CacheKey(header.key), partition: header.metadata.partition)
        state.withLock { $0._learn(name, expiry: expiry, identity: identity, inode: UInt64(info.st_ino)) }
        return (expiry, identity)
    }

    private func read(_ descriptor: Int32, into bytes: inout [UInt8], count: Int) -> Bool {
        let done = bytes.withUnsafeMutableBytes { buffer in
            (try? POSIX.read(descriptor, into: buffer.baseAddress!, count: count, offset: 0)) ?? 0
        }
        return done == count
    }
}
