import Foundation

/// A read-only view of a zip archive held in memory: its central directory and its entries' bytes.
///
/// Supports stored (0) and deflate (8) entries, verifies every CRC-32, and refuses ZIP64,
/// multi-disk and encrypted archives. Sizes, entry counts, ratios and paths are checked against
/// `DotLottieReadingOptions` when the directory is read, before any entry is inflated.
struct ZipArchive {
    let data: Data
    /// Entries in central-directory order.
    let entries: [ZipEntry]
    /// Where the central directory starts; entry data must end before it.
    private let centralDirectoryOffset: Int
    /// Positions in `entries` by name (names are unique).
    private let positionsByName: [String: Int]

    init(data: Data, options: DotLottieReadingOptions) throws {
        guard data.count <= options.maximumArchiveSize else {
            throw DotLottieError.archiveTooLarge(size: data.count, limit: options.maximumArchiveSize)
        }
        self.data = data
        let bytes = ZipBytes(data: data)
        let end = try Self.findEndOfCentralDirectory(bytes)
        guard try bytes.uint16(at: end + 4) == 0, try bytes.uint16(at: end + 6) == 0 else {
            throw DotLottieError.unsupportedArchive(reason: "multi-disk archives are not supported")
        }
        let entryCount = Int(try bytes.uint16(at: end + 10))
        let directorySize = Int(try bytes.uint32(at: end + 12))
        let directoryOffset = Int(try bytes.uint32(at: end + 16))
        guard entryCount != 0xFFFF, directoryOffset != 0xFFFF_FFFF, directorySize != 0xFFFF_FFFF else {
            throw DotLottieError.unsupportedArchive(reason: "ZIP64 archives are not supported")
        }
        guard entryCount <= options.maximumEntryCount else {
            throw DotLottieError.tooManyEntries(count: entryCount, limit: options.maximumEntryCount)
        }
        guard directoryOffset + directorySize <= end else {
            throw DotLottieError.corruptArchive(offset: end, reason: "the central directory overlaps its end record")
        }
        centralDirectoryOffset = directoryOffset
        entries = try Self.readCentralDirectory(bytes, offset: directoryOffset, count: entryCount, options: options)
        positionsByName = Dictionary(uniqueKeysWithValues: entries.enumerated().map { ($1.name, $0) })
    }

    /// The entry named `name`, if any.
    func entry(named name: String) -> ZipEntry? {
        positionsByName[name].map { entries[$0] }
    }

    /// Finds the end-of-central-directory record, scanning back over a comment of up to 64 KiB.
    private static func findEndOfCentralDirectory(_ bytes: ZipBytes) throws -> Int {
        let minimumLength = 22
        guard bytes.count >= minimumLength else { throw DotLottieError.notAZipArchive }
        let lowest = max(0, bytes.count - minimumLength - 0xFFFF)
        var candidate = bytes.count - minimumLength
        while candidate >= lowest {
            if try bytes.uint32(at: candidate) == 0x0605_4B50 { return candidate }
            candidate -= 1
        }
        throw DotLottieError.notAZipArchive
    }

    private static func readCentralDirectory(
        _ bytes: ZipBytes, offset: Int, count: Int, options: DotLottieReadingOptions
    ) throws -> [ZipEntry] {
        var entries: [ZipEntry] = []
        entries.reserveCapacity(count)
        var names = Set<String>()
        var declaredTotal = 0
        var position = offset
        for _ in 0..<count {
            guard try bytes.uint32(at: position) == 0x0201_4B50 else {
                throw DotLottieError.corruptArchive(offset: position, reason: "expected a central directory entry")
            }
            let nameLength = Int(try bytes.uint16(at: position + 28))
            let extraLength = Int(try bytes.uint16(at: position + 30))
            let commentLength = Int(try bytes.uint16(at: position + 32))
            let nameBytes = try bytes.slice(at: position + 46, count: nameLength)
            let name = String(decoding: nameBytes, as: UTF8.self)
            guard String(validating: nameBytes, as: UTF8.self) != nil, ZipEntry.isSafePath(name) else {
                throw DotLottieError.unsafePath(entry: name)
            }
            guard names.insert(name).inserted else { throw DotLottieError.duplicateEntry(name) }
            let entry = ZipEntry(
                name: name,
                method: Int(try bytes.uint16(at: position + 10)),
                flags: try bytes.uint16(at: position + 8),
                crc32: try bytes.uint32(at: position + 16),
                compressedSize: Int(try bytes.uint32(at: position + 20)),
                uncompressedSize: Int(try bytes.uint32(at: position + 24)),
                localHeaderOffset: Int(try bytes.uint32(at: position + 42))
            )
            try checkDeclaredSizes(of: entry, options: options)
            declaredTotal += entry.uncompressedSize
            guard declaredTotal <= options.maximumTotalUncompressedSize else {
                throw DotLottieError.uncompressedSizeLimitExceeded(
                    declaredTotal: declaredTotal, limit: options.maximumTotalUncompressedSize
                )
            }
            entries.append(entry)
            position += 46 + nameLength + extraLength + commentLength
        }
        return entries
    }

