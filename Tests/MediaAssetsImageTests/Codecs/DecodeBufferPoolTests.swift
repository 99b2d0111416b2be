import Foundation
import Testing

@testable import MediaAssetsImage

@Suite("Decode buffer pool")
struct DecodeBufferPoolTests {
    @Test("decoding turned JPEGs one after another reuses one buffer")
    func reusesAcrossDecodes() throws {
        // Given a private pool and a JPEG that must be turned upright
        let pool = DecodeBufferPool(maximumBufferCount: 2, maximumIdleBytes: 1 << 20)
        let data = try JPEGRegionDecodingTests.detailedJPEG(
            width: 64, height: 48, app1: CodecFixtures.exifPayload(orientation: 6, bigEndian: true)
        )

        // When it is decoded three times, the last time only a region
        let decode = { (options: ImageDecodingOptions) in
            try data.withUnsafeBytes { try ImageDecoder.decodeJPEG($0, options: options, pool: pool) }
        }
        let first = try decode(ImageDecodingOptions())
        let second = try decode(ImageDecodingOptions())
        _ = try decode(ImageDecodingOptions(regionOfInterest: .centered(aspectRatio: .square(1))))

        // Then one buffer was allocated and lent twice more, and reuse did not change the pixels
        #expect(pool.counts == DecodeBufferPool.Counts(allocations: 1, reuses: 2))
        #expect(first == second)
        #expect(first.width == 48 && first.height == 64)
    }

    @Test("upright JPEGs need no intermediate buffer")
    func uprightNeedsNone() throws {
        // Given
        let pool = DecodeBufferPool(maximumBufferCount: 2, maximumIdleBytes: 1 << 20)
        let data = try JPEGRegionDecodingTests.detailedJPEG(width: 64, height: 48)

        // When
        _ = try data.withUnsafeBytes { try ImageDecoder.decodeJPEG($0, options: .init(), pool: pool) }

        // Then
        #expect(pool.counts == DecodeBufferPool.Counts())
    }

    @Test("the pool keeps at most its bounds: buffers over the byte limit are freed, not kept")
    func bounded() {
        // Given a pool of two buffers and 1000 bytes
        let pool = DecodeBufferPool(maximumBufferCount: 2, maximumIdleBytes: 1000)

        // When asks come one after another: too large twice, then small ones
        for byteCount in [2000, 2000, 400, 400, 300] {
            pool.withBuffer(byteCount: byteCount) { buffer in
                buffer.initializeMemory(as: UInt8.self, repeating: 1)
                #expect(buffer.count == byteCount)
            }
        }

        // Then the large ones were never kept; the 400-byte buffer served the later asks
        #expect(pool.counts == DecodeBufferPool.Counts(allocations: 3, reuses: 2))
    }

    @Test("concurrent decodes each get their own buffer and correct pixels")
    func concurrent() async throws {
        // Given
        let pool = DecodeBufferPool(maximumBufferCount: 4, maximumIdleBytes: 1 << 22)
        let data = try JPEGRegionDecodingTests.detailedJPEG(
            width: 64, height: 48, app1: CodecFixtures.exifPayload(orientation: 8, bigEndian: false)
        )
        let expected = try ImageDecoder.decode(data)

        // When 32 decodes run at once
        let results = try await withThrowingTaskGroup(of: Image.self) { group in
            for _ in 0..<32 {
                group.addTask {
                    try data.withUnsafeBytes { try ImageDecoder.decodeJPEG($0, options: .init(), pool: pool) }
                }
            }
            return try await group.reduce(into: [Image]()) { $0.append($1) }
        }

        // Then every result is right and every ask was counted once
        #expect(results.allSatisfy { $0 == expected })
        let counts = pool.counts
        #expect(counts.allocations + counts.reuses == 32)
        #expect(counts.allocations <= 32)
    }
}
