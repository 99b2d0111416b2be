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

    private static func brand(_ bytes: [UInt8], at offset: Int) -> String {
        String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
    }
}
