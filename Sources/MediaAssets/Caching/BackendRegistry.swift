import Synchronization

/// The backends of one `AssetsManager`, by `StorageType`.
///
/// An instance owned by the manager, never a global. Registering for a storage type that has a
/// backend replaces it (an app swaps `.disk` for SQLite this way). `.hybrid(t)` resolves to a
/// two-tier `TieredBackend` over `.lru(t)` and `.disk`, partitioned by `t`, unless a backend is
/// registered for it explicitly.
public final class BackendRegistry: Sendable {
    private struct State {
        var registered: [StorageType: any CacheBackend] = [:]
        /// Compositions made for `.hybrid(t)`; dropped when one of their parts is replaced.
        var composed: [LRUCacheType: TieredBackend] = [:]
        /// Routes resolved for the pipeline (the casts to the capability protocols, made once).
        var routes: [StorageType: StorageRoute] = [:]
        /// Moves on every registration, so a route resolved across one is not kept.
        var generation: UInt64 = 0

        mutating func _set(_ backend: (any CacheBackend)?, for storageType: StorageType) -> (any CacheBackend)? {
            routes.removeAll()
            generation += 1
            switch storageType {
            case .disk: composed.removeAll()
            case .lru(let type), .hybrid(let type): composed[type] = nil
            case .custom: break
            }
            guard let backend else { return registered.removeValue(forKey: storageType) }
            return registered.updateValue(backend, forKey: storageType)
        }
    }

    private let state = Mutex(State())

    /// Creates an empty registry.
    public init() {}

    /// Registers `backend` for `storageType`, replacing any backend there.
    public func register(_ backend: any CacheBackend, for storageType: StorageType) {
        let replaced = state.withLock { $0._set(backend, for: storageType) }
        // Release a replaced backend outside the lock: its deinit may do I/O.
        withExtendedLifetime(replaced) {}
    }

    /// Removes the backend registered for `storageType`, if any.
    public func unregister(_ storageType: StorageType) {
        let removed = state.withLock { $0._set(nil, for: storageType) }
        withExtendedLifetime(removed) {}
    }

    /// The backend for `storageType`.
    ///
    /// - Throws: `AssetsError.backendNotRegistered` naming the storage type.
    public func backend(for storageType: StorageType) throws(AssetsError) -> any CacheBackend {
        let found = state.withLock { state -> (any CacheBackend)? in
            if let backend = state.registered[storageType] { return backend }
            guard case .hybrid(let type) = storageType else { return nil }
            if let composed = state.composed[type] { return composed }
            guard let memory = state.registered[.lru(type)], let storage = state.registered[.disk] else { return nil }
            let composed = TieredBackend(memory: memory, storage: storage, partition: type)
            state.composed[type] = composed
            return composed
        }
        guard let found else { throw .backendNotRegistered(storageType) }
        return found
    }

    /// Where the pipeline reads and writes for `storageType`, resolved once per registration.
    func route(for storageType: StorageType) throws(AssetsError) -> StorageRoute {
        let (cached, generation) = state.withLock { ($0.routes[storageType], $0.generation) }
        if let cached { return cached }
        let route = StorageRoute(storageType, backend: try backend(for: storageType))
        state.withLock { state in
            if state.generation == generation { state.routes[storageType] = route }
        }
        return route
    }

    /// Every tiered backend in use: registered ones and the compositions made for `.hybrid(t)`.
    var tieredBackends: [TieredBackend] {
        state.withLock { state in
            Array(state.composed.values) + state.registered.values.compactMap { $0 as? TieredBackend }
        }
    }

    /// The storage types with a backend registered (compositions for `.hybrid` not included).
    public var registeredStorageTypes: [StorageType] {
        state.withLock { Array($0.registered.keys) }
    }
}
