import Foundation

/// Checks a parsed document and builds the `LottieDocument`, naming the JSON path of any problem.
///
/// Checks, in order: the required keys `w`, `h`, `fr`, `ip`, `op`, `layers`; `fr` > 0; `op` > `ip`;
/// non-negative `w`/`h`; unique asset ids; for every layer list, parents that exist in the same
/// list without cycles, and precomposition/image layers whose `refId` names an asset of the right
/// kind; precompositions that do not render themselves (directly or through others).
enum LottieValidator {
    /// Where an asset sits in `assets` and whether it is an image.
    struct AssetSlot {
        let position: Int
        let isImage: Bool
    }

    static func makeAnimation(from parsed: ParsedLottie, data: Data) throws -> LottieDocument {
        guard let width = parsed.width else { throw missing("$.w", "the composition width") }
        guard let height = parsed.height else { throw missing("$.h", "the composition height") }
        guard let frameRate = parsed.frameRate else { throw missing("$.fr", "the frame rate") }
        guard let inPoint = parsed.inPoint else { throw missing("$.ip", "the in point") }
        guard let outPoint = parsed.outPoint else { throw missing("$.op", "the out point") }
        guard let layers = parsed.layers else { throw missing("$.layers", "the layer list") }
        guard frameRate > 0, frameRate.isFinite else {
            throw LottieError.invalid(path: "$.fr", reason: "the frame rate must be greater than 0, found \(frameRate)")
        }
        guard inPoint.isFinite, outPoint.isFinite, outPoint > inPoint else {
            throw LottieError.invalid(
                path: "$.op", reason: "the out point (\(outPoint)) must be greater than the in point (\(inPoint))"
            )
        }
        guard width >= 0, width.isFinite else { throw negative("$.w", width) }
        guard height >= 0, height.isFinite else { throw negative("$.h", height) }

        let assetIndex = try indexAssets(parsed.assets)
        try checkLayers(layers, listPath: "$.layers", assetIndex: assetIndex)
        for (index, asset) in parsed.assets.enumerated() {
            guard case let .precomposition(precomposition) = asset else { continue }
            try checkLayers(precomposition.layers, listPath: "$.assets[\(index)].layers", assetIndex: assetIndex)
        }
        try checkPrecompositionCycles(parsed.assets, assetIndex: assetIndex)

        let version =
            parsed.bodymovinVersion.flatMap { LottieVersion(bodymovin: $0) }
            ?? parsed.specificationVersion.flatMap { LottieVersion(specification: $0) }
        return LottieDocument(
            version: version, frameRate: frameRate, inPoint: inPoint, outPoint: outPoint,
            width: width, height: height, is3D: parsed.is3D, name: parsed.name, layers: layers,
            assets: parsed.assets, markers: parsed.markers, fontCount: parsed.fontCount,
            characterCount: parsed.characterCount, slotIDs: parsed.slotIDs, data: data
        )
    }

    private static func missing(_ path: String, _ what: String) -> LottieError {
        .invalid(path: path, reason: "missing required key (\(what))")
    }

    private static func negative(_ path: String, _ value: Double) -> LottieError {
        .invalid(path: path, reason: "the size must be a finite number of at least 0, found \(value)")
    }

    /// Maps each asset id to its position in `assets` and its kind, rejecting duplicates.
    private static func indexAssets(_ assets: [LottieAsset]) throws -> [String: AssetSlot] {
        var index: [String: AssetSlot] = [:]
        for (position, asset) in assets.enumerated() {
            let isImage = if case .image = asset { true } else { false }
            guard index.updateValue(AssetSlot(position: position, isImage: isImage), forKey: asset.id) == nil else {
                throw LottieError.invalid(
                    path: "$.assets[\(position)].id", reason: "duplicate asset id \"\(asset.id)\""
                )
            }
        }
        return index
    }

    /// Checks the parents and asset references of one layer list.
    private static func checkLayers(_ layers: [LottieLayer], listPath: String, assetIndex: [String: AssetSlot]) throws {
        var positionOfIndex: [Int: Int] = [:]
        for (position, layer) in layers.enumerated() {
            if let index = layer.index, positionOfIndex[index] == nil { positionOfIndex[index] = position }
        }
        for (position, layer) in layers.enumerated() {
            let path = "\(listPath)[\(position)]"
            if let parent = layer.parent, positionOfIndex[parent] == nil {
                throw LottieError.invalid(path: path + ".parent", reason: "no layer in this list has ind \(parent)")
            }
            switch layer.type {
            case .precomposition: try checkReference(of: layer, at: path, assetIndex: assetIndex, wantsImage: false)
            case .image: try checkReference(of: layer, at: path, assetIndex: assetIndex, wantsImage: true)
            default: break
            }
        }
        try checkParentCycles(layers, listPath: listPath, positionOfIndex: positionOfIndex)
    }

    private static func checkReference(
        of layer: LottieLayer, at path: String, assetIndex: [String: AssetSlot], wantsImage: Bool
    ) throws {
        let kind = wantsImage ? "an image" : "a precomposition"
        guard let reference = layer.referenceID else {
            throw LottieError.invalid(
                path: path + ".refId", reason: "missing required key (\(kind) layer names its asset)"
            )
        }
        guard let slot = assetIndex[reference] else {
            throw LottieError.invalid(path: path + ".refId", reason: "no asset has id \"\(reference)\"")
        }
        guard slot.isImage == wantsImage else {
            let found = slot.isImage ? "an image" : "a precomposition"
            throw LottieError.invalid(
                path: path + ".refId", reason: "asset \"\(reference)\" is \(found), but this is \(kind) layer"
            )
        }
    }

    /// Rejects a parent chain that loops back on itself.
    ///
    /// - Complexity: O(n): each layer is walked once.
    private static func checkParentCycles(
        _ layers: [LottieLayer], listPath: String, positionOfIndex: [Int: Int]
    ) throws {
        // 0: not visited, 1: on the chain being walked, 2: known to reach a root.
        var state = [UInt8](repeating: 0, count: layers.count)
        var chain: [Int] = []
        for start in layers.indices where state[start] == 0 {
            chain.removeAll(keepingCapacity: true)
            var position: Int? = start
            while let current = position, state[current] == 0 {
                state[current] = 1
                chain.append(current)
                position = layers[current].parent.flatMap { positionOfIndex[$0] }
            }
            if let current = position, state[current] == 1 {
                throw LottieError.invalid(
                    path: "\(listPath)[\(current)].parent", reason: "the parent chain loops back to this layer"
                )
            }
            for member in chain { state[member] = 2 }
        }
    }
}
