import Foundation
import MediaAssets
import MediaAssetsSQLite

#if canImport(Glibc)
import Glibc
#endif

/// Stores every key round after round, acknowledging each store in the writer's log.
func runWriter(_ arguments: WriterArguments) async throws {
    let writer = try arguments.int("writer")
    let keys = try arguments.int("keys")
    let rounds = try arguments.int("rounds", default: Int.max)
    let path = try arguments.string("path")
    let backend = try arguments.openBackend()
    // With --pin-every N, every Nth key is pinned before it is stored (again each run: pinning what
    // is pinned does nothing), so kills also land in pins and pinned stores.
    let pinEvery = try arguments.int("pin-every", default: 0)
    // With --remove-every N, the key before every Nth is removed after it (unless pinned), so kills also
    // land in removals and the cache holds absent keys whose files come and go.
    let removeEvery = try arguments.int("remove-every", default: 0)
    if pinEvery > 0 {
        for index in stride(from: 0, to: keys, by: pinEvery) {
            try await backend.pin(.key(WriterPayload.key(writer: writer, index: index)))
        }
    }
    let ackPath = AckLog.path(cache: path, writer: writer)
    var next = AckLog.read(ackPath).mapValues { $0 + 1 }
    let ack = open(ackPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
    guard ack >= 0 else { throw WriterFailure("cannot open \(ackPath)") }
    for _ in 0..<rounds {
        for index in 0..<keys {
            let version = next[index] ?? 1
            let key = WriterPayload.key(writer: writer, index: index)
            let value = WriterPayload.make(writer: writer, index: index, version: version)
            try await backend.store(CacheEntry(data: value), forKey: key)
            // One write(2) per line: a kill leaves whole lines, or a torn last one the reader skips.
            let line = Array("\(index) \(version)\n".utf8)
            _ = line.withUnsafeBytes { write(ack, $0.baseAddress, $0.count) }
            next[index] = version + 1
            if index % 3 == 0, let read = try await backend.entry(forKey: key)?.data, read != value {
                throw WriterFailure("\(key) read back wrong right after its store")
            }
            let removed = index - 1
            if removeEvery > 0, index % removeEvery == removeEvery - 1, removed >= 0,
                pinEvery == 0 || removed % pinEvery != 0
            {
                try await backend.removeEntry(forKey: WriterPayload.key(writer: writer, index: removed))
            }
        }
    }
    close(ack)
}

/// Checks every key of every writer; returns whether all passed.
func runVerifier(_ arguments: WriterArguments) async throws -> Bool {
    let writers = try arguments.int("writers")
    let keys = try arguments.int("keys")
    let limit = try arguments.int("size-limit")
    let path = try arguments.string("path")
    let requireAll = arguments.flag("require-all")
    let pinEvery = try arguments.int("pin-every", default: 0)
    let backend = try arguments.openBackend()
    var present = 0
    var absent = 0
    var failures: [String] = []
    for writer in 0..<writers {
        let acknowledged = AckLog.read(AckLog.path(cache: path, writer: writer))
        for index in 0..<keys {
            let key = WriterPayload.key(writer: writer, index: index)
            let acked = acknowledged[index] ?? 0
            let pinned = pinEvery > 0 && index % pinEvery == 0
            guard let data = try await backend.entry(forKey: key)?.data else {
                absent += 1
                if requireAll { failures.append("\(key) is missing (acknowledged version \(acked))") }
                // A pinned entry is never evicted: once acknowledged, it must be there.
                if pinned, acked > 0 { failures.append("\(key) is pinned and acknowledged (\(acked)) but gone") }
                continue
            }
            present += 1
            guard let version = WriterPayload.claimedVersion(data),
                data == WriterPayload.make(writer: writer, index: index, version: version)
            else {
                failures.append("\(key) holds wrong or torn bytes (\(data.count) bytes)")
                continue
            }
            if version < acked || version > acked + 1 {
                failures.append("\(key) holds version \(version), acknowledged \(acked): stale")
            }
        }
    }
    let statistics = await backend.statistics()
    if statistics.bytes > limit { failures.append("the cache holds \(statistics.bytes) bytes, over \(limit)") }
    if backend is DiskCache, let disk = entryFiles(in: path), disk != (statistics.count, statistics.bytes) {
        failures.append(
            "the index counts \(statistics.count) entries of \(statistics.bytes) bytes, the directory holds "
                + "\(disk.count) files of \(disk.bytes) bytes")
    }
    if pinEvery > 0, statistics.pinnedCount > writers * ((keys + pinEvery - 1) / pinEvery) {
        failures.append("\(statistics.pinnedCount) entries are pinned, more than the pinned keys")
    }
    print(
        "verified \(present + absent) keys: \(present) present, \(absent) absent, \(failures.count) failures; "
            + "\(statistics.bytes) bytes of \(limit)")
    for failure in failures.prefix(20) { print("  FAIL \(failure)") }
    // A clean close: the disk cache saves its index snapshot, which the next cycle's writer opens from.
    await (backend as? DiskCache)?.close()
    return failures.isEmpty
}

/// The entry files (32 hex digits) in a disk cache's directory and their total size.
func entryFiles(in path: String) -> (count: Int, bytes: Int)? {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return nil }
    var total = (count: 0, bytes: 0)
    for name in names where name.count == 32 && name.allSatisfy(\.isHexDigit) {
        var info = stat()
        guard stat(path + "/" + name, &info) == 0 else { continue }
        total.count += 1
        total.bytes += Int(info.st_size)
    }
    return total
}
