import Foundation
@_spi(Fuzzing) import MediaAssets
@_spi(Fuzzing) import MediaAssetsAnimation
@_spi(Fuzzing) import MediaAssetsEncryption
@_spi(Fuzzing) import MediaAssetsHTTPServer
@_spi(Fuzzing) import MediaAssetsImage
@_spi(Fuzzing) import MediaAssetsRedis
@_spi(Fuzzing) import MediaAssetsVideo
@_spi(Fuzzing) import MediaAssetsVideoProxy
import TestSupport
import Testing

/// Replays every input kept for a fuzz target through that target's parser: the crashes, leaks and timeouts
/// `Fuzz/run` kept in `Fuzz/Regressions/<target>/`, so a defect libFuzzer found once stays fixed, and the
/// minimised corpus in `Fuzz/Corpus/<target>/`, so every parser runs over the inputs that reach its code.
/// There is one case per folder that exists; a folder with no input, a folder for a target this suite does
/// not know, and a fuzz target (`Fuzz/Targets/<name>`) without a parser here or without a kept corpus fail
/// the suite: a new fuzz target adds its parser call to `parsers` here as well as to Fuzz/Sources/FuzzSupport.
@Suite("Fuzz regressions", .offThePool)
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
        "video-frame": fuzzVideoFrame,
    ]

    static let fuzz = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz", isDirectory: true)
    /// Inputs that once crashed, leaked, ran out of memory or timed out, kept with their fix.
    static let regressions = fuzz.appendingPathComponent("Regressions", isDirectory: true)
    /// Each target's minimised corpus, which `Fuzz/run` fuzzes from and merges new coverage back into.
    static let corpus = fuzz.appendingPathComponent("Corpus", isDirectory: true)

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

    /// The names of the folders under `parent` (none when it does not exist).
    static func folders(in parent: URL) -> [String] {
        ((try? inputs(in: parent)) ?? []).map(\.lastPathComponent)
    }

    /// Every target with a folder of kept inputs, under Fuzz/Regressions or Fuzz/Corpus: one replay case each.
    static func targetsWithKeptInputs() -> [String] {
        Set(folders(in: regressions) + folders(in: corpus)).sorted()
    }

    @Test("every fuzz target has a parser here and a kept corpus")
    func targetsAreCovered() throws {
        // Given the fuzz targets Fuzz/run builds
        let targets = Self.folders(in: Self.fuzz.appendingPathComponent("Targets", isDirectory: true))
        #expect(targets.count == Self.parsers.count, "Fuzz/Targets: \(targets)")

        // Then each one is replayed here, over a corpus that holds inputs
        for target in targets {
            #expect(Self.parsers[target] != nil, "fuzz target \(target) has no parser in FuzzRegressionTests")
            let kept = (try? Self.inputs(in: Self.corpus.appendingPathComponent(target, isDirectory: true))) ?? []
            #expect(!kept.isEmpty, "Fuzz/Corpus/\(target) holds no input: run Fuzz/run \(target) and commit it")
        }
    }

    @Test("every folder of kept inputs belongs to a known fuzz target")
    func foldersAreKnown() throws {
        // Given the committed regression and corpus folders
        let regressions = Self.folders(in: Self.regressions)
        let corpus = Self.folders(in: Self.corpus)

        // Then each one names a target whose parser this suite can replay
        #expect(regressions.contains("png"), "Fuzz/Regressions holds at least the PNG text-chunk input")
        for folder in regressions {
            #expect(Self.parsers[folder] != nil, "Fuzz/Regressions/\(folder) has no parser in FuzzRegressionTests")
        }
        for folder in corpus {
            #expect(Self.parsers[folder] != nil, "Fuzz/Corpus/\(folder) has no parser in FuzzRegressionTests")
        }
    }

    @Test("every kept input parses without crashing", arguments: targetsWithKeptInputs())
    func replaysInputs(target: String) throws {
        // Given the inputs kept for `target`: its regressions and its corpus (this case exists because one does)
        let parse = try #require(Self.parsers[target], "no parser for the kept inputs of \(target)")
        let folders = [Self.regressions, Self.corpus].map { $0.appendingPathComponent(target, isDirectory: true) }
        let inputs = folders.flatMap { (try? Self.inputs(in: $0)) ?? [] }

        // When each one is parsed, Then the process survives (a crash ends the test run)
        for input in inputs {
            parse(try Data(contentsOf: input))
        }
        #expect(!inputs.isEmpty, "Fuzz/Regressions/\(target) or Fuzz/Corpus/\(target) exists but holds no input")
    }
}
