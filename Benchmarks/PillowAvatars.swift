import Foundation
import MediaAssetsImage

/// The avatar pipeline against Pillow's on the same photos, in the same run: `pillow_avatars.py` (beside this file)
/// times `Image.draft('RGB', (192, 192))` + `ImageOps.fit(LANCZOS)` + a circle mask + PNG at our zlib level, per
/// photo by its thread's CPU clock, and writes its avatars before the mask; both sides' avatars are judged against
/// the same full-resolution Lanczos3 reference. Rows per set (baseline JPEGs, the same photos progressive, both),
/// each with the target of issue 25 (≤ 0.8× Pillow's mean time at ≥ 46 dB). Skipped, saying why, without python3
/// or Pillow.
struct PillowAvatarComparison {
    /// A named photo: `baseline-3`, `progressive-3`.
    struct Photo {
        var name: String
        var data: Data
        /// The index of its reference avatar.
        var reference: Int
    }

    let photos: [Photo]
    let references: [Image]
    let renderer: VariantRenderer
    let style: AvatarStyle

    /// What one side measured per photo: the whole pipeline and the decode alone, in CPU milliseconds.
    struct Timings {
        var pipeline: [String: Double] = [:]
        var decode: [String: Double] = [:]
        /// Ours only: the style rendered from the decode, and the PNG encoded.
        var render: [String: Double] = [:]
        var encode: [String: Double] = [:]
    }

    func addRows(to table: BenchmarkTable) throws {
        guard let python = executableOnPath("python3") else {
            print("(avatar rows against Pillow skipped: python3 is not on PATH)")
            return
        }
        let directory = try makeScratchDirectory("pillow-avatars")
        defer { try? FileManager.default.removeItem(at: directory) }
        let photoDirectory = directory.appendingPathComponent("photos")
        let avatarDirectory = directory.appendingPathComponent("avatars")
        for url in [photoDirectory, avatarDirectory] {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }
        for photo in photos {
            try photo.data.write(to: photoDirectory.appendingPathComponent(photo.name + ".jpg"))
        }
        // Pillow before and after ours, averaged, so that a change in load meets both sides alike.
        guard let before = try runPillow(python, photos: photoDirectory, avatars: avatarDirectory) else { return }
        let ours = try measureOurs()
        guard let after = try runPillow(python, photos: photoDirectory, avatars: avatarDirectory) else { return }
        let pillow = Timings(
            pipeline: before.timings.pipeline.merging(after.timings.pipeline) { ($0 + $1) / 2 },
            decode: before.timings.decode.merging(after.timings.decode) { ($0 + $1) / 2 })
        let quality = try qualities(pillowAvatars: avatarDirectory)
        let sets: [(label: String, prefix: String)] = [
            ("baseline set", "baseline"), ("progressive set", "progressive"), ("both sets", ""),
        ]
        for (label, prefix) in sets {
            let names = photos.map(\.name).filter { $0.hasPrefix(prefix) }
            let mean = { (values: [String: Double]) in
                names.map { values[$0] ?? .nan }.reduce(0, +) / Double(names.count)
            }
            table.add(
                "avatars vs Pillow, \(label) (mean, CPU)", unit: "ms", median: mean(ours.pipeline),
                baseline: "Pillow \(before.version) draft(192) + fit + mask + PNG",
                baselineMedian: mean(pillow.pipeline),
                target: 0.8
            )
            let milliseconds = { (values: [String: Double]) in String(format: "%.2f", mean(values)) }
            print(
                "  (\(label): here decode \(milliseconds(ours.decode)), render \(milliseconds(ours.render)), "
                    + "encode \(milliseconds(ours.encode)) ms; Pillow's decode \(milliseconds(pillow.decode)) ms)")
            table.add(
                "avatar PSNR vs Pillow, \(label) (mean dB, ≥ 46)", unit: "dB",
                median: mean(quality.ours), baseline: "Pillow's avatars, same reference",
                baselineMedian: mean(quality.pillow)
            )
        }
    }

    /// Our pipeline per photo (decode for the style, render, encode), median CPU milliseconds of 15 runs; and the
    /// decode alone.
    private func measureOurs() throws -> Timings {
        var timings = Timings()
        for photo in photos {
            timings.pipeline[photo.name] = try medianThreadCPUMilliseconds {
                blackHole(
                    try renderer.encode(try renderer.render(try renderer.decode(photo.data, for: style), style: style)))
            }
            timings.decode[photo.name] = try medianThreadCPUMilliseconds {
                blackHole(try renderer.decode(photo.data, for: style))
            }
            let decoded = try renderer.decode(photo.data, for: style)
            timings.render[photo.name] = try medianThreadCPUMilliseconds {
                blackHole(try renderer.render(decoded, style: style))
            }
            let rendered = try renderer.render(decoded, style: style)
            timings.encode[photo.name] = try medianThreadCPUMilliseconds { blackHole(try renderer.encode(rendered)) }
        }
        return timings
    }

    /// Each side's avatar (before the mask) against the photo's reference, by photo name.
    private func qualities(pillowAvatars: URL) throws -> (ours: [String: Double], pillow: [String: Double]) {
        let resize = ImageProcessors.Resize.aspectFillCrop(size: style.targetSize ?? .square(96))
        var ours: [String: Double] = [:]
        var pillow: [String: Double] = [:]
        for photo in photos {
            let reference = references[photo.reference]
            ours[photo.name] = psnr(try resize.process(try renderer.decode(photo.data, for: style)), reference)
            let pillowAvatar = try Data(contentsOf: pillowAvatars.appendingPathComponent(photo.name + ".png"))
            pillow[photo.name] = psnr(try ImageDecoder.decode(pillowAvatar), reference)
        }
        return (ours, pillow)
    }

    /// Runs the script; nil (having printed why) when Pillow is missing.
    private func runPillow(
        _ python: URL, photos: URL, avatars: URL
    ) throws -> (version: String, timings: Timings)? {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "pillow_avatars.py")
        let process = Process()
        process.executableURL = python
        process.arguments = [
            script.path, "--photos", photos.path, "--out", avatars.path, "--png-level",
            String(renderer.pngCompressionLevel),
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if process.terminationStatus == 3 {
            print("(avatar rows against Pillow skipped: \(text))")
            return nil
        }
        struct Report: Decodable {
            var pillow: String
            var pipelineMilliseconds: [String: Double]
            var decodeMilliseconds: [String: Double]

            enum CodingKeys: String, CodingKey {
                case pillow
                case pipelineMilliseconds = "pipeline_ms"
                case decodeMilliseconds = "decode_ms"
            }
        }
        guard process.terminationStatus == 0, let line = text.split(separator: "\n").last,
            let report = try? JSONDecoder().decode(Report.self, from: Data(line.utf8))
        else { throw BenchmarkError("pillow_avatars.py failed: \(text)") }
        return (report.pillow, Timings(pipeline: report.pipelineMilliseconds, decode: report.decodeMilliseconds))
    }
}

/// The median CPU milliseconds of this thread over 15 runs of `body`, after one unmeasured run.
func medianThreadCPUMilliseconds(repetitions: Int = 15, _ body: () throws -> Void) rethrows -> Double {
    try body()
    var samples: [Double] = []
    for _ in 0..<repetitions {
        let start = threadCPUSeconds()
        try body()
        samples.append(threadCPUSeconds() - start)
    }
    return median(samples) * 1e3
}

/// The first executable called `name` on `PATH`, or nil.
func executableOnPath(_ name: String) -> URL? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for directory in path.split(separator: ":") {
        let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    return nil
}
