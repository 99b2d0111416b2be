extension LottieModelParser {
    /// Reads the layer list ahead (at `path`, inside a container at `depth`).
    mutating func parseLayerList(at path: String, depth: Int) throws -> [LottieLayer]? {
        guard try expectArray(at: path, depth: depth) else { return nil }
        var layers: [LottieLayer] = []
        let arrayDepth = depth + 1
        if try reader.beginArray(depth: arrayDepth) { return layers }
        var index = 0
        repeat {
            layerCount += 1
            guard layerCount <= options.maximumLayerCount else {
                throw LottieError.tooManyElements(path: path, limit: options.maximumLayerCount)
            }
            if let layer = try parseLayer(listPath: path, index: index, depth: arrayDepth) {
                layers.append(layer)
            }
            index += 1
        } while try reader.continueContainer(closer: UInt8(ascii: "]"))
        return layers
    }

    /// Reads one layer object; returns nil (after recording an issue) when it is not usable.
    private mutating func parseLayer(listPath: String, index: Int, depth: Int) throws -> LottieLayer? {
        guard try expectObject(at: "\(listPath)[\(index)]", depth: depth) else { return nil }
        let objectDepth = depth + 1
        var type: Int?
        var layer = LottieLayer(type: .null)
        if try !reader.beginObject(depth: objectDepth) {
            repeat {
                let key = try reader.readKey()
                switch key {
                case LottieKeys.type:
                    type = try readInteger(at: "\(listPath)[\(index)].ty", depth: objectDepth)
                case LottieKeys.name:
                    layer.name = try readString(at: "\(listPath)[\(index)].nm", depth: objectDepth)
                case LottieKeys.index:
                    layer.index = try readInteger(at: "\(listPath)[\(index)].ind", depth: objectDepth)
                case LottieKeys.parent:
                    layer.parent = try readInteger(at: "\(listPath)[\(index)].parent", depth: objectDepth)
                case LottieKeys.inPoint:
                    layer.inPoint = try readNumber(at: "\(listPath)[\(index)].ip", depth: objectDepth)
                case LottieKeys.outPoint:
                    layer.outPoint = try readNumber(at: "\(listPath)[\(index)].op", depth: objectDepth)
                case LottieKeys.referenceID:
                    layer.referenceID = try readString(at: "\(listPath)[\(index)].refId", depth: objectDepth)
                default:
                    try reader.skipValue(depth: objectDepth)
                }
            } while try reader.continueContainer(closer: UInt8(ascii: "}"))
        }
        guard let type else {
            recordIssue("\(listPath)[\(index)].ty", "missing required key (the layer type)")
            return nil
        }
        layer.type = LottieLayerType(rawValue: type)
        return layer
    }
}
