import Foundation

/// The disk cache's pins as they are saved in `.pins`: the pin rules and the names of the entry files
/// they cover, so that opening knows which files are pinned without reading any file's header.
///
/// ```
/// offset  size  field
///      0     4  magic "MAPN"
///      4     2  format version (1)
///      6     2  reserved (0)
///      8     4  pin count
///     12     4  name count
///     16        pins: kind (1 byte: 0 key, 1 asset), key length (UInt32), the key's UTF-8 bytes
///               names: 16 bytes each (the two hashes of `EntryName`)
///    end     8  XXH64 of everything before
/// ```
/// All integers are little-endian. The file is replaced (a temporary file renamed into place) before
/// an entry file it lists is renamed into place, so after a crash every pinned file is listed; a
/// listed name without a file is ignored. A damaged file reads as no pins.
enum PinsFile: LittleEndianFormat {
    static let fileName = ".pins"
    static let magic: [UInt8] = Array("MAPN".utf8)
    static let formatVersion: UInt16 = 1
    static let headerLength = 16

    /// Why a pins file was not used.
    enum Corruption: Error {
        case tooShort, badMagic, unsupportedVersion, badLength, checksumMismatch
    }

    static func encode(pins: PinSet, names: Set<EntryName>) -> [UInt8] {
        var bytes = magic
        append(formatVersion, to: &bytes)
        append(UInt16(0), to: &bytes)
        let all = pins.pins
        append(UInt32(all.count), to: &bytes)
        append(UInt32(names.count), to: &bytes)
        for pin in all {
            if case .asset = pin { bytes.append(1) } else { bytes.append(0) }
            let key = Array(pin.key.rawValue.utf8)
            append(UInt32(key.count), to: &bytes)
            bytes += key
        }
        for name in names {
            append(name.high, to: &bytes)
            append(name.low, to: &bytes)
        }
        let checksum = bytes.withUnsafeBytes { XXHash64.hash($0) }
        append(checksum, to: &bytes)
        return bytes
    }

    static func decode(_ bytes: UnsafeRawBufferPointer) throws(Corruption) -> (pins: PinSet, names: Set<EntryName>) {
        guard bytes.count >= headerLength + 8 else { throw .tooShort }
        guard bytes.prefix(4).elementsEqual(magic) else { throw .badMagic }
        guard read(UInt16.self, bytes, 4) == formatVersion else { throw .unsupportedVersion }
        let end = bytes.count - 8
        let body = UnsafeRawBufferPointer(rebasing: bytes[..<end])
        guard XXHash64.hash(body) == read(UInt64.self, bytes, end) else { throw .checksumMismatch }
        let pinCount = Int(read(UInt32.self, bytes, 8))
        let nameCount = Int(read(UInt32.self, bytes, 12))
        var offset = headerLength
        var pins = PinSet()
        for _ in 0..<pinCount {
            guard end - offset >= 5, bytes[offset] <= 1 else { throw .badLength }
            let isAsset = bytes[offset] == 1
            let length = Int(read(UInt32.self, bytes, offset + 1))
            offset += 5
            guard end - offset >= length else { throw .badLength }
            let key = CacheKey(
                String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length]), as: UTF8.self))
            offset += length
            pins.insert(isAsset ? .asset(key) : .key(key))
        }
        // Compared by division: a hostile count must not overflow.
        guard (end - offset) % 16 == 0, (end - offset) / 16 == nameCount else { throw .badLength }
        var names = Set<EntryName>()
        names.reserveCapacity(nameCount)
        while offset < end {
            names.insert(EntryName(high: read(UInt64.self, bytes, offset), low: read(UInt64.self, bytes, offset + 8)))
            offset += 16
        }
        return (pins, names)
    }
}

/// Feeds arbitrary bytes to the disk cache's pins-file decoder as if they were the `.pins` file of a
/// cache directory; it must never crash, whatever the bytes.
///
/// Public for the libFuzzer targets in `Fuzz/` (a separate package).
@_spi(Fuzzing) public func fuzzDiskPinsFile(_ data: Data) {
    _ = data.withUnsafeBytes { try? PinsFile.decode($0) }
}
