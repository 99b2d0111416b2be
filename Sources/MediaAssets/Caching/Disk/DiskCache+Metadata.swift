import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Metadata updates in place: what a 304 revalidation writes (see `EntryFile` for the two slots).
extension DiskCache {
    /// Replaces the metadata of the entry under `key`, keeping its bytes: one write of a few hundred
    /// bytes into the spare metadata slot of its file, which a kill or a concurrent read sees whole or
    /// not at all (the other slot still holds the old metadata). Counts as a use of the entry.
    ///
    /// A file of an older format, or metadata too long for its slots, is rewritten whole instead.
    /// Returns false, changing nothing, when there is no live entry.
    public func updateMetadata(_ metadata: CacheMetadata, forKey key: CacheKey) async throws -> Bool {
        try await onWriteQueue { [self] in try replaceMetadata(metadata, forKey: key) }
    }

    /// Runs on the write queue, like every change to the directory.
    func replaceMetadata(_ metadata: CacheMetadata, forKey key: CacheKey) throws -> Bool {
        let name = EntryName(key: key)
        // While the pass at open runs, a name without a record is looked up in its file.
        guard state.withLock({ $0.records.record(for: name) != nil || !$0.isComplete }) else { return false }
        let path = filePath(name)
        let descriptor = open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT {
                _ = state.withLock { $0._remove(name) }
                return false
            }
            throw AssetsError.writeFailed(key: key, path: path, reason: errnoDescription())
        }
        defer { POSIX.closeDescriptor(descriptor) }
        let info: stat
        let header: EntryFile.Header
        let headerBytes: [UInt8]
        do {
            info = try POSIX.status(descriptor)
            headerBytes = try readHeaderBytes(descriptor, fileSize: Int(info.st_size))
            header = try headerBytes.withUnsafeBytes {
                try EntryFile.decodeHeader($0, fileSize: Int(info.st_size), expectedKey: key.rawValue)
            }
        } catch let failure as POSIX.Failure {
            throw AssetsError.writeFailed(key: key, path: path, reason: failure.description)
        } catch {
            // Damaged, or another key's file: a miss, and the file goes, as a read would do.
            try removeFile(named: name)
            return false
        }
        let now = configuration.now()
        if let expires = header.metadata.expires, expires <= now {
            try removeFile(named: name)
            return false
        }
        guard let slots = header.slots,
            let slot = EntryFile.encodeSlot(
                metadata, sequence: slots.sequence + 1, capacity: slots.capacity, bodyChecksum: header.checksum)
        else {
            return try rewriteWhole(descriptor, header: header, headerBytes: headerBytes, metadata, forKey: key)
        }
        do {
            try slot.withUnsafeBytes { try POSIX.write(descriptor, $0, offset: slots.offset(of: 1 - slots.current)) }
        } catch {
            throw AssetsError.writeFailed(key: key, path: path, reason: "\(error)")
        }
        // The write moved the modification time, which records the last access: set it to the cache's
        // clock, as a use of the entry.
        POSIX.setModificationTime(descriptor, now)
        state.withLock { index in
            index._refresh(
                name, size: Int(info.st_size), at: now, expiry: DiskIndex.Expiry(metadata.expires),
                identity: DiskIndex.Identity(key: key, partition: metadata.partition), inode: UInt64(info.st_ino))
        }
        return true
    }

    /// The header of an open entry file: its first bytes, then as many as it declares.
    func readHeaderBytes(_ descriptor: Int32, fileSize: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: min(fileSize, 4_096))
        let count = try bytes.withUnsafeMutableBytes {
            try POSIX.read(descriptor, into: $0.baseAddress!, count: $0.count, offset: 0)
        }
        guard count == bytes.count else { throw EntryFile.Corruption.tooShort }
        let headerLength = try bytes.withUnsafeBytes { try EntryFile.declaredHeaderLength($0) }
        guard headerLength > bytes.count else { return bytes }
        guard headerLength <= fileSize else { throw EntryFile.Corruption.badLengths }
        bytes = [UInt8](repeating: 0, count: headerLength)
        let full = try bytes.withUnsafeMutableBytes {
            try POSIX.read(descriptor, into: $0.baseAddress!, count: $0.count, offset: 0)
        }
        guard full == headerLength else { throw EntryFile.Corruption.tooShort }
        return bytes
    }

    /// Writes the entry again as a new file with `metadata`, after checking its bytes against their
    /// checksum (a damaged body must not come back under a fresh one).
    private func rewriteWhole(
        _ descriptor: Int32, header: EntryFile.Header, headerBytes: [UInt8], _ metadata: CacheMetadata,
        forKey key: CacheKey
    ) throws -> Bool {
        let name = EntryName(key: key)
        var body = Data(count: header.bodyLength)
        let count: Int
        do {
            count = try body.withUnsafeMutableBytes { buffer in
                guard let base = buffer.baseAddress else { return 0 }
                return try POSIX.read(descriptor, into: base, count: buffer.count, offset: header.headerLength)
            }
        } catch {
            throw AssetsError.writeFailed(key: key, path: filePath(name), reason: "\(error)")
        }
        let intact =
            count == header.bodyLength
            && (try? headerBytes.withUnsafeBytes { bytes in
                try body.withUnsafeBytes { try EntryFile.verify(header: header, headerBytes: bytes, body: $0) }
            }) != nil
        guard intact else {
            try removeFile(named: name)
            return false
        }
        try writeEntry(CacheEntry(data: body, metadata: metadata), forKey: key)
        return true
    }
}
