import Foundation

/// Tells HEIC from AVIF by the brands of an ISO-BMFF `ftyp` box, without libheif (so a missing library is
/// reported as such, not as an unknown format).
enum HEIFBrands {
    private static let heicBrands: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx"]
    private static let avifBrands: Set<String> = ["avif", "avis"]

    /// `.heic`, `.avif`, or `nil` when `data` does not start with an `ftyp` box naming either.
    ///
    /// The major brand decides; a generic major brand (`mif1`, `msf1`) defers to the compatible brands.
    static func format(of data: Data) -> ImageFormat? {
        let bytes = Array(data.prefix(64))
        guard bytes.count >= 16, Array(bytes[4..<8]) == Array("ftyp".utf8) else { return nil }
        let boxSize = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        let end = min(bytes.count, max(16, boxSize))
        var brands = [brand(bytes, at: 8)]
        var offset = 16
        while offset + 4 <= end {
            brands.append(brand(bytes, at: offset))
            offset += 4
        }
        for brand in brands {
            if heicBrands.contains(brand) { return .heic }
            if avifBrands.contains(brand) { return .avif }
        }
        return nil
    }

    /// Why `data` ends before its last top-level ISO-BMFF box does (a cut download), or `nil` when every box
    /// it starts fits. Checked before decoding: a thumbnail stored ahead of the cut would decode fine, and a
    /// cut file must never pass for a whole one.
    static func truncation(of data: Data) -> String? {
        var offset = 0
        let count = data.count
        let base = data.startIndex
        func uint32(at position: Int) -> Int {
            data[base + position..<base + position + 4].reduce(0) { $0 << 8 | Int($1) }
        }
        while count - offset >= 8 {
            var size = uint32(at: offset)
            var header = 8
            if size == 1 {
                guard count - offset >= 16 else { return "the box at byte \(offset) ends early" }
                let high = uint32(at: offset + 8)
                guard high < 1 << 30 else { return "the box at byte \(offset) declares an impossible size" }
                size = high << 32 | uint32(at: offset + 12)
                header = 16
            } else if size == 0 {
                return nil  // to the end of the file
            }
            guard size >= header else { return "the box at byte \(offset) declares \(size) bytes" }
            guard size <= count - offset else {
                return
                    "the box at byte \(offset) declares \(size) bytes but the file ends \(count - offset) bytes later"
            }
            offset += size
        }
        return nil
    }

    private static func brand(_ bytes: [UInt8], at offset: Int) -> String {
        String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
    }
}
