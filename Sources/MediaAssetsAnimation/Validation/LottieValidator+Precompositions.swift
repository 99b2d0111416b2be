extension LottieValidator {
    /// Rejects precompositions that render themselves, directly or through other precompositions.
    ///
    /// An iterative depth-first search, so a long chain cannot overflow the stack.
    ///
    /// - Complexity: O(assets + layers).
    static func checkPrecompositionCycles(_ assets: [LottieAsset], assetIndex: [String: AssetSlot]) throws {
        // 0: not visited, 1: on the current search path, 2: finished.
        var state = [UInt8](repeating: 0, count: assets.count)
        for root in assets.indices where state[root] == 0 {
            guard case .precomposition = assets[root] else { continue }
            var stack: [(asset: Int, nextLayer: Int)] = [(root, 0)]
            state[root] = 1
            while let top = stack.last {
                guard case let .precomposition(precomposition) = assets[top.asset],
                    top.nextLayer < precomposition.layers.count
                else {
                    state[top.asset] = 2
                    stack.removeLast()
                    continue
                }
                stack[stack.count - 1].nextLayer += 1
                let layer = precomposition.layers[top.nextLayer]
                guard layer.type == .precomposition, let reference = layer.referenceID,
                    let slot = assetIndex[reference]
                else { continue }
                if state[slot.position] == 1 {
                    throw LottieError.invalid(
                        path: "$.assets[\(top.asset)].layers[\(top.nextLayer)].refId",
                        reason: "precomposition \"\(reference)\" ends up rendering itself"
                    )
                }
                if state[slot.position] == 0 {
                    state[slot.position] = 1
                    stack.append((slot.position, 0))
                }
            }
        }
    }
}
