import Foundation
import MediaAssets
import MediaAssetsSQLite

// DocC: MediaAssets (the landing page)
func doccManagerOverview(bytes: Data) async throws {
    let manager = try AssetsManager()
    try await manager.writeData(bytes, forKey: "avatar-42", storageType: .hybrid(.image))
    let cached = try await manager.readData(forKey: "avatar-42", storageType: .lru(.image))  // the memory tier
    print(cached?.count ?? 0)
}

// DocC: Writing a backend
func doccRegisteringBackends(databasePath: URL) throws {
    let manager = try AssetsManager()
    manager.register(try SQLiteBackend(configuration: .init(path: databasePath)), for: .disk)
    manager.register(DictionaryBackend(), for: .custom("dictionary"))  // the README's backend
}

// DocC: Writing a backend (compositions)
func doccComposingAHybrid(manager: AssetsManager, sqlite: SQLiteBackend) {
    let hybrid = TieredBackend(memory: MemoryCache(limits: .init(costLimit: 64 << 20)), storage: sqlite)
    manager.register(hybrid, for: .hybrid(.image))
}

// DocC: Writing a util
struct JSONDocumentDecoder<Document: Codable & Sendable>: AssetDecoding {
    var identifier: String { "json(\(Document.self))" }
    func decode(_ data: Data, options _: DefaultDecodeOptions) throws -> Document {
        try JSONDecoder().decode(Document.self, from: data)
    }
    func cost(of document: Document) -> Int { (try? JSONEncoder().encode(document).count) ?? 1_024 }
}

// A memory partition of its own, so that hits are decoded documents (`.memory`).
extension LRUCacheType { static let documents = LRUCacheType(rawValue: "documents") }

struct Feed: Codable, Sendable {
    var items: [String]
}

func doccWritingAUtil(feedURL: URL) async throws {
    var configuration = AssetsManager.Configuration()
    configuration.memoryPartitions[.documents] = MemoryCache.Limits(costLimit: 8 << 20)
    let manager = try AssetsManager(configuration: configuration)

    let documents = AssetPipeline(manager: manager, decoder: JSONDocumentDecoder<Feed>())
    let request = AssetRequest(url: feedURL)
    let feed = try await documents.value(for: request, options: .init(), storageType: .hybrid(.documents))
    print(feed.value, feed.source)  // .network, then .memory; .storage once memory dropped it
}
