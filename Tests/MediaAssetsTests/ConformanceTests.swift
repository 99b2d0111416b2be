import Foundation
import MediaAssets
import TestSupport
import Testing

/// The shared conformance suite over every backend the core ships, plus one written as an app would.
@Suite("Backend conformance")
struct ConformanceTests {
    static let fixtures: [BackendFixture] = [
        BackendFixture("memory") { _ in MemoryCache(limits: .init(costLimit: 64 << 20)) },
        BackendFixture("disk") { directory in
            try DiskCache(directory: directory.appending("disk"), sizeLimit: 64 << 20)
        },
        BackendFixture("hybrid") { directory in
            HybridBackend(
                memory: MemoryCache(limits: .init(costLimit: 64 << 20)),
                storage: try DiskCache(directory: directory.appending("disk"), sizeLimit: 64 << 20)
            )
        },
        BackendFixture("custom (RecordingBackend)") { _ in RecordingBackend() },
    ]

    @Test(arguments: fixtures, BackendConformance.allCases)
    func conformance(fixture: BackendFixture, check: BackendConformance) async throws {
        try await fixture.withBackend { try await check.check($0) }
    }
}
