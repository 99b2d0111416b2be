import Foundation
import MediaAssets
import MediaAssetsImage
import SampleOrigin

// The memory of a 96 px avatar of a 12 MP photo in each format that decodes at display size, each decode in a
// process of its own (`benchmarks --decode-peak FILE --mode display|full`): the peak resident size above the
// process holding the file's bytes, against the whole-image decode before (decode, then resize), and the two
// documented exceptions. Then which decoded originals ImageUtil keeps, measured on a list of avatars.

/// Rows for the memory of display-size decoding and of decoded originals kept in memory.
func runAvatarMemoryBenchmarks(table: BenchmarkTable) async throws {
    let directory = try makeScratchDirectory("avatar-memory")
    defer { try? FileManager.default.removeItem(at: directory) }
    let photo = makePhotoLikeImage(width: 4000, height: 3000, seed: 31)
    func write(_ name: String, _ data: () throws -> Data) throws -> String {
        let url = directory.appendingPathComponent(name)
        try data().write(to: url)
        return url.path
    }
    let png = try write("photo.png") { try ImageEncoder.png(photo, compressionLevel: 1) }
    let interlaced = try write("photo-interlaced.png") {
        try ImageEncoder.png(photo, compressionLevel: 1, interlaced: true)
    }
    let webp = try write("photo.webp") { try WebPEncoder(compression: .lossy(quality: 80)).encode(photo) }
    let thumbnail = try ImageProcessors.Resize(size: PixelSize(width: 320, height: 240)).process(photo)
    let heic = try write("photo.heic") { try HEIFFixtureEncoder.encode(photo, thumbnail: thumbnail, fast: true) }
    let bareHEIC = try write("photo-bare.heic") { try HEIFFixtureEncoder.encode(photo, fast: true) }

    for (label, path) in [("png", png), ("lossy webp", webp), ("heic + 320×240 thumbnail", heic)] {
        let display = try decodePeakChild(path, mode: "display")
        let full = try decodePeakChild(path, mode: "full")
        table.add(
            "avatar 96 of 12 MP \(label): peak MiB (target ≤ 16)", unit: "MiB", median: display,
            baseline: "whole-image decode, then resize", baselineMedian: full
        )
    }
    table.add(
        "avatar 96 of 12 MP interlaced png: peak (exception)", unit: "MiB",
        median: try decodePeakChild(interlaced, mode: "display"),
        baseline: "same photo, not interlaced", baselineMedian: try decodePeakChild(png, mode: "display")
    )
    table.add(
        "avatar 96 of 12 MP heic, no thumbnail (exception)", unit: "MiB",
        median: try decodePeakChild(bareHEIC, mode: "display"),
        baseline: "whole-image decode, then resize", baselineMedian: try decodePeakChild(bareHEIC, mode: "full")
    )
    try await addDecodedOriginalsRows(table: table)
}

/// Runs this executable as `--decode-peak path --mode mode` and returns the child's peak growth in MiB.
private func decodePeakChild(_ path: String, mode: String) throws -> Double {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = ["--decode-peak", path, "--mode", mode]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0, let bytes = Double(String(decoding: data, as: UTF8.self).trimmed) else {
        throw DisplaySizeBenchmarkError(
            "the \(mode) decode of \(path) failed: \(String(decoding: data, as: UTF8.self))")
    }
    return bytes / 1_048_576
}

/// The child side of the peak rows: reads the file, then decodes it for a 96 px circle and renders it, at
/// display size or (`full`) whole and then resized, and prints how far the resident high-water mark rose above
/// the resident size with the file's bytes held.
func runDecodePeakInThisProcess(path: String, mode: String) throws {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    let renderer = VariantRenderer()
    let style = AvatarStyle.circle(diameter: 96)
    _ = try? ImageDecoder.header(of: data)  // the codec library loaded outside the measurement
    let before = statusBytes("VmRSS")
    try "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    let decoded = mode == "full" ? try renderer.decode(data, targetSize: nil) : try renderer.decode(data, for: style)
    blackHole(try renderer.render(decoded, style: style))
    print(statusBytes("VmHWM") - before)
}

/// A field of /proc/self/status in bytes ("VmRSS", "VmHWM").
func statusBytes(_ field: String) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") })
    else { return 0 }
    return (line.split(separator: " ").compactMap { Int($0) }.first ?? 0) * 1_024
}

/// A list of avatars under each decoded-originals policy: 300 rows shown as 48 px circles (12 photos of
/// 2048×1536 behind 300 URLs), scrolled back, then 30 rows opened at 96 px and 30 shown as 48 px rounded
/// squares. Reports what the image partition holds after the list, and the decodes of the whole session.
private func addDecodedOriginalsRows(table: BenchmarkTable) async throws {
    let origin = SampleOrigin()
    try origin.start()
    defer { origin.stop() }
    for index in 0..<12 {
        let jpeg = try makePhotoLikeJPEG(width: 2048, height: 1536, seed: UInt64(60 + index))
        for row in stride(from: index, to: 300, by: 12) {
            origin.register("/list/\(row).jpg", data: jpeg, contentType: "image/jpeg")
        }
    }
    var results: [DecodedOriginalPolicy: (memory: Double, decodes: Int, seconds: Double)] = [:]
    for policy in [DecodedOriginalPolicy.always, .whenAskedUnprocessed] {
        let directory = try makeScratchDirectory("avatar-list")
        defer { try? FileManager.default.removeItem(at: directory) }
        let manager = try AssetsManager(configuration: .init(disk: .init(directory: directory)))
        let util = ImageUtil(manager: manager, configuration: .init(pipeline: .init(decodedOriginals: policy)))
        let url = { (row: Int) in origin.url(for: "/list/\(row).jpg") }
        let start = now()
        for row in 0..<300 { blackHole(try await util.image(for: url(row), style: .circle(diameter: 48))) }
        let memory = (try manager.backend(for: .lru(.image)) as? MemoryCache)?.statistics().cost ?? 0
        for row in (0..<300).reversed() { blackHole(try await util.image(for: url(row), style: .circle(diameter: 48))) }
        for row in 0..<30 { blackHole(try await util.image(for: url(row), style: .circle(diameter: 96))) }
        for row in 0..<30 {
            blackHole(try await util.image(for: url(row), style: .roundedRectangle(size: .square(48), cornerRadius: 8)))
        }
        let seconds = now() - start
        await manager.waitForPendingWrites()
        results[policy] = (Double(memory) / 1_048_576, util.statistics.decodes, seconds)
    }
    guard let shown = results[.whenAskedUnprocessed], let always = results[.always] else { return }
    table.add(
        "avatar list 300 rows: image partition held", unit: "MiB", median: shown.memory,
        baseline: "decodedOriginals .always", baselineMedian: always.memory
    )
    table.add(
        "avatar list session: decodes (count)", unit: "count", median: Double(shown.decodes),
        baseline: "decodedOriginals .always", baselineMedian: Double(always.decodes)
    )
    table.add(
        "avatar list session: time", unit: "ms", median: shown.seconds * 1e3,
        baseline: "decodedOriginals .always", baselineMedian: always.seconds * 1e3
    )
}

private struct DisplaySizeBenchmarkError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension String {
    fileprivate var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
