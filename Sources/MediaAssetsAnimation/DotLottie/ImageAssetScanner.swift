import Foundation

/// Where one top-level asset's image keys sit in an animation's JSON, so they can be rewritten.
struct ImageAssetLocation {
    /// The byte just after the asset object's `{`.
    var bodyStart: Int
    /// The asset's `id`, if it is a string.
    var id: String?
    /// The decoded `p` value and the byte range of its JSON string (quotes included).
    var path: String?
    var pathRange: Range<Int>?
    /// The byte ranges of the `u` and `e` values, if present.
    var directoryRange: Range<Int>?
    var embeddedRange: Range<Int>?
    /// Precompositions (assets with `layers`) are never rewritten.
    var hasLayers = false
}

/// Finds the byte ranges of the image keys in `$.assets`, reading the document once.
enum ImageAssetScanner {
    static func locate(in bytes: [UInt8], maximumDepth: Int) throws -> [ImageAssetLocation] {
        try bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, !buffer.isEmpty else { return [] }
            var reader = JSONByteReader(base: base, count: buffer.count, maximumDepth: maximumDepth)
            if buffer.count >= 3, buffer[0] == 0xEF, buffer[1] == 0xBB, buffer[2] == 0xBF { reader.offset = 3 }
            var locations: [ImageAssetLocation] = []
            guard try reader.peekValueStart() == UInt8(ascii: "{"), try !reader.beginObject(depth: 1) else { return [] }
            repeat {
                let key = try reader.readKey()
                if key == LottieKeys.assets, try reader.peekValueStart() == UInt8(ascii: "[") {
                    try locateAssets(&reader, into: &locations)
                } else {
                    try reader.skipValue(depth: 1)
                }
            } while try reader.continueContainer(closer: UInt8(ascii: "}"))
            return locations
        }
    }

    private static func locateAssets(
        _ reader: inout JSONByteReader, into locations: inout [ImageAssetLocation]
    ) throws {
        if try reader.beginArray(depth: 2) { return }
        repeat {
            guard try reader.peekValueStart() == UInt8(ascii: "{") else {
                try reader.skipValue(depth: 2)
                continue
            }
            var location = ImageAssetLocation(bodyStart: reader.offset + 1)
            if try !reader.beginObject(depth: 3) {
                repeat {
                    let key = try reader.readKey()
                    _ = try reader.peekValueStart()
                    let valueStart = reader.offset
                    if key == LottieKeys.identifier, reader.base[valueStart] == UInt8(ascii: "\"") {
                        location.id = try reader.readString()
                        continue
                    }
                    if key == LottieKeys.path, reader.base[valueStart] == UInt8(ascii: "\"") {
                        location.path = try reader.readString()
                        location.pathRange = valueStart..<reader.offset
                        continue
                    }
                    try reader.skipValue(depth: 3)
                    switch key {
                    case LottieKeys.directory: location.directoryRange = valueStart..<reader.offset
                    case LottieKeys.embedded: location.embeddedRange = valueStart..<reader.offset
                    case LottieKeys.layers: location.hasLayers = true
                    default: break
                    }
                } while try reader.continueContainer(closer: UInt8(ascii: "}"))
            }
            locations.append(location)
        } while try reader.continueContainer(closer: UInt8(ascii: "]"))
    }
}
