import Foundation
import MediaAssets

/// A fourth util, for `Decodable` JSON documents (feeds, configuration, manifests), written on the
/// package's public API only. Coalescing, memory hits without decoding, disk persistence,
/// revalidation (304s, stale-while-revalidate, stale-if-error) and "nothing invalid is stored" all
/// come from `AssetPipeline`; the util is a decoder and one call.
final class DocumentUtil<Document: Codable & Sendable>: Sendable {
    /// Decodes JSON as `Document`; bytes that do not decode are never stored.
    struct Decoder: AssetDecoding {
        var identifier: String { "json(\(Document.self))" }

        func decode(_ data: Data, options _: DefaultDecodeOptions) throws -> Document {
            try JSONDecoder().decode(Document.self, from: data)
        }

        /// An estimate for the memory partition's limit: the document's size as JSON.
        func cost(of document: Document) -> Int {
            (try? JSONEncoder().encode(document).count) ?? 1_024
        }
    }

    private let pipeline: AssetPipeline<Decoder>

    /// Creates a util over `manager`.
    init(manager: AssetsManager) {
        pipeline = AssetPipeline(manager: manager, decoder: Decoder())
    }

    /// The document at `url`, with where it came from (memory, storage, network or stale).
    func document(
        at url: URL, storageType: StorageType = .hybrid(.documents)
    ) async throws -> AssetResult<Document> {
        try await pipeline.value(for: AssetRequest(url: url), options: DefaultDecodeOptions(), storageType: storageType)
    }

    /// What the pipeline did: decodes, memory and storage hits, network fetches, joins.
    var statistics: PipelineStatistics { pipeline.statistics }
}

extension LRUCacheType {
    /// The memory partition of decoded documents.
    static let documents = LRUCacheType(rawValue: "documents")
}
