import Foundation
import TestSupport
import Testing

@_spi(Fuzzing) @testable import MediaAssets

/// Deterministic mutations of real entry files through `fuzzDiskEntryFile`, which must not crash.
@Suite("DiskCache entry-file parser under mutation", .offThePool)
struct DiskCacheEntryFileFuzzTests {
    /// A valid file in format `version` (1 or 2, as an older release wrote it, or 3): a header with
    /// every field set, then the body.
    static func validFile(version: Int = 3) -> [UInt8] {
        let metadata = CacheMetadata(
            expires: Date(timeIntervalSinceReferenceDate: 9_000), etag: "\"e\"", lastModified: "yesterday",
            contentType: "image/png", staleWhileRevalidateUntil: Date(timeIntervalSinceReferenceDate: 8_000),
            staleIfErrorUntil: Date(timeIntervalSinceReferenceDate: 8_500), partition: .image
        )
        let entry = CacheEntry(data: Data((0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7) }), metadata: metadata)
        let key: CacheKey = "https://example.com/a.png"
        switch version {
        case 1: return LegacyEntryFile.encode(version: 1, key: key, entry: entry)
        case 2: return LegacyEntryFile.encode(version: 2, key: key, entry: entry)
        default: return EntryFile.encodeHeader(key: key, entry: entry) + Array(entry.data)
        }
    }

    @Test func validFileDecodesAndVerifies() throws {
        let file = Self.validFile()
        let header = try file.withUnsafeBytes { try EntryFile.decodeHeader($0, fileSize: file.count) }
        #expect(header.key == "https://example.com/a.png" && header.metadata.partition == .image)
        fuzzDiskEntryFile(Data(file))
    }

    @Test(arguments: [1, 2, 3])
    func tenThousandMutationsNeverCrash(version: Int) {
        // Given a seeded generator and a valid file of each format version
        var generator = SeededGenerator(seed: 0xD15C)
        let valid = Self.validFile(version: version)
        var decoded = 0

        // When bytes are flipped, lengths overwritten with extremes, and the file cut or extended
        for _ in 0..<10_000 {
            var file = valid
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                switch Int.random(in: 0..<4, using: &generator) {
                case 0 where !file.isEmpty:
                    let position = Int.random(in: 0..<file.count, using: &generator)
                    file[position] ^= UInt8.random(in: 1...255, using: &generator)
                case 1:
                    // A length field (header, key, body, slot capacity, a slot's used length or a
                    // string length) set to an extreme, or the version field relabelled.
                    let offsets =
                        version == 3 ? [4, 8, 12, 16, 32, 56, 104, 108, 112, 116] : [4, 8, 12, 16, 20, 56, 60, 64, 68]
                    let offset = offsets.randomElement(using: &generator)!
                    guard file.count >= offset + 4 else { continue }
                    let value: UInt32 = [0, 1, 2, 0x7FFF_FFFF, 0xFFFF_FFFF, 40, 72, 88].randomElement(
                        using: &generator)!
                    withUnsafeBytes(of: value.littleEndian) { file.replaceSubrange(offset..<offset + 4, with: $0) }
                case 2:
                    file = Array(file.prefix(Int.random(in: 0...file.count, using: &generator)))
                default:
                    let extra = Int.random(in: 1...64, using: &generator)
                    file += (0..<extra).map { _ in UInt8.random(in: 0...255, using: &generator) }
                }
                if file.count < 12 { break }
            }
            // Then the parser returns (a header or an error) without crashing
            fuzzDiskEntryFile(Data(file))
            let header = try? file.withUnsafeBytes { try EntryFile.decodeHeader($0, fileSize: file.count) }
            if header != nil { decoded += 1 }
        }
        // Some mutations (body bytes only) still decode: the generator reached the whole parser
        #expect(decoded > 0)
    }
}
