extension LottieDocument {
    /// An estimate of the bytes this value holds in memory: the raw JSON plus the model built from it.
    ///
    /// Counts `data.count`, the inline size of every layer, asset and marker, and the UTF-8 length
    /// of every kept string (with a heap header for strings too long to store inline). Use it as the
    /// cost of a memory-cache entry, whose limit is in bytes.
    ///
    /// - Complexity: O(n) in the number of layers, assets and markers.
    public var estimatedMemoryCost: Int {
        var cost = MemoryLayout<LottieDocument>.stride + data.count
        cost += Self.cost(of: layers)
        cost += markers.count * MemoryLayout<LottieMarker>.stride
        cost += markers.reduce(0) { $0 + Self.cost(of: $1.comment) }
        cost += assets.count * MemoryLayout<LottieAsset>.stride
        for asset in assets {
            switch asset {
            case let .image(image):
                cost += Self.cost(of: image.id) + Self.cost(of: image.name) + Self.cost(of: image.directory)
                cost += Self.cost(of: image.path)
            case let .precomposition(precomposition):
                cost += Self.cost(of: precomposition.id) + Self.cost(of: precomposition.name)
                cost += Self.cost(of: precomposition.layers)
            }
        }
        cost += slotIDs.count * MemoryLayout<String>.stride + slotIDs.reduce(0) { $0 + Self.cost(of: $1) }
        return cost + Self.cost(of: name)
    }

    private static func cost(of layers: [LottieLayer]) -> Int {
        layers.reduce(layers.count * MemoryLayout<LottieLayer>.stride) { total, layer in
            total + cost(of: layer.name) + cost(of: layer.referenceID)
        }
    }

    /// Swift stores strings of up to 15 UTF-8 bytes inline; longer ones own a buffer with a header.
    private static func cost(of text: String?) -> Int {
        guard let text else { return 0 }
        let length = text.utf8.count
        return length > 15 ? length + 32 : 0
    }
}
