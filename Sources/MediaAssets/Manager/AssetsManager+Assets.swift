import Foundation

extension AssetsManager {
    // MARK: Assets (an original and everything derived from its key)

    /// Removes the asset `key` names from every storage type: its entry and every entry derived from
    /// its key (variants `@…`, the placeholder, decoded originals, chunks `#…` and the chunk record),
    /// from each memory partition, the disk cache and every registered backend (each tier of a
    /// composition), with one `removeEntries(.asset(key))` per backend, and the writes still staged
    /// for them (a write already under way is awaited, so it cannot land afterwards).
    ///
    /// A fetch still under way when this is called may store the asset again; cancel it first when
    /// the asset must stay gone (a takedown).
    ///
    /// - Throws: the first backend's failure, after every other backend was tried;
    ///   `AssetsError.unsupported` names a backend that cannot select entries (its entry under `key`
    ///   itself was removed).
    public func removeAsset(forKey key: CacheKey) async throws {
        let compositions = registry.tieredBackends
        // Reads under way in a composition must not promote what they found back into memory.
        for composition in compositions { composition.invalidatePromotions() }
        defer { for composition in compositions { composition.invalidatePromotions() } }
        await runtime.pendingWrites.dropAndWait { $0.key.isDerived(fromAsset: key) }
        var firstError: (any Error)?
        for backend in backendsByTier() {
            do {
                try await backend.removeEntries(.asset(key))
            } catch AssetsError.unsupported(let operation, let name) {
                try? await backend.removeEntry(forKey: key)
                firstError = firstError ?? AssetsError.unsupported(operation: operation, backend: name)
            } catch {
                firstError = firstError ?? error
            }
        }
        if let firstError { throw firstError }
    }

    /// Removes the asset of `request` from every storage type; see `removeAsset(forKey:)`.
    public func removeAsset(for request: AssetRequest) async throws {
        try await removeAsset(forKey: cacheKey(for: request))
    }

    /// Pins `pin` in the backend for `storageType` (every tier of a composition): its entries are
    /// kept from eviction, now and when stored later, within the backend's pinned quota.
    ///
    /// - Throws: `AssetsError.pinnedQuotaExceeded` (nothing pinned), `AssetsError.unsupported` for a
    ///   backend without pins, `AssetsError.backendNotRegistered`.
    public func pin(_ pin: Pin, storageType: StorageType) async throws {
        try await backend(for: storageType).pin(pin)
    }

    /// Removes `pin` from the backend for `storageType`.
    public func unpin(_ pin: Pin, storageType: StorageType) async throws {
        try await backend(for: storageType).unpin(pin)
    }

    /// The registered backends, each once, byte backends before memory ones: a composition's read
    /// cannot bring an asset back into memory from a tier it was already removed from.
    private func backendsByTier() -> [any CacheBackend] {
        var seen = Set<ObjectIdentifier>()
        var bytes: [any CacheBackend] = []
        var memory: [any CacheBackend] = []
        for storageType in registry.registeredStorageTypes {
            guard let backend = try? registry.backend(for: storageType) else { continue }
            if type(of: backend) is AnyClass, !seen.insert(ObjectIdentifier(backend as AnyObject)).inserted { continue }
            if backend is any DecodedObjectCaching { memory.append(backend) } else { bytes.append(backend) }
        }
        return bytes + memory
    }
}
