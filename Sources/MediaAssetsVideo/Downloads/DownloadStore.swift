import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The downloads' directory: one directory per download (`d<n>/`, its media and its `record.json`) and the
/// index (`downloads.json`) of them all, every file outside the cache and its LRU.
///
/// Every file but the media being fetched is replaced atomically (a temporary file renamed into place), so
/// a process killed at any moment leaves each one whole, old or new. The media file of a progressive
/// download grows by positional writes in order, as the bytes arrive; its size is how far the download came.
/// It is not synced until the download completes: a killed process loses nothing the kernel took, and a
/// restart trusts the size only together with the record's validators, which were saved before the first
/// byte and are sent back as `If-Range` (a changed resource answers 200 and starts over). File work runs on
/// the store's own queue, never on the cooperative pool. A lock file keeps a second process out.
final class DownloadStore: Sendable {
    let root: URL
    private let queue = DispatchQueue(label: "MediaAssets.VideoDownloads.files")
    /// The lock file's descriptor; -1 once released.
    private let lockDescriptor: Mutex<Int32>

    static let indexName = "downloads.json"
    static let recordName = "record.json"

    /// Opens (creating) the directory and takes its lock.
    init(root: URL) throws(VideoDownloadError) {
        self.root = root.standardizedFileURL
        do {
            try FileManager.default.createDirectory(at: self.root, withIntermediateDirectories: true)
        } catch {
            throw .storageFailed(path: root.path, reason: error.localizedDescription)
        }
        let lockPath = self.root.appendingPathComponent(".lock").path
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw .storageFailed(path: lockPath, reason: String(cString: strerror(errno)))
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw .storageFailed(path: root.path, reason: "another process uses these downloads")
        }
        lockDescriptor = Mutex(descriptor)
    }

    deinit { releaseLock() }

    /// Lets another manager (in this process or another) open the directory.
    func releaseLock() {
        let descriptor = lockDescriptor.withLock { descriptor -> Int32 in
            defer { descriptor = -1 }
            return descriptor
        }
        guard descriptor >= 0 else { return }
        // Unlocked before closing: the lock belongs to the open file description, which a child process
        // this process is starting (between its fork and exec) shares; closing our descriptor alone would
        // leave the directory locked until that child's exec.
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// Whether the lock was released (the manager closed).
    var isClosed: Bool { lockDescriptor.withLock { $0 < 0 } }

    func directory(of id: String) -> URL { root.appendingPathComponent(id, isDirectory: true) }

    func file(_ name: String, of id: String) -> URL { directory(of: id).appendingPathComponent(name) }

    /// Runs `work` on the store's queue.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }

    // MARK: Index and records

    /// The index on disk, or one rebuilt from the downloads' own records when it is missing or damaged
    /// (then saved); `rebuilt` says which, `dropped` the directories no sound record or index names.
    func loadIndex() throws -> (index: DownloadIndex, rebuilt: Bool, dropped: [String]) {
        let url = root.appendingPathComponent(Self.indexName)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        if let data = try? Data(contentsOf: url), let index = try? DownloadIndex.decode(data),
            index.downloads.allSatisfy({ FileManager.default.fileExists(atPath: directory(of: $0.id).path) })
        {
            // A directory the index does not name is what a kill in the middle of a removal (or of an
            // enqueue that never returned) left.
            let listed = Set(index.downloads.map(\.id))
            let leftovers = names.filter { DownloadIndex.isValidID($0) && !listed.contains($0) }
            for name in leftovers { try? FileManager.default.removeItem(at: directory(of: name)) }
            return (index, false, leftovers)
        }
        var index = DownloadIndex()
        var dropped: [String] = []
        for name in names.sorted() where DownloadIndex.isValidID(name) {
            let recordURL = file(Self.recordName, of: name)
            if let data = try? Data(contentsOf: recordURL), let record = DownloadIndex.decodeRecord(data),
                record.id == name, !index.downloads.contains(where: { $0.id == name })
            {
                index.downloads.append(record)
            } else {
                // Without its record a directory cannot be told what it holds; it only takes space.
                try? FileManager.default.removeItem(at: directory(of: name))
                dropped.append(name)
            }
            index.nextNumber = max(index.nextNumber, (DownloadIndex.number(of: name) ?? 0) + 1)
        }
        index.downloads.sort { $0.order < $1.order }
        try saveIndex(index)
        return (index, true, dropped)
    }

    /// Replaces the index on disk.
    func saveIndex(_ index: DownloadIndex) throws {
        try writeAtomically(try index.encoded(), to: root.appendingPathComponent(Self.indexName))
    }

    /// Replaces a download's own record (creating its directory).
    func saveRecord(_ record: DownloadRecord) throws {
        try FileManager.default.createDirectory(at: directory(of: record.id), withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try writeAtomically(try encoder.encode(record), to: file(Self.recordName, of: record.id))
    }

    /// Writes `data` to a temporary file beside `url` and renames it into place.
    func writeAtomically(_ data: Data, to url: URL) throws {
        do {
            try data.write(to: url, options: .atomic)
        } catch {
            throw VideoDownloadError.storageFailed(path: url.path, reason: error.localizedDescription)
        }
    }

    func removeDirectory(of id: String) throws {
        let url = directory(of: id)
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        do {
            try FileManager.default.removeItem(at: url)
        } catch {
            throw VideoDownloadError.storageFailed(path: url.path, reason: error.localizedDescription)
        }
    }

    // MARK: Sizes

    /// The size of a file, or nil when it does not exist.
    func size(of url: URL) -> Int? {
        var info = stat()
        guard stat(url.path, &info) == 0 else { return nil }
        return Int(info.st_size)
    }

    /// The bytes a download has on disk, and (HLS) how many of its files are there.
    func usage(of record: DownloadRecord) -> (bytes: Int, files: Int) {
        switch record.kind {
        case .progressive:
            return (size(of: file(record.fileName, of: record.id)) ?? 0, 0)
        case .hls:
            guard let hls = record.hls else { return (0, 0) }
            var bytes = 0
            var files = 0
            for name in Set(hls.files.map(\.name)) {
                if let size = size(of: file(name, of: record.id)) {
                    bytes += size
                    files += 1
                }
            }
            return (bytes, files)
        }
    }
}