    /// Refuses encrypted entries, unknown methods and bomb-like ratios before any inflation.
    private static func checkDeclaredSizes(of entry: ZipEntry, options: DotLottieReadingOptions) throws {
        guard entry.flags & 1 == 0 else {
            throw DotLottieError.unsupportedArchive(reason: "entry \(entry.name) is encrypted")
        }
        guard entry.method == 0 || entry.method == 8 else {
            throw DotLottieError.unsupportedCompression(entry: entry.name, method: entry.method)
        }
        if entry.method == 0, entry.compressedSize != entry.uncompressedSize {
            throw DotLottieError.sizeMismatch(
                entry: entry.name, declared: entry.uncompressedSize, actual: entry.compressedSize
            )
        }
        let ratio = entry.uncompressedSize / max(entry.compressedSize, 1)
        if entry.uncompressedSize > options.compressionRatioFloor, ratio > options.maximumCompressionRatio {
            throw DotLottieError.compressionRatioExceeded(
                entry: entry.name, ratio: ratio, limit: options.maximumCompressionRatio
            )
        }
    }

    /// The uncompressed bytes of `entry`, with its size and CRC-32 verified.
    ///
    /// Inflation writes at most the declared size plus one byte (to detect a longer stream).
    func contents(of entry: ZipEntry) throws -> Data {
        let bytes = ZipBytes(data: data)
        let header = entry.localHeaderOffset
        guard try bytes.uint32(at: header) == 0x0403_4B50 else {
            throw DotLottieError.corruptArchive(offset: header, reason: "expected a local header for \(entry.name)")
        }
        let start = header + 30 + Int(try bytes.uint16(at: header + 26)) + Int(try bytes.uint16(at: header + 28))
        guard start + entry.compressedSize <= centralDirectoryOffset else {
            throw DotLottieError.corruptArchive(offset: header, reason: "entry \(entry.name) runs past its data area")
        }
        let compressed = try bytes.slice(at: start, count: entry.compressedSize)
        let contents =
            entry.method == 0
            ? Data(compressed)
            : try ZipInflater.inflate(compressed, declaredSize: entry.uncompressedSize, entryName: entry.name)
        let checksum = ZipInflater.crc32(of: contents)
        guard checksum == entry.crc32 else {
            throw DotLottieError.checksumMismatch(entry: entry.name, expected: entry.crc32, actual: checksum)
        }
        return contents
    }
}

/// One file listed in a zip archive's central directory.
struct ZipEntry: Sendable {
    /// The entry's path inside the archive, already checked to stay inside it.
    let name: String
    /// 0 for stored, 8 for deflate.
    let method: Int
    /// General-purpose flags; bit 0 means encrypted.
    let flags: UInt16
    let crc32: UInt32
    let compressedSize: Int
    let uncompressedSize: Int
    let localHeaderOffset: Int

    /// Directory entries end with a slash and hold no data.
    var isDirectory: Bool { name.hasSuffix("/") }

    /// Whether `name` stays inside the archive when extracted or resolved.
    ///
    /// Refuses empty names, absolute paths, backslashes (Windows separators), drive letters,
    /// NUL bytes and any `..` component.
    static func isSafePath(_ name: String) -> Bool {
        guard !name.isEmpty, !name.hasPrefix("/"), !name.contains("\\"), !name.contains("\0") else { return false }
        let components = name.split(separator: "/", omittingEmptySubsequences: false)
        if let first = components.first, first.contains(":") { return false }
        return !components.contains("..")
    }
}

/// Bounds-checked little-endian reads from archive bytes; a read past the end throws `corruptArchive`.
struct ZipBytes {
    let data: Data

    var count: Int { data.count }

    func uint16(at offset: Int) throws -> UInt16 {
        let bytes = try slice(at: offset, count: 2)
        return UInt16(bytes[bytes.startIndex]) | UInt16(bytes[bytes.startIndex + 1]) << 8
    }

    func uint32(at offset: Int) throws -> UInt32 {
        let bytes = try slice(at: offset, count: 4)
        var value: UInt32 = 0
        for (shift, byte) in bytes.enumerated() { value |= UInt32(byte) << (8 * UInt32(shift)) }
        return value
    }

    /// The `count` bytes at `offset` (relative to the start of the archive).
    func slice(at offset: Int, count length: Int) throws -> Data {
        guard offset >= 0, length >= 0, offset <= data.count - length else {
            throw DotLottieError.corruptArchive(offset: offset, reason: "a record runs past the end of the archive")
        }
        let start = data.startIndex + offset
        return data[start..<(start + length)]
    }
}
