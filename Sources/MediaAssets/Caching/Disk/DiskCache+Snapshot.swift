import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Saving the index at close and reading it back at open (see `IndexSnapshot`).
///
/// The lock file holds a clean mark only between a close that wrote the snapshot and the next open:
/// the mark names the snapshot's inode and status change time just after it was renamed into place,
/// and the directory's inode. Open erases the mark before anything else. The snapshot is used only if
/// the mark matches it: a snapshot copied or written over since (even in place, with its times set
/// back) has another status change time, which no tool can set. Even then the snapshot is only where
/// the pass at open starts: it compares every record with its file (`DiskIndex._reconcile`), so a file
/// changed, added or removed while the cache was closed is found, whatever the directory's times say.
/// After a crash (kill -9) the mark is absent and the pass starts from nothing.
extension DiskCache {
    /// Reads the lock file's clean mark and erases it: from here on the cache may change the directory.
    func takeCleanMark(lock descriptor: Int32) -> CleanMark? {
        var markBytes = [UInt8](repeating: 0, count: 128)
        let markLength = markBytes.withUnsafeMutableBytes { buffer in
            (try? POSIX.read(descriptor, into: buffer.baseAddress!, count: buffer.count, offset: 0)) ?? 0
        }
        guard ftruncate(descriptor, 0) == 0, markLength > 0 else { return nil }
        return CleanMark(String(decoding: markBytes[..<markLength], as: UTF8.self))
    }

    /// The records of the snapshot `mark` vouches for, and when it was written (seconds since the
    /// reference date); nil if there is none, it does not match, or it does not decode.
    func readSnapshot(_ mark: CleanMark) -> (records: DiskRecords, writtenAt: Double)? {
        let snapshotPath = path + "/" + IndexSnapshot.fileName
        guard let snapshot = POSIX.status(path: snapshotPath), let directory = POSIX.status(path: path),
            mark == CleanMark(snapshot: snapshot, directory: directory),
            let records = Self.decodeMapped(snapshotPath)
        else { return nil }
        return (records, POSIX.statusChangeDate(snapshot).timeIntervalSinceReferenceDate)
    }

    /// Decodes the snapshot through a read-only mapping: no heap copy of it (48 MB at a million
    /// entries) outlives the open. The directory is private (0700) and locked by this instance, so
    /// nothing truncates the file while it is mapped.
    private static func decodeMapped(_ snapshotPath: String) -> DiskRecords? {
        let file = open(snapshotPath, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return nil }
        defer { POSIX.closeDescriptor(file) }
        guard let info = try? POSIX.status(file), info.st_size > 0 else { return nil }
        let length = Int(info.st_size)
        guard let mapping = mmap(nil, length, PROT_READ, MAP_PRIVATE, file, 0), mapping != MAP_FAILED else {
            return nil
        }
        defer { munmap(mapping, length) }
        return try? IndexSnapshot.decode(UnsafeRawBufferPointer(start: mapping, count: length))
    }

    /// Writes the snapshot and then the clean mark, when the pass at open has ended and the index holds
    /// at least `indexSnapshotMinimumCount` entries; otherwise removes any old snapshot. A failure leaves
    /// no mark, so the next open starts from nothing.
    func saveSnapshot(lock descriptor: Int32) {
        let snapshotPath = path + "/" + IndexSnapshot.fileName
        let bytes = state.withLock { index -> [UInt8]? in
            guard index.isComplete, index.records.count >= configuration.indexSnapshotMinimumCount else { return nil }
            return IndexSnapshot.encode(index.records)
        }
        guard let bytes else {
            unlink(snapshotPath)
            return
        }
        let temporaryPath = snapshotPath + Self.temporarySuffix
        let file = open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard file >= 0 else { return }
        let nothing = UnsafeRawBufferPointer(start: nil, count: 0)
        let written = bytes.withUnsafeBytes { (try? POSIX.write(file, $0, nothing)) != nil }
        guard POSIX.closeDescriptor(file) == 0, written, rename(temporaryPath, snapshotPath) == 0,
            let snapshot = POSIX.status(path: snapshotPath), let directory = POSIX.status(path: path)
        else {
            unlink(temporaryPath)
            return
        }
        let mark = Array(CleanMark(snapshot: snapshot, directory: directory).description.utf8)
        let markWritten = mark.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) } == mark.count
        if !markWritten { _ = ftruncate(descriptor, 0) }
    }

    /// The lock file's content after a clean close.
    struct CleanMark: Equatable, CustomStringConvertible {
        var snapshotInode: UInt64
        var snapshotChangeSeconds: Int
        var snapshotChangeNanoseconds: Int
        var directoryInode: UInt64

        init(snapshot: stat, directory: stat) {
            snapshotInode = UInt64(snapshot.st_ino)
            snapshotChangeSeconds = Int(snapshot.st_ctim.tv_sec)
            snapshotChangeNanoseconds = Int(snapshot.st_ctim.tv_nsec)
            directoryInode = UInt64(directory.st_ino)
        }

        /// Parses a mark; one of another version (an older release's) is nil: the pass starts from nothing.
        init?(_ text: String) {
            let fields = text.split(separator: " ", omittingEmptySubsequences: false)
            guard fields.count == 6, fields[0] == "clean", fields[1] == "v2", fields[5].hasSuffix("\n"),
                let snapshot = UInt64(fields[2]), let seconds = Int(fields[3]), let nanoseconds = Int(fields[4]),
                let directory = UInt64(fields[5].dropLast())
            else { return nil }
            (snapshotInode, directoryInode) = (snapshot, directory)
            (snapshotChangeSeconds, snapshotChangeNanoseconds) = (seconds, nanoseconds)
        }

        var description: String {
            "clean v2 \(snapshotInode) \(snapshotChangeSeconds) \(snapshotChangeNanoseconds) \(directoryInode)\n"
        }
    }
}
