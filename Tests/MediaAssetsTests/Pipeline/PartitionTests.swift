import Foundation
import MediaAssets
import TestSupport
import Testing

@Suite("Partitions on the shared disk")
struct PartitionTests {
    @Test("removeAll(storageType: .hybrid(.image)) removes images only: animations and video chunks stay")
    func clearingOneMediaTypeKeepsTheOthers() async throws {
        // Given images, animations and video chunks on the one disk cache
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let manager = try AssetsManager.forTesting(directory: directory)
        try await manager.writeData(Data("image".utf8), forKey: "avatar", storageType: .hybrid(.image))
        try await manager.writeData(Data("lottie".utf8), forKey: "confetti", storageType: .hybrid(.lottie))
        try await manager.writeData(Data("chunk".utf8), forKey: "movie#0", storageType: .disk)

        // When the image storage is emptied
        try await manager.removeAll(storageType: .hybrid(.image))

        // Then only the image is gone, from memory and disk
        #expect(try await manager.readData(forKey: "avatar", storageType: .disk) == nil)
        #expect(try await manager.readData(forKey: "avatar", storageType: .lru(.image)) == nil)
        #expect(try await manager.readData(forKey: "confetti", storageType: .hybrid(.lottie)) != nil)
        #expect(try await manager.readData(forKey: "movie#0", storageType: .disk) != nil)
        let stored = try #require(try await manager.cachedEntry(forKey: "confetti", storageType: .disk))
        #expect(stored.metadata.partition == .lottie)
    }
}
