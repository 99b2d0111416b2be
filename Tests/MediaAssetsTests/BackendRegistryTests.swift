import Foundation
import Synchronization
import Testing

@testable import MediaAssets

@Suite("BackendRegistry: routes read without a lock")
struct BackendRegistryTests {
    /// A memory backend that records its release.
    final class TrackedBackend: CacheBackend {
        let inner = MemoryCache(limits: .init(costLimit: 1 << 20))
        let released: Flag

        init(released: Flag) { self.released = released }
        deinit { released.value.withLock { $0 = true } }

        func entry(forKey key: CacheKey) async throws -> CacheEntry? { inner.entry(forKey: key) }
        func store(_ entry: CacheEntry, forKey key: CacheKey) async throws { try inner.store(entry, forKey: key) }
        func removeEntry(forKey key: CacheKey) async throws { inner.removeEntry(forKey: key) }
        func removeAll() async throws { inner.removeAll() }
        func statistics() async -> CacheStatistics { inner.statistics() }
    }

    final class Flag: Sendable {
        let value = Mutex(false)
    }

    @Test func routesFollowEveryRegistration() throws {
        // Given a registry whose `.lru(.image)` route was resolved
        let registry = BackendRegistry()
        let first = MemoryCache(limits: .init(costLimit: 1_000))
        registry.register(first, for: .lru(.image))
        #expect(try registry.route(for: .lru(.image)).backend as? MemoryCache === first)

        // When another backend replaces it, and then it is unregistered
        let second = MemoryCache(limits: .init(costLimit: 1_000))
        registry.register(second, for: .lru(.image))
        let afterReplacing = try registry.route(for: .lru(.image))
        registry.unregister(.lru(.image))

        // Then each read follows the registration before it
        #expect(afterReplacing.backend as? MemoryCache === second)
        #expect(afterReplacing.memory as? MemoryCache === second)
        #expect(throws: AssetsError.backendNotRegistered(.lru(.image), registered: [])) {
            try registry.route(for: .lru(.image))
        }
    }

    @Test func aReplacedBackendIsReleasedThoughItsRouteWasPublished() throws {
        // Given a backend whose route was read (and so published in a table readers hold without a lock)
        let registry = BackendRegistry()
        let flag = Flag()
        do {
            registry.register(TrackedBackend(released: flag), for: .lru(.image))
            let route = try registry.route(for: .lru(.image))
            #expect(route.backend is TrackedBackend)
        }
        #expect(!flag.value.withLock { $0 })

        // When another backend is registered in its place
        registry.register(MemoryCache(limits: .init(costLimit: 1_000)), for: .lru(.image))

        // Then nothing keeps the replaced one (its deinit may close files), and reads see the new one
        #expect(flag.value.withLock { $0 })
        #expect(try registry.route(for: .lru(.image)).backend is MemoryCache)
    }

    @Test func aCompositionIsRoutedAndDroppedWithItsParts() throws {
        // Given `.hybrid(.image)` composed of the memory partition and the disk stand-in
        let registry = BackendRegistry()
        let memory = MemoryCache(limits: .init(costLimit: 1_000))
        registry.register(memory, for: .lru(.image))
        registry.register(MemoryCache(limits: .init(costLimit: 1_000)), for: .disk)
        let hybrid = try registry.route(for: .hybrid(.image))
        #expect(hybrid.memory as? MemoryCache === memory)
        #expect(try registry.route(for: .hybrid(.image)) === hybrid)

        // When its memory part is replaced
        let replacement = MemoryCache(limits: .init(costLimit: 1_000))
        registry.register(replacement, for: .lru(.image))

        // Then the route is composed anew over the new part
        #expect(try registry.route(for: .hybrid(.image)).memory as? MemoryCache === replacement)
    }

    @Test func readsWhileRegisteringAlwaysSeeARegisteredBackend() async throws {
        // Given readers routing `.lru(.image)` while a writer replaces its backend 500 times
        let registry = BackendRegistry()
        let backends = (0..<500).map { _ in MemoryCache(limits: .init(costLimit: 1_000)) }
        registry.register(backends[0], for: .lru(.image))
        let registered = Set(backends.map { ObjectIdentifier($0) })
        let reads = try await withThrowingTaskGroup(of: Int.self) { group in
            group.addTask {
                for backend in backends.dropFirst() { registry.register(backend, for: .lru(.image)) }
                return 0
            }
            for _ in 0..<2 {
                group.addTask {
                    var reads = 0
                    for _ in 0..<5_000 {
                        let route = try registry.route(for: .lru(.image))
                        // Then every read is a whole route over one of the registered backends
                        guard let memory = route.memory as? MemoryCache, registered.contains(ObjectIdentifier(memory))
                        else { throw AssetsError.backendNotRegistered(.lru(.image), registered: []) }
                        reads += 1
                    }
                    return reads
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(reads == 10_000)
        // And the last registration wins
        #expect(try registry.route(for: .lru(.image)).memory as? MemoryCache === backends.last)
    }
}
