import Foundation
import MediaAssetsAnimation

/// One animation as one JSON line, keys in a fixed order:
/// `{"input":…,"version":…,"frameRate":…,…,"assets":[…]}`.
enum AnimationJSONLine {
    /// - Parameter encodedSizes: the bytes of each asset's file or data URL, by asset id, where known.
    static func make(input: String, id: String?, _ loaded: LoadedAnimation, encodedSizes: [String: Int]) -> String {
        let animation = loaded.animation
        var fields: [(String, String)] = [("input", quoted(input))]
        if let id { fields.append(("id", quoted(id))) }
        fields += [
            ("version", animation.version.map { quoted($0.description) } ?? "null"),
            ("frameRate", number(animation.frameRate)),
            ("inPoint", number(animation.inPoint)),
            ("outPoint", number(animation.outPoint)),
            ("width", number(animation.width)),
            ("height", number(animation.height)),
            ("layerCount", String(animation.layerCount)),
            ("imageAssetCount", String(animation.imageAssets.count)),
            ("markerCount", String(animation.markers.count)),
            ("duration", number(animation.duration)),
            ("memoryCost", String(loaded.estimatedMemoryCost)),
            (
                "assets",
                "[" + loaded.images.map { asset($0, encodedBytes: encodedSizes[$0.assetID]) }.joined(separator: ",")
                    + "]"
            ),
        ]
        return object(fields)
    }

    /// `{"id":…,"source":…,"width":…,"height":…,"bytes":…,"decodedBytes":…}`; `source` is the URL,
    /// "embedded" or "placeholder"; `bytes` is the file's (or data URL's) size, null when unknown.
    private static func asset(_ image: LoadedImageAsset, encodedBytes: Int?) -> String {
        object([
            ("id", quoted(image.assetID)), ("source", quoted(image.origin.description)),
            ("width", String(image.image.width)), ("height", String(image.image.height)),
            ("bytes", encodedBytes.map(String.init) ?? "null"), ("decodedBytes", String(image.image.cost)),
        ])
    }

    private static func object(_ fields: [(String, String)]) -> String {
        "{" + fields.map { quoted($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
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
