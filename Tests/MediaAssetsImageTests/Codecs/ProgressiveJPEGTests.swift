import CJPEG
import Foundation
import Testing

@testable import MediaAssetsImage

/// Progressive JPEG both ways: a small target reads only the scans it shows, and a download is previewed scan
/// by scan through libjpeg-turbo's buffered-image mode.
@Suite("Progressive JPEG: scan-limited decoding and previews", .offThePool)
struct ProgressiveJPEGTests {
    static let picture = DisplaySizeFixtures.detailed(width: 640, height: 480)
    /// libjpeg's standard progression for YCbCr 4:2:0: 10 scans.
    static var progressive: Data { Data(progressiveBytes) }
    /// Kept as an array: a `Data` in a static holds its storage through a reference whose spare bits carry the
    /// representation's case, which LeakSanitizer does not read as a pointer (it reported the storage leaked).
    private static let progressiveBytes = [UInt8](
        try! CodecFixtures.jpeg(
            DisplaySizeFixtures.rgb(of: picture), width: 640, height: 480, quality: 90, progressive: true))

    /// Decodes with the C shim at DCT scale `scale`/8, skipping unneeded scans when asked; returns the pixels and
    /// how many scans were left out, or the failure's status.
    static func shimDecode(_ data: Data, scale: Int32, skipping: Bool, scanLimit: Int32? = nil)
        -> (status: cjpeg_status, skipped: Int32, pixels: [UInt8])
    {
        data.withUnsafeBytes { bytes in
            let decoder = cjpeg_decoder_create(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count)
            defer { cjpeg_decoder_destroy(decoder) }
            if let scanLimit { cjpeg_decoder_set_scan_limit(decoder, scanLimit) }
            cjpeg_decoder_set_skips_unneeded_scans(decoder, skipping ? 1 : 0)
            var header = cjpeg_header()
            var width: Int32 = 0
            var height: Int32 = 0
            guard cjpeg_read_header(decoder, &header) == CJPEG_OK else { return (CJPEG_ERROR_CORRUPT, 0, []) }
            let started = cjpeg_start(decoder, scale, &width, &height)
            guard started == CJPEG_OK else { return (started, cjpeg_decoder_scans_skipped(decoder), []) }
            var pixels = [UInt8](repeating: 0, count: Int(width * height * 4))
            let read = cjpeg_read_pixels(decoder, &pixels, Int(width) * 4, pixels.count)
            return (read, cjpeg_decoder_scans_skipped(decoder), pixels)
        }
    }

    @Test("at 1/8 scale the four luma AC scans are left out and the output is the every-scan decode's, exactly")
    func eighthScaleSkipsLumaACScans() throws {
        let limited = Self.shimDecode(Self.progressive, scale: 1, skipping: true)
        let every = Self.shimDecode(Self.progressive, scale: 1, skipping: false)
        #expect(limited.status == CJPEG_OK && every.status == CJPEG_OK)
        #expect(limited.skipped == 4)
        #expect(limited.pixels == every.pixels)
    }

    @Test("where every scan refines what the output reads, none is left out", arguments: [2, 4, 8] as [Int32])
    func largerScalesKeepEveryScan(scale: Int32) throws {
        let limited = Self.shimDecode(Self.progressive, scale: scale, skipping: true)
        #expect(limited.status == CJPEG_OK)
        #expect(limited.skipped == 0)
        #expect(limited.pixels == Self.shimDecode(Self.progressive, scale: scale, skipping: false).pixels)
    }

    @Test("avatars through the decoder are the same with and without scan limiting", arguments: [8, 24, 48, 96, 200])
    func avatarsAreUnchanged(size: Int) throws {
        let options = ImageDecodingOptions(
            targetSize: .square(size), regionOfInterest: .centered(aspectRatio: .square(1)))
        let limited = try Self.progressive.withUnsafeBytes { try ImageDecoder.decodeJPEG($0, options: options) }
        let every = try Self.progressive.withUnsafeBytes {
            try ImageDecoder.decodeJPEG($0, options: options, skipsUnneededScans: false)
        }
        #expect(limited == every)
    }

