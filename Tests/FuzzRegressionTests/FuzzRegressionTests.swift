import Foundation
@_spi(Fuzzing) import MediaAssets
@_spi(Fuzzing) import MediaAssetsAnimation
@_spi(Fuzzing) import MediaAssetsEncryption
@_spi(Fuzzing) import MediaAssetsHTTPServer
@_spi(Fuzzing) import MediaAssetsImage
@_spi(Fuzzing) import MediaAssetsRedis
@_spi(Fuzzing) import MediaAssetsVideo
@_spi(Fuzzing) import MediaAssetsVideoProxy
import Testing

/// Replays every input `Fuzz/run` kept in `Fuzz/Regressions/<target>/` through that target's parser, so a
/// crash libFuzzer found once stays fixed. A folder for a target this suite does not know fails the suite:
/// a new fuzz target adds its parser call to `parsers` here as well as to Fuzz/Sources/FuzzSupport.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    /// The parser call of each fuzz target, as in `FuzzTargets` (Fuzz/Sources/FuzzSupport/FuzzTargets.swift).
    static let parsers: [String: @Sendable (Data) -> Void] = [
        "jpeg": { data in
            decodeImage(data)
            fuzzJPEGRegionDecoder(data)
        },
        "jpeg-incremental": fuzzJPEGIncrementalDecoder,
        "png": { data in
            decodeImage(data)
            fuzzDisplaySizeDecoding(data)
        },
        "lottie": { data in _ = try? LottieDocument.parse(data) },
        "dotlottie": { data in _ = try? DotLottie.read(data) },
        "dotlottie-v2": fuzzDotLottieVersion2,
        "webp": { data in
            fuzzWebPDecoder(data)
            fuzzDisplaySizeDecoding(data)
        },
        "gif": fuzzGIFDecoder,
        "heif": { data in
            fuzzHEIFDecoder(data)
            fuzzDisplaySizeDecoding(data)
        },
        "thumbhash": fuzzThumbHash,
        "hls-playlist": fuzzHLSPlaylist,
        "http-request-head": fuzzHTTPRequestHead,
        "proxy-path": fuzzVideoProxyPath,
        "download-index": fuzzVideoDownloadIndex,
        "resp-reply": fuzzRESPReply,
        "disk-entry-file": { data in
            fuzzDiskEntryFile(data)
            fuzzIndexSnapshot(data)
            fuzzDiskPinsFile(data)
        },
        "animation-frames": readAnimationFrames,
        "sealed-entry": fuzzSealedEntry,
        "entity-tag": fuzzEntityTag,
        "http-headers": fuzzHTTPHeaders,
        "fetch-policy": fuzzFetchPolicy,
    ]

    static let regressions = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/Regressions", isDirectory: true)

    static func decodeImage(_ data: Data) {
        _ = try? ImageDecoder.header(of: data)
        _ = try? ImageDecoder.decode(data, options: ImageDecodingOptions(maxPixelCount: 1 << 22))
        _ = try? ImageDecoder.decode(
            data, options: ImageDecodingOptions(maxPixelCount: 1 << 22, targetSize: PixelSize(width: 7, height: 5))
        )
    }

    /// As `FuzzTargets.readAnimationFrames` (Fuzz/Sources/FuzzSupport/FuzzTargets.swift).
    static func readAnimationFrames(_ data: Data) {
        guard [.gif, .webp].contains(ImageFormat.sniff(data)) else { return }
        _ = try? ImageCodecRegistry.standard.animationInfo(of: data)
        let options = ImageDecodingOptions(maxPixelCount: 1 << 22, targetSize: PixelSize(width: 7, height: 5))
        guard let reader = try? AnimationFrameReader(data: data, options: options) else { return }
        var read = 0
        while read < 24, (try? reader.nextFrame()) != nil { read += 1 }
        for index in stride(from: min(read, reader.info.frameCount) - 1, through: 0, by: -3) {
            _ = try? reader.frame(at: index)
        }
    }

    static func inputs(in folder: URL) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { !$0.lastPathComponent.hasPrefix(".") }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    @Test("every regression folder belongs to a known fuzz target")
    func foldersAreKnown() throws {
        // Given the committed regression folders
        let folders = try Self.inputs(in: Self.regressions).map(\.lastPathComponent)

        // Then each one names a target whose parser this suite can replay
        #expect(!folders.isEmpty, "Fuzz/Regressions holds at least the PNG text-chunk input")
        for folder in folders {
            #expect(Self.parsers[folder] != nil, "Fuzz/Regressions/\(folder) has no parser in FuzzRegressionTests")
        }
    }

    @Test(
        "every kept input parses without crashing",
        arguments: [
            "jpeg", "jpeg-incremental", "png", "lottie", "dotlottie", "dotlottie-v2", "webp", "gif", "heif",
            "thumbhash", "hls-playlist", "http-request-head", "proxy-path", "resp-reply", "disk-entry-file",
            "animation-frames", "sealed-entry", "download-index", "entity-tag", "http-headers", "fetch-policy",
        ]
    )
    func replaysInputs(target: String) throws {
        // Given the inputs kept for `target` (a missing folder means none were ever kept)
        let folder = Self.regressions.appendingPathComponent(target, isDirectory: true)
        guard FileManager.default.fileExists(atPath: folder.path) else { return }
        let parse = try #require(Self.parsers[target])

        // When each one is parsed, Then the process survives (a crash ends the test run)
        var replayed = 0
        for input in try Self.inputs(in: folder) {
            parse(try Data(contentsOf: input))
            replayed += 1
        }
        #expect(replayed > 0, "Fuzz/Regressions/\(target) exists but is empty")
    }
}
