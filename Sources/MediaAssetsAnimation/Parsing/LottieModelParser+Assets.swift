extension LottieModelParser {
    /// Reads the `assets` list ahead: objects with `layers` are precompositions, the others images.
    mutating func parseAssets(depth: Int) throws -> [LottieAsset] {
        guard try expectArray(at: "$.assets", depth: depth) else { return [] }
        var assets: [LottieAsset] = []
        let arrayDepth = depth + 1
        if try reader.beginArray(depth: arrayDepth) { return assets }
        var index = 0
        repeat {
            guard index < options.maximumAssetCount else {
                throw LottieError.tooManyElements(path: "$.assets", limit: options.maximumAssetCount)
            }
            if let asset = try parseAsset(index: index, depth: arrayDepth) { assets.append(asset) }
            index += 1
        } while try reader.continueContainer(closer: UInt8(ascii: "]"))
        return assets
    }

    private mutating func parseAsset(index: Int, depth: Int) throws -> LottieAsset? {
        guard try expectObject(at: "$.assets[\(index)]", depth: depth) else { return nil }
        let objectDepth = depth + 1
        var identifier: String?
        var name: String?
        var width: Double?
        var height: Double?
        var directory: String?
        var path: String?
        var embedded = false
        var frameRate: Double?
        var layers: [LottieLayer]?
        if try !reader.beginObject(depth: objectDepth) {
            repeat {
                let key = try reader.readKey()
                switch key {
                case LottieKeys.identifier: identifier = try readString(at: "$.assets[\(index)].id", depth: objectDepth)
                case LottieKeys.name: name = try readString(at: "$.assets[\(index)].nm", depth: objectDepth)
                case LottieKeys.width: width = try readNumber(at: "$.assets[\(index)].w", depth: objectDepth)
                case LottieKeys.height: height = try readNumber(at: "$.assets[\(index)].h", depth: objectDepth)
                case LottieKeys.directory: directory = try readString(at: "$.assets[\(index)].u", depth: objectDepth)
                case LottieKeys.path: path = try readString(at: "$.assets[\(index)].p", depth: objectDepth)
                case LottieKeys.embedded:
                    embedded = try readFlag(at: "$.assets[\(index)].e", depth: objectDepth) ?? false
                case LottieKeys.frameRate: frameRate = try readNumber(at: "$.assets[\(index)].fr", depth: objectDepth)
                case LottieKeys.layers:
                    layers = try parseLayerList(at: "$.assets[\(index)].layers", depth: objectDepth)
                default: try reader.skipValue(depth: objectDepth)
                }
            } while try reader.continueContainer(closer: UInt8(ascii: "}"))
        }
        guard let identifier else {
            recordIssue("$.assets[\(index)].id", "missing required key (the asset identifier)")
            return nil
        }
        if let layers {
            return .precomposition(
                LottiePrecomposition(id: identifier, name: name, frameRate: frameRate, layers: layers)
            )
        }
        guard let path else {
            recordIssue("$.assets[\(index)].p", "missing required key (an image asset needs a path)")
            return nil
        }
        return .image(
            LottieImageAsset(
                id: identifier, name: name, width: width, height: height, directory: directory, path: path,
                isEmbedded: embedded || path.hasPrefix("data:")
            ))
    }

    /// Reads the `markers` list ahead.
    mutating func parseMarkers(depth: Int) throws -> [LottieMarker] {
        guard try expectArray(at: "$.markers", depth: depth) else { return [] }
        var markers: [LottieMarker] = []
        let arrayDepth = depth + 1
        let objectDepth = arrayDepth + 1
        if try reader.beginArray(depth: arrayDepth) { return markers }
        var index = 0
        repeat {
            guard index < options.maximumMarkerCount else {
                throw LottieError.tooManyElements(path: "$.markers", limit: options.maximumMarkerCount)
            }
            if try expectObject(at: "$.markers[\(index)]", depth: arrayDepth) {
                var marker = LottieMarker(comment: nil, time: 0, duration: 0)
                if try !reader.beginObject(depth: objectDepth) {
                    repeat {
                        let key = try reader.readKey()
                        switch key {
                        case LottieKeys.comment:
                            marker.comment = try readString(at: "$.markers[\(index)].cm", depth: objectDepth)
                        case LottieKeys.time:
                            marker.time = try readNumber(at: "$.markers[\(index)].tm", depth: objectDepth) ?? 0
                        case LottieKeys.duration:
                            marker.duration = try readNumber(at: "$.markers[\(index)].dr", depth: objectDepth) ?? 0
                        default:
                            try reader.skipValue(depth: objectDepth)
                        }
                    } while try reader.continueContainer(closer: UInt8(ascii: "}"))
                }
                markers.append(marker)
            }
            index += 1
        } while try reader.continueContainer(closer: UInt8(ascii: "]"))
        return markers
    }

    /// Reads the `fonts` object ahead and returns how many fonts its `list` holds.
    mutating func parseFonts(depth: Int) throws -> Int {
        guard try expectObject(at: "$.fonts", depth: depth) else { return 0 }
        let objectDepth = depth + 1
        var count = 0
        if try reader.beginObject(depth: objectDepth) { return 0 }
        repeat {
            if try reader.readKey() == LottieKeys.fontList {
                count = try countElements(at: "$.fonts.list", depth: objectDepth) ?? 0
            } else {
                try reader.skipValue(depth: objectDepth)
            }
        } while try reader.continueContainer(closer: UInt8(ascii: "}"))
        return count
    }
}
