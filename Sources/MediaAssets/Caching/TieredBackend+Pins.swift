extension TieredBackend {
    /// Pins `pin` in every tier, slowest first. A required tier that refuses (its quota, no pins)
    /// undoes the pins already made and throws; a best-effort tier's refusal is counted.
    public func pin(_ pin: Pin) async throws {
        var pinned: [Int] = []
        do {
            try await eachTier(slowestFirst: true) { index, backend in
                try await backend.pin(pin)
                pinned.append(index)
            }
        } catch {
            for index in pinned { try? await tiers[index].backend.unpin(pin) }
            throw error
        }
    }

    /// Unpins `pin` in every tier.
    public func unpin(_ pin: Pin) async throws {
        try await eachTier(slowestFirst: true) { _, backend in try await backend.unpin(pin) }
    }

    /// The keys of the slowest tier, which holds the most.
    public func storedKeys(batchSize: Int) -> AsyncThrowingStream<[CacheKey], any Error> {
        guard let slowest = tiers.last?.backend else { return AsyncThrowingStream { $0.finish() } }
        return slowest.storedKeys(batchSize: batchSize)
    }
}