    @Test("a cut file is truncated, whether the cut falls in a kept or a left-out scan")
    func truncationIsSeen() throws {
        let options = ImageDecodingOptions(targetSize: .square(8))
        for cut in stride(
            from: Self.progressive.count / 10, to: Self.progressive.count, by: Self.progressive.count / 10)
            + [Self.progressive.count - 1]
        {
            #expect {
                try ImageDecoder.decode(Self.progressive.prefix(cut), options: options)
            } throws: { error in
                guard case .truncated(.jpeg, _) = error as? ImageError else { return false }
                return true
            }
        }
    }

    @Test("the scan limit still holds when scans would be left out")
    func scanLimitHolds() throws {
        let limited = Self.shimDecode(Self.progressive, scale: 1, skipping: true, scanLimit: 3)
        #expect(limited.status == CJPEG_ERROR_CORRUPT)
    }

    // MARK: Previews

    /// Feeds `data` in pieces of `pieceSize` to a new incremental decoder; returns the previews, the most bytes
    /// the decoder held between pieces, and the decoder.
    static func previews(of data: Data, options: ImageDecodingOptions, pieceSize: Int) throws
        -> (previews: [Image], mostBuffered: Int, decoder: JPEGIncrementalDecoder)
    {
        let decoder = try JPEGIncrementalDecoder(options: options)
        var previews: [Image] = []
        var mostBuffered = 0
        var offset = 0
        while offset < data.count {
            let end = min(offset + pieceSize, data.count)
            if let preview = try decoder.append(data.subdata(in: offset..<end)) { previews.append(preview) }
            mostBuffered = max(mostBuffered, decoder.bufferedByteCount)
            offset = end
        }
        return (previews, mostBuffered, decoder)
    }

    @Test("previews come scan by scan, each closer to the final image; the final render equals a normal decode")
    func previewsInOrder() throws {
        // Given the file fed 64 bytes at a time (less than any scan), previewed at full size (every scan changes
        // what it shows)
        let final = try ImageDecoder.decode(Self.progressive)

        // When
        let (previews, mostBuffered, decoder) = try Self.previews(
            of: Self.progressive, options: ImageDecodingOptions(), pieceSize: 64)

        // Then a preview for each of the 10 scans but the last (shown once the next scan begins; the last ends
        // at EOI), getting closer to the final image (libjpeg's smoothing of missing coefficients can cost a
        // refinement scan a fraction of a dB); the render after EOI equals a normal decode; and the decoder never
        // held more than a few pieces' worth of the body
        #expect(previews.count == 9)
        let distances = previews.map { DisplaySizeFixtures.psnr($0, final) }
        for (earlier, later) in zip(distances, distances.dropFirst()) { #expect(later >= earlier - 1) }
        let (first, last) = (try #require(distances.first), try #require(distances.last))
        #expect(last >= first + 10, "\(distances)")
        #expect(try decoder.decodeFinalImage() == final)
        #expect(mostBuffered < 4_096, "held \(mostBuffered) bytes")
    }

    @Test("previews have the final decode's size and region; scans that change nothing shown give none")
    func previewsAtDisplaySize() throws {
        // Given a 24 px circle's options: 1/8 scale (60 px), where only the DC and chroma scans change the output
        let options = ImageDecodingOptions(
            targetSize: .square(24), regionOfInterest: .centered(aspectRatio: .square(1)))
        let final = try ImageDecoder.decode(Self.progressive, options: options)

        // When previewed 64 bytes at a time
        let (previews, _, decoder) = try Self.previews(of: Self.progressive, options: options, pieceSize: 64)

        // Then the six scans that change the output (DC, chroma and their refinements) give six previews of the
        // final geometry, the four luma AC scans none, and the final render matches the normal decode
        #expect(previews.count == 6)
        for preview in previews { #expect(preview.width == final.width && preview.height == final.height) }
        #expect(DisplaySizeFixtures.psnr(try #require(try decoder.decodeFinalImage()), final) > 45)
    }

    @Test("a baseline JPEG gives no previews")
    func baselineGivesNone() throws {
        let baseline = try ImageEncoder.jpeg(Self.picture, quality: 90)
        #expect(try Self.previews(of: baseline, options: ImageDecodingOptions(), pieceSize: 500).previews.isEmpty)
    }

    @Test("the registry makes a preview decoder for JPEG bytes only")
    func registryMakesDecoderForJPEG() throws {
        let registry = ImageCodecRegistry.standard
        #expect(registry.makeIncrementalDecoder(leadingBytes: Self.progressive.prefix(16), options: .init()) != nil)
        let png = try ImageEncoder.png(Image(width: 2, height: 2, fill: .white))
        #expect(registry.makeIncrementalDecoder(leadingBytes: png.prefix(16), options: .init()) == nil)
    }

    @Test("a header over the pixel limit is refused as soon as it arrives")
    func pixelLimitAtHeader() throws {
        var options = ImageDecodingOptions()
        options.maxPixelCount = 640 * 480 - 1
        let decoder = try JPEGIncrementalDecoder(options: options)
        #expect(throws: ImageError.tooManyPixels(width: 640, height: 480, limit: 640 * 480 - 1)) {
            _ = try decoder.append(Self.progressive.prefix(2_000))
        }
    }

    @Test("corrupt bytes throw ImageError and the decoder stays failed")
    func corruptionIsSticky() throws {
        // Given the file with its second half replaced by marker-like garbage
        var data = Self.progressive.prefix(Self.progressive.count / 2)
        data.append(Data(repeating: 0xFF, count: 10) + Data([0xC0, 0x00, 0x01]) + Data(repeating: 0x55, count: 500))
        let decoder = try JPEGIncrementalDecoder(options: ImageDecodingOptions())

        // When fed / Then it throws once the garbage is reached, and again on the next piece
        #expect(throws: ImageError.self) {
            var offset = 0
            while offset < data.count {
                _ = try decoder.append(data.subdata(in: offset..<min(offset + 1_000, data.count)))
                offset += 1_000
            }
        }
        #expect(throws: ImageError.self) { _ = try decoder.append(Data([0, 0, 0])) }
    }
}
