import Foundation
import MediaAssets
import TestSupport
import Testing

@testable import MediaAssetsEncryption

@Suite("Encryption at rest: sealed entries and names")
struct SealedEntryTests {
    func makeEncrypted(_ directory: TemporaryDirectory) throws -> (EncryptedBackend, DiskCache) {
        let disk = try DiskCache(directory: directory.appending("disk"))
        return (EncryptedBackend(wrapping: disk, keys: TestKeys.ring()), disk)
    }

    @Test func aDamagedValueIsAMissAndRemoved() async throws {
        // Given an entry whose stored value has one byte of its ciphertext flipped
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (encrypted, disk) = try makeEncrypted(directory)
        try await encrypted.store(CacheEntry(data: Data(repeating: 3, count: 1_000)), forKey: "k")
        let name = try encrypted.storageName("k")
        var stored = try #require(try await disk.entry(forKey: name))
        stored.data[stored.data.count / 2] ^= 0x01
        try await disk.store(stored, forKey: name)

        // Then it reads as a miss, never as wrong bytes, and is removed
        #expect(try await encrypted.entry(forKey: "k") == nil)
        #expect(try await disk.entry(forKey: name) == nil)
        #expect(encrypted.encryptionStatistics().undecryptable == 1)
    }

    @Test func aValueCopiedUnderAnotherNameDoesNotOpen() async throws {
        // Given two entries, and the stored value of one copied under the other's name
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (encrypted, disk) = try makeEncrypted(directory)
        try await encrypted.store(CacheEntry(data: Data("public".utf8)), forKey: "a")
        try await encrypted.store(CacheEntry(data: Data("private".utf8)), forKey: "b")
        let copied = try #require(try await disk.entry(forKey: try encrypted.storageName("b")))
        try await disk.store(copied, forKey: try encrypted.storageName("a"))

        // Then reading "a" does not hand out "b"'s bytes: the name is authenticated
        #expect(try await encrypted.entry(forKey: "a") == nil)
        #expect(try await encrypted.entry(forKey: "b")?.data == Data("private".utf8))
    }

    @Test func namesKeepTheStructureOfKeysButNotTheirText() throws {
        let namer = try EntryNamer(namingKey: TestKeys.naming)
        let asset = try namer.name(for: "https://cdn.example/a.png")
        let variant = try namer.name(for: "https://cdn.example/a.png@circle(96)")
        let chunk = try namer.name(for: "https://cdn.example/a.png#12")
        #expect(variant.rawValue.hasPrefix(asset.rawValue + "@"))
        #expect(chunk.rawValue.hasPrefix(asset.rawValue + "#"))
        #expect(asset.rawValue.count == EntryNamer.segmentLength && !asset.rawValue.contains("cdn"))
        #expect(try namer.name(for: "https://cdn.example/a.png") == asset, "names are stable")
        #expect(try namer.name(for: "https://cdn.example/b.png") != asset)
        let otherNamer = try EntryNamer(namingKey: TestKeys.key("other", fill: 9))
        #expect(try otherNamer.name(for: "https://cdn.example/a.png") != asset, "names depend on the naming key")
        #expect(throws: EncryptionError.self) {
            try namer.name(for: CacheKey(String(repeating: "@", count: EntryNamer.maximumSeparators + 1)))
        }
    }

    @Test func selectionsMapThroughTheNames() async throws {
        // Given an asset's chunks and a neighbour, encrypted
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (encrypted, _) = try makeEncrypted(directory)
        for key: CacheKey in ["v#0", "v#1", "v#meta", "v@poster", "w#0"] {
            try await encrypted.store(CacheEntry(data: Data([1])), forKey: key)
        }

        // When the chunk prefix goes, then only the chunks went
        try await encrypted.removeEntries(.keyPrefix("v#"))
        for key: CacheKey in ["v#0", "v#1", "v#meta"] { #expect(try await encrypted.entry(forKey: key) == nil) }
        #expect(try await encrypted.entry(forKey: "v@poster") != nil && encrypted.storage is DiskCache)

        // And a prefix that ends inside a segment is refused, naming the operation
        await #expect(throws: AssetsError.self) { try await encrypted.removeEntries(.keyPrefix("v@pos")) }
    }

    @Test func sealedMetadataRoundTripsAndTheHeaderIsChecked() throws {
        let metadata = SealedEntry.SealedMetadata(
            key: "k",
            metadata: CacheMetadata(
                freshUntil: Date(timeIntervalSinceReferenceDate: 10.5), etag: "\"e\"", lastModified: nil,
                contentType: "image/png", staleIfErrorUntil: Date(timeIntervalSinceReferenceDate: 99)))
        let encoded = SealedEntry.encode(metadata)
        #expect(try encoded.withUnsafeBytes { try SealedEntry.decode($0) } == metadata)
        let truncated = Array(encoded.dropLast())
        #expect(throws: SealedEntry.Invalid.self) { try truncated.withUnsafeBytes { try SealedEntry.decode($0) } }
        let notSealed = Data(repeating: 0x41, count: 64)
        #expect(throws: SealedEntry.Invalid.self) { try notSealed.withUnsafeBytes { try SealedEntry.header(of: $0) } }
    }
}
