/// How the size limit is shared out among the files a SQLite cache occupies, so that together
/// they stay within it: the database file, its WAL, its shared-memory index and a reserve file.
///
/// The entries' data bytes stay within `sizeLimit` exactly (statistics report them); the files
/// also hold pages, indexes and the WAL, so the database additionally evicts when its used pages
/// pass `databasePages`. Tiny limits get a floor: an empty database with its WAL already takes
/// about 100 KiB, so the files stay within `max(sizeLimit, minimumFileBytes)`.
struct SQLiteDiskBudget: Sendable {
    /// The least the files are allowed, whatever the limit.
    static let minimumFileBytes = 1 << 20
    /// SQLite's shared-memory file for WAL readers (`-shm`), a fixed 32 KiB.
    static let sharedMemoryBytes = 32 << 10

    /// What all files together may occupy.
    let fileBytes: Int
    /// The WAL size at which a write checkpoints it and truncates it to zero.
    let walBytes: Int
    /// A file of this size kept beside the database and released when the filesystem is full, so
    /// that deletes (which append to the WAL) can run and free space.
    let reserveBytes: Int
    /// The least reserve worth keeping (what one write adds to the WAL), or the budgeted one if smaller.
    let minimumReserveBytes: Int
    /// The database's page size.
    let pageSize: Int
    /// The most pages of the database file that may be in use (not on its free list).
    let databasePages: Int
    /// The used pages a page-driven sweep evicts down to.
    let lowWaterPages: Int

    /// A budget for `sizeLimit`; `filesystemRoom` (the free space at open plus what the cache's
    /// files already hold) caps the WAL and the reserve on a filesystem smaller or fuller than the
    /// limit, so the WAL is checkpointed while the database can still take its pages.
    init(sizeLimit: Int, lowWaterFraction: Double, pageSize: Int, filesystemRoom: Int? = nil) {
        fileBytes = max(sizeLimit, Self.minimumFileBytes)
        self.pageSize = max(512, pageSize)
        let room = min(fileBytes, filesystemRoom ?? .max)
        walBytes = min(max(room / 8, 64 << 10), 4 << 20)
        // Where the filesystem, not the limit, bounds the files, it fills before the limit is
        // reached: the reserve must then hold at least what one write needs.
        let filesystemBound = room < fileBytes
        let smallestReserve = filesystemBound ? Self.minimumReserveBytes(pageSize: self.pageSize) : 64 << 10
        reserveBytes = min(max(room / 16, smallestReserve), max(1 << 20, smallestReserve))
        minimumReserveBytes = min(reserveBytes, Self.minimumReserveBytes(pageSize: self.pageSize))
        let databaseBytes = fileBytes - walBytes - reserveBytes - Self.sharedMemoryBytes
        databasePages = databaseBytes / self.pageSize
        lowWaterPages = Int(Double(databasePages) * lowWaterFraction)
    }

    /// The reserve sizes to try, largest first: the budgeted size, then halves of it down to
    /// `minimumReserveBytes`, which is always tried (the filesystem may have filled since open).
    var reserveSizes: [Int] {
        var size = reserveBytes
        var sizes: [Int] = []
        while size > minimumReserveBytes {
            sizes.append(size)
            size /= 2
        }
        return sizes + [minimumReserveBytes]
    }

    /// The WAL frames of one delete or small insert — the row's leaf, the key, expiry and partition
    /// indexes, the access order and its index, the totals, the pins, the free-list trunk and the
    /// header: 10 pages — and the WAL's own header.
    static func minimumReserveBytes(pageSize: Int) -> Int { 10 * (pageSize + 24) + 32 }

    /// The pages an entry of `size` bytes under a key of `keyLength` bytes will use, a little high:
    /// its row spills into overflow pages of `pageSize - 4` bytes, and its key is in two indexes.
    func estimatedPages(size: Int, keyLength: Int) -> Int {
        let bytes = size + 2 * keyLength + 128
        return (bytes + pageSize - 5) / (pageSize - 4) + 1
    }
}
