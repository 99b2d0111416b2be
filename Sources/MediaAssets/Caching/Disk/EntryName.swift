/// The name of an entry file: 128 bits from two XXH64 hashes of the key, written as 32 lowercase hex
/// digits. The index holds names in this form (16 bytes, no allocation) rather than as strings.
struct EntryName: Hashable, Sendable, CustomStringConvertible {
    var high: UInt64
    var low: UInt64

    init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The name of the file holding `key`'s entry.
    init(key: CacheKey) {
        var text = key.rawValue
        (high, low) = text.withUTF8 { utf8 in
            let bytes = UnsafeRawBufferPointer(utf8)
            return (XXHash64.hash(bytes, seed: 0), XXHash64.hash(bytes, seed: 0x9E37_79B9_7F4A_7C15))
        }
    }

    /// Parses a directory entry's name: exactly 32 lowercase hex digits, or nil.
    init?(fileName bytes: UnsafeRawBufferPointer) {
        guard bytes.count == 32 else { return nil }
        var high: UInt64 = 0
        var low: UInt64 = 0
        for (position, byte) in bytes.enumerated() {
            let digit: UInt64
            switch byte {
            case 48...57: digit = UInt64(byte - 48)
            case 97...102: digit = UInt64(byte - 87)
            default: return nil
            }
            if position < 16 { high = high << 4 | digit } else { low = low << 4 | digit }
        }
        self.init(high: high, low: low)
    }

    /// Parses a file name: exactly 32 lowercase hex digits, or nil.
    init?(fileName: String) {
        var name = fileName
        guard let parsed = name.withUTF8({ EntryName(fileName: UnsafeRawBufferPointer($0)) }) else { return nil }
        self = parsed
    }

    /// The file name: 32 lowercase hex digits.
    var description: String {
        String(unsafeUninitializedCapacity: 32) { buffer in
            writeDigits(into: UnsafeMutableRawBufferPointer(buffer))
            return 32
        }
    }

    /// Writes the 32 hex digits of the file name at the start of `buffer` (at least 32 bytes).
    func writeDigits(into buffer: UnsafeMutableRawBufferPointer) {
        let digits: StaticString = "0123456789abcdef"
        digits.withUTF8Buffer { table in
            for position in 0..<16 {
                let shift = UInt64(60 - 4 * position)
                buffer[position] = table[Int(high >> shift & 0xF)]
                buffer[16 + position] = table[Int(low >> shift & 0xF)]
            }
        }
    }
}
