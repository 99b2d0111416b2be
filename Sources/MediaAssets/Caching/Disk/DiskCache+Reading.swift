import CMediaAssetsIO
import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension DiskCache {
    /// What a read came to: the entry (nil for a miss), or that it would have had to wait for the disk.
    enum ReadOutcome {
        case found(CacheEntry?)
        case wouldBlock

        /// The entry of a read that was allowed to block (which never says `.wouldBlock`).
        var entry: CacheEntry? {
            guard case .found(let entry) = self else { return nil }
            return entry
        }
    }

    /// Reads, checks and returns the entry for `key`.
    ///
    /// With `mayBlock` false (on the caller's thread) it reads only a file no larger than
    /// `Configuration.inlineReadLimit` whose path and bytes the kernel holds in memory, and says
    /// `.wouldBlock` otherwise, having changed nothing; with `mayBlock` true (on an I/O thread) it reads
    /// whatever is there. While the pass at open runs, a name without a record is looked up in its file
    /// (a miss costs an `open`); after it, the index answers misses alone.
    func readEntry(forKey key: CacheKey, mayBlock: Bool) throws -> ReadOutcome {
        let name = EntryName(key: key)
        let (record, isIndexed) = state.withLock { ($0.records.record(for: name), $0.isComplete) }
        guard record != nil || !isIndexed else { return .found(miss()) }
        if !mayBlock, let record, record.size > configuration.inlineReadLimit { return .wouldBlock }
        let descriptor: Int32
        switch openEntryFile(name, mayBlock: mayBlock) {
        case .opened(let opened): descriptor = opened
        case .wouldBlock: return .wouldBlock
        case .failed(ENOENT):
            if let record { forgetMissingFile(name, inode: record.inode) }
            return .found(miss())
        case .failed(let code):
            throw AssetsError.readFailed(key: key, path: filePath(name), reason: errnoDescription(code))
        }
        defer { POSIX.closeDescriptor(descriptor) }
        let info: stat
        let fileSize: Int
        do {
            info = try POSIX.status(descriptor)
            fileSize = Int(info.st_size)
        } catch {
            throw AssetsError.readFailed(key: key, path: filePath(name), reason: error.description)
        }
        if !mayBlock, fileSize > configuration.inlineReadLimit { return .wouldBlock }
        let largestFile = max(configuration.sizeLimit, EntryFile.smallestFixedHeaderLength)
        guard fileSize >= EntryFile.smallestFixedHeaderLength, fileSize <= largestFile else {
            removeIfUnchanged(name, descriptor)
            return .found(miss())
        }

        // One allocation and one read for the whole file; the entry's Data adopts the buffer
        // past the header, so the body is never copied.
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: fileSize, alignment: 16)
        var adopted = false
        defer { if !adopted { buffer.deallocate() } }
        let readCount: Int
        do {
            if mayBlock {
                readCount = try POSIX.read(descriptor, into: buffer, count: fileSize, offset: 0)
            } else {
                guard let cached = readWithoutWaiting(descriptor, into: buffer, count: fileSize) else {
                    return .wouldBlock
                }
                readCount = cached
            }
        } catch {
            throw AssetsError.readFailed(key: key, path: filePath(name), reason: error.description)
        }
        let bytes = UnsafeRawBufferPointer(start: buffer, count: readCount)
        let header: EntryFile.Header
        do {
            guard readCount == fileSize else { throw EntryFile.Corruption.tooShort }
            header = try EntryFile.decodeHeader(bytes, fileSize: fileSize, expectedKey: key.rawValue)
            // The body checksum is checked once per file (see DiskIndex.Record.isVerified).
            if !(record?.isVerified == true && record?.inode == UInt64(info.st_ino)) {
                try EntryFile.verify(
                    header: header, headerBytes: bytes,
                    body: UnsafeRawBufferPointer(rebasing: bytes[header.headerLength...])
                )
            }
        } catch {
            // No valid metadata slot can also mean two metadata updates ran while this read copied them:
            // decided again on the write queue, where updates run.
            removeIfUnchanged(name, descriptor, unlessHeaderDecodes: error as? EntryFile.Corruption == .noValidMetadata)
            return .found(miss())
        }

        let now = configuration.now()
        var metadata = header.metadata
        if let expires = metadata.expires, expires <= now {
            removeIfUnchanged(name, descriptor)
            return .found(miss())
        }
        metadata.lastAccess = now
        let data: Data
        if header.bodyLength == 0 {
            data = Data()
        } else {
            data = Data(
                bytesNoCopy: buffer + header.headerLength, count: header.bodyLength,
                deallocator: .custom { _, _ in buffer.deallocate() }
            )
            adopted = true
        }
        let expiry = DiskIndex.Expiry(metadata.expires)
        recordHit(
            name, at: now, expiry: expiry, key: key, partition: metadata.partition, inode: UInt64(info.st_ino),
            size: fileSize, indexed: record != nil)
        return .found(CacheEntry(data: data, metadata: metadata))
    }

    /// `O_NOATIME` (Linux), which Swift does not import.
    #if os(Linux)
    static let noAccessTime: Int32 = 0o1_000_000
    #else
    static let noAccessTime: Int32 = 0
    #endif

    enum OpenOutcome {
        case opened(Int32)
        case wouldBlock
        case failed(Int32)
    }

    /// Opens the entry file `name` for reading, relative to the directory; without `mayBlock`, only if
    /// its path resolves from the kernel's caches (no directory or inode read from the disk).
    ///
    /// Without an access-time update: the cache keeps its own (the modification time, in batches); the
    /// kernel's would dirty the file's inode on every read after each batch. EPERM: not our file.
    private func openEntryFile(_ name: EntryName, mayBlock: Bool) -> OpenOutcome {
        withFileName(name) { fileName in
            for flags in [Self.noAccessTime, 0] {
                let descriptor: Int32
                if mayBlock {
                    descriptor = openat(directoryDescriptor, fileName, O_RDONLY | O_CLOEXEC | flags)
                } else {
                    guard readsWithoutWaiting.load(ordering: .relaxed) else { return .wouldBlock }
                    descriptor = ma_open_cached(directoryDescriptor, fileName, flags)
                }
                if descriptor >= 0 { return .opened(descriptor) }
                let code = errno
                switch code {
                case EPERM where flags != 0: continue
                case EAGAIN where !mayBlock: return .wouldBlock
                case ENOSYS where !mayBlock, EINVAL where !mayBlock:
                    readsWithoutWaiting.store(false, ordering: .relaxed)
                    return .wouldBlock
                default: return .failed(code)
                }
            }
            return .failed(EPERM)
        }
    }

    /// Reads the whole file only from the page cache: the bytes read, or nil if any part would have to
    /// come from the disk (or the system cannot tell).
    private func readWithoutWaiting(_ descriptor: Int32, into buffer: UnsafeMutableRawPointer, count: Int) -> Int? {
        var done = 0
        while done < count {
            let result = ma_pread_nowait(descriptor, buffer + done, count - done, off_t(done))
            if result > 0 {
                done += result
                continue
            }
            if result == 0 { break }
            switch errno {
            case EINTR: continue
            case EOPNOTSUPP, ENOSYS, EINVAL:
                readsWithoutWaiting.store(false, ordering: .relaxed)
                return nil
            default: return nil
            }
        }
        return done
    }

    func miss() -> CacheEntry? {
        state.withLock { $0.statistics.misses += 1 }
        return nil
    }

    /// Counts a hit and marks the file used; a file read without a record (the pass at open had not
    /// reached it) gets one.
    private func recordHit(
        _ name: EntryName, at date: Date, expiry: DiskIndex.Expiry, key: CacheKey, partition: LRUCacheType?,
        inode: UInt64, size: Int, indexed: Bool
    ) {
        let shouldSave = state.withLock { index -> Bool in
            index.statistics.hits += 1
            let identity = DiskIndex.Identity(key: key, partition: partition)
            if !indexed, index.records.record(for: name) == nil {
                return index._adoptRead(name, size: size, at: date, expiry: expiry, identity: identity, inode: inode)
            }
            return index._touch(name, at: date, expiry: expiry, identity: identity, inode: inode)
        }
        if shouldSave {
            writeQueue.async { [self] in
                if !isClosed { saveAccessTimes() }
            }
        }
    }

    /// Drops the record of a file that is gone (deleted by hand, or by a closed instance's late work),
    /// unless a write has put a new file there since; runs on the write queue, like every removal.
    private func forgetMissingFile(_ name: EntryName, inode: UInt64) {
        writeQueue.async { [self] in
            guard !isClosed, POSIX.status(path: filePath(name)) == nil else { return }
            state.withLock { index in
                if index.records.record(for: name)?.inode == inode { _ = index._remove(name) }
            }
        }
    }

    /// Removes a bad or expired file, unless a write has replaced it since it was opened.
    ///
    /// A duplicate of the open descriptor pins the file until the write queue decides, so its inode
    /// number cannot be reused by a newer file in between: equal inodes mean the same file.
    /// With `unlessHeaderDecodes`, the file stays if its header decodes when read again there.
    private func removeIfUnchanged(_ name: EntryName, _ descriptor: Int32, unlessHeaderDecodes: Bool = false) {
        let pinned = dup(descriptor)
        guard pinned >= 0 else { return }
        writeQueue.async { [self] in
            defer { POSIX.closeDescriptor(pinned) }
            guard !isClosed, let opened = try? POSIX.status(pinned), let current = POSIX.status(path: filePath(name)),
                current.st_ino == opened.st_ino, current.st_dev == opened.st_dev
            else { return }
            if unlessHeaderDecodes, let bytes = try? readHeaderBytes(pinned, fileSize: Int(opened.st_size)),
                (try? bytes.withUnsafeBytes { try EntryFile.decodeHeader($0, fileSize: Int(opened.st_size)) }) != nil
            {
                return
            }
            try? removeFile(named: name)
        }
    }
}
