import Foundation
import MediaAssets
import Testing

@testable import MediaAssetsVideo

@Suite struct ChunkMathTests {
    @Test func layoutCutsTheLastChunkShort() {
        // Given 10 bytes in chunks of 4
        let layout = ChunkLayout(chunkSize: 4, length: 10)

        // Then there are 3 chunks, the last of 2 bytes
        #expect(layout.chunkCount == 3)
        #expect(layout.byteRange(ofChunk: 2) == 8..<10)
        #expect(layout.byteRange(ofChunk: 3) == 0..<0)
        #expect(layout.byteRange(ofChunk: -1) == 0..<0)
        #expect(layout.byteRange(ofChunks: 1..<3) == 4..<10)
        #expect(layout.chunks(covering: 3..<9) == 0..<3)
        #expect(layout.chunks(covering: 4..<8) == 1..<2)
        #expect(ChunkLayout(chunkSize: 4, length: 0).chunkCount == 0)
        #expect(ChunkLayout(chunkSize: 0, length: 3).chunkCount == 3)
    }

    @Test func layoutSurvivesHostileLengths() {
        // Given a length near Int.max
        let layout = ChunkLayout(chunkSize: 1 << 20, length: Int.max)

        // Then the last chunk's range does not overflow
        let last = layout.byteRange(ofChunk: layout.chunkCount - 1)
        #expect(last.upperBound == Int.max)
    }

    @Test func contentRangeParsesTheForms() {
        let full = ContentRange("bytes 0-99/1000")
        #expect(full?.range == 0..<100 && full?.total == 1_000)
        let unknownTotal = ContentRange("bytes 5-5/*")
        #expect(unknownTotal?.range == 5..<6 && unknownTotal?.total == nil)
        let unsatisfied = ContentRange("bytes */0")
        #expect(unsatisfied != nil && unsatisfied?.range == nil && unsatisfied?.total == 0)
        #expect(ContentRange(" bytes 0-0/1 ")?.range == 0..<1)
    }

    @Test(arguments: [
        "bytes 9-3/10", "bytes 0-10/10", "items 0-1/2", "bytes -1-3/10", "bytes 0-3", "bytes */*",
        "bytes 0-99999999999999999999/1", "", "bytes 1-2/-5",
    ])
    func contentRangeRejectsMalformedHeaders(_ header: String) {
        #expect(ContentRange(header) == nil)
    }

    @Test func chunkRecordRejectsForeignBytes() throws {
        // Given a record, its encoding, and some junk
        let record = ChunkRecord(info: VideoContentInfo(length: 10, etag: "\"a\""), chunkSize: 4)

        // Then the encoding round-trips and junk decodes to nil
        #expect(ChunkRecord.decode(try record.encoded()) == record)
        #expect(ChunkRecord.decode(Data("{}".utf8)) == nil)
        #expect(ChunkRecord.decode(Data([0xFF, 0x00])) == nil)
    }
}

@Suite("Video validators")
struct VideoValidatorTests {
    private func response(_ headers: [String: String]) -> ResponseHead {
        ResponseHead(url: URL(string: "https://cdn.example.com/v.mp4")!, statusCode: 206, headers: headers)
    }

    @Test func a206OfAnotherVersionIsNotSpliced() {
        let strong = VideoContentInfo(length: 100, contentType: "video/mp4", etag: "\"v1\"", lastModified: nil)
        let weak = VideoContentInfo(length: 100, contentType: "video/mp4", etag: "W/\"v1\"", lastModified: nil)
        let dated = VideoContentInfo(
            length: 100, contentType: "video/mp4", etag: nil, lastModified: "Wed, 21 Oct 2015 07:28:00 GMT"
        )
        #expect(!VideoUtil.validatorsDiffer(response(["ETag": "\"v1\""]), from: strong))
        #expect(!VideoUtil.validatorsDiffer(response(["ETag": "\"v1\""]), from: weak), "weak comparison")
        #expect(VideoUtil.validatorsDiffer(response(["ETag": "W/\"v2\""]), from: weak))
        #expect(VideoUtil.validatorsDiffer(response(["Last-Modified": "Thu, 22 Oct 2015 07:28:00 GMT"]), from: dated))
        #expect(
            !VideoUtil.validatorsDiffer(response([:]), from: strong), "a response without validators proves nothing")
    }
}
