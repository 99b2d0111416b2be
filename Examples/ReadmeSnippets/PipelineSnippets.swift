import Foundation
import MediaAssets

struct FeedDecoder: AssetDecoding {
    var identifier: String { "feed" }
    func decode(_ data: Data, options _: DefaultDecodeOptions) throws -> [String] {
        try JSONDecoder().decode([String].self, from: data)
    }
    func cost(of feed: [String]) -> Int { feed.reduce(0) { $0 + $1.utf8.count } }
}

func quickStartPipeline(manager: AssetsManager) async throws {
    // Coalescing, persistence and revalidation come with the pipeline; `.disk` keeps bytes only, so every
    // hit decodes again. A storage type with a memory tier (`.hybrid(t)`) answers from memory without decoding.
    let feeds = AssetPipeline(manager: manager, decoder: FeedDecoder())
    let url = URL(string: "https://example.com/feed.json")!
    let feed = try await feeds.value(for: AssetRequest(url: url), options: .init(), storageType: .disk)
    print(feed.value.count, feed.source)  // .network, then .storage (decoded again) or .stale
}
