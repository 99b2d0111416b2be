import Synchronization

/// The backends of one `AssetsManager`, by `StorageType`.
///
/// An instance owned by the manager, never a global. Registering for a storage type that has a
/// backend replaces it (an app swaps `.disk` for SQLite this way). `.hybrid(t)` resolves to a
/// two-tier `TieredBackend` over `.lru(t)` and `.disk`, partitioned by `t`, unless a backend is
/// registered for it explicitly.
///
/// Reads route without a lock: the routes resolved so far are published as an immutable table, replaced on
/// every registration. Registering is for setup: each registration leaves its table (a few hundred bytes, no
/// backend) in memory until the registry is released.
package final class BackendRegistry: Sendable {
    private struct State {
        var registered: [StorageType: any CacheBackend] = [:]
        /// Compositions made for `.hybrid(t)`; dropped when one of their parts is replaced.
        var composed: [LRUCacheType: TieredBackend] = [:]
        /// Routes resolved for the pipeline (the casts to the capability protocols, made once).
        var routes: [StorageType: StorageRoute] = [:]
        /// Moves on every registration, so a route resolved across one is not kept.
        var generation: UInt64 = 0
        /// Every table published, the current one last: readers may hold any of them without a lock.
        var tables: [RouteTable] = []

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

        /// The storage types registered, in a stable order (by description).
        var _registeredTypes: [StorageType] { registered.keys.sorted { $0.description < $1.description } }

        func _backend(for storageType: StorageType) -> (any CacheBackend)? {
            if let backend = registered[storageType] { return backend }
            guard case .hybrid(let type) = storageType, let composed = composed[type] else { return nil }
            return composed
        }

        /// Makes a table of the current routes, to publish.
        mutating func _newTable() -> RouteTable {
            let table = RouteTable(routes)
            tables.append(table)
            return table
        }
    }

    /// The routes resolved so far, by storage type, read without a lock.
    ///
    /// Immutable; it holds its routes weakly (the state holds them), so a table left behind by a registration
    /// keeps no backend alive, and a route it names that was since dropped reads as missing.
    final class RouteTable: @unchecked Sendable {
        private struct WeakRoute {
            weak var route: StorageRoute?
        }

        private let indices: [StorageType: Int]
        /// Written once in `init`; a weak reference read in place costs one atomic operation, a copy three.
        private let routes: UnsafeMutablePointer<WeakRoute>

        init(_ routes: [StorageType: StorageRoute]) {
            indices = Dictionary(uniqueKeysWithValues: routes.keys.enumerated().map { ($1, $0) })
            self.routes = .allocate(capacity: routes.count)
            self.routes.initialize(from: routes.values.map { WeakRoute(route: $0) }, count: routes.count)
        }

        deinit {
            routes.deinitialize(count: indices.count)
            routes.deallocate()
        }

        /// The route for `storageType`, if it was resolved and is still alive.
        func route(for storageType: StorageType) -> StorageRoute? {
            guard let index = indices[storageType] else { return nil }
            return routes[index].route
        }
    }

    private let state: Mutex<State>
    /// The current table, also held (retained) by the state's `tables`.
    private let currentTable: Atomic<Unmanaged<RouteTable>>

    /// Creates an empty registry.
    package init() {
        var initial = State()
        let table = initial._newTable()
        state = Mutex(initial)
        currentTable = Atomic(Unmanaged.passUnretained(table))
    }

    /// Registers `backend` for `storageType`, replacing any backend there.
    package func register(_ backend: any CacheBackend, for storageType: StorageType) {
        let replaced = state.withLock { state in
            defer { _publish(state._newTable()) }
            return state._set(backend, for: storageType)
        }
        // Release a replaced backend outside the lock: its deinit may do I/O.
        withExtendedLifetime(replaced) {}
    }

    /// Removes the backend registered for `storageType`, if any.
    package func unregister(_ storageType: StorageType) {
        let removed = state.withLock { state in
            defer { _publish(state._newTable()) }
            return state._set(nil, for: storageType)
        }
        withExtendedLifetime(removed) {}
    }

    /// The backend for `storageType`.
    ///
    /// - Throws: `AssetsError.backendNotRegistered` naming the storage type and what is registered.
    package func backend(for storageType: StorageType) throws(AssetsError) -> any CacheBackend {
        let found = state.withLock { state -> Result<any CacheBackend, AssetsError> in
            if let backend = state._backend(for: storageType) { return .success(backend) }
            guard case .hybrid(let type) = storageType, let memory = state.registered[.lru(type)],
                let storage = state.registered[.disk]
            else { return .failure(.backendNotRegistered(storageType, registered: state._registeredTypes)) }
            let composed = TieredBackend(memory: memory, storage: storage, partition: type)
            state.composed[type] = composed
            return .success(composed)
        }
        return try found.get()
    }

    /// The storage types with a backend registered, in a stable order (by description): what a `StorageType`
    /// may name besides the `.hybrid(t)` compositions of a registered `.lru(t)` and `.disk` (not listed).
    package var registeredStorageTypes: [StorageType] {
        state.withLock { $0._registeredTypes }
    }

    /// Where the pipeline reads and writes for `storageType`, resolved once per registration.
    ///
    /// - Complexity: O(1), without a lock once resolved: one atomic load and one weak reference read.
    func route(for storageType: StorageType) throws(AssetsError) -> StorageRoute {
        let table = currentTable.load(ordering: .acquiring).takeUnretainedValue()
        if let route = table.route(for: storageType) { return route }
        return try resolveRoute(for: storageType)
    }

    private func resolveRoute(for storageType: StorageType) throws(AssetsError) -> StorageRoute {
        let (cached, generation) = state.withLock { ($0.routes[storageType], $0.generation) }
        if let cached { return cached }
        // Resolved outside the lock: the casts may call into a user's backend.
        let route = StorageRoute(storageType, backend: try backend(for: storageType))
        return state.withLock { state in
            guard state.generation == generation else { return route }
            if let resolved = state.routes[storageType] { return resolved }
            state.routes[storageType] = route
            _publish(state._newTable())
            return route
        }
    }

    /// Makes `table` the one lock-free reads see; called under the state's lock, which holds the table.
    private func _publish(_ table: RouteTable) {
        currentTable.store(Unmanaged.passUnretained(table), ordering: .releasing)
    }

    /// Every tiered backend in use: registered ones and the compositions made for `.hybrid(t)`.
    var tieredBackends: [TieredBackend] {
        state.withLock { state in
            Array(state.composed.values) + state.registered.values.compactMap { $0 as? TieredBackend }
        }
    }
}
