import ExampleSupport
import Foundation
import MediaAssets
import MediaAssetsAnimation

/// The run with inputs: one JSON line per animation, errors on stderr.
enum AnimationInspection {
    /// Returns the exit status: 1 if any input failed.
    static func run(inputs: [String], cacheDirectory: URL) async throws -> Int32 {
        let manager = try AssetsManager(configuration: .init(diskDirectory: cacheDirectory, loader: LocalFileLoader()))
        let animations = AnimationUtil(manager: manager)
        var failed = false
        for input in inputs {
            do {
                let url = try ExampleInput.url(for: input)
                if url.pathExtension.lowercased() == "lottie" {
                    let archive = try await animations.dotLottie(for: url)
                    for entry in archive.animations { print(jsonLine(input: input, id: entry.id, entry.animation)) }
                } else {
                    print(jsonLine(input: input, id: nil, try await animations.animation(for: url)))
                }
            } catch {
                failed = true
                ExampleRun.flushStandardOutput()
                ExampleRun.printError(error, program: "animation-example: \(input)")
            }
        }
        print("")
        print("cache  \(cacheDirectory.path)")
        await StatisticsReport.print(manager: manager, utils: [("AnimationUtil", animations.statistics.description)])
        return failed ? 1 : 0
    }

    /// `{"input":…,"version":…,"frameRate":…,…}` with the keys in a fixed order.
    static func jsonLine(input: String, id: String?, _ animation: LottieAnimation) -> String {
        var fields: [(String, String)] = [("input", quoted(input))]
        if let id { fields.append(("id", quoted(id))) }
        fields += [
            ("version", animation.version.map { quoted($0.description) } ?? "null"),
            ("frameRate", number(animation.frameRate)),
            ("inPoint", number(animation.inPoint)),
            ("outPoint", number(animation.outPoint)),
            ("width", number(animation.width)),
            ("height", number(animation.height)),
            ("layerCount", String(animation.layers.count)),
            ("assetCount", String(animation.assets.count)),
            ("markerCount", String(animation.markers.count)),
            ("duration", number(animation.duration)),
        ]
        return "{" + fields.map { quoted($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }

    /// A JSON string literal.
    private static func quoted(_ text: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        guard let data = try? encoder.encode(text), let literal = String(data: data, encoding: .utf8) else {
            return "\"\""
        }
        return literal
    }

    /// Whole numbers without a fraction (`30`), others as Swift prints them (`3.5`).
    private static func number(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
