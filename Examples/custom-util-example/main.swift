import ExampleSupport
import Foundation
import MediaAssets
import SampleOrigin

let usage = """
    usage: custom-util-example [--cache DIR]

    Runs DocumentUtil — a util for Decodable JSON documents written on the public API in about 40
    lines — against an embedded origin: a download, a memory hit, five concurrent asks sharing one
    download, an invalid document refused and not stored, a revalidation answered 304, and a second
    manager on the same directory served from disk.

      --cache DIR   the disk cache directory (default: <temp>/mediaassets-custom-util-example,
                    emptied at start)
    """

/// The document type of the tour.
struct Feed: Codable, Sendable, Equatable {
    var title: String
    var items: [String]
}

await ExampleRun.main("custom-util-example", usage: usage, valueOptions: ["--cache"]) { arguments in
    let cacheDirectory = try ExampleDirectories.cache(
        option: arguments.value("--cache"), example: "custom-util-example", keepsDefault: false
    )
    let origin = SampleOrigin()
    try origin.start()
    defer { origin.stop() }
    let feed = Feed(title: "News", items: ["one", "two", "three"])
    origin.register("/feed.json", data: try JSONEncoder().encode(feed), contentType: "application/json")
    origin.register(
        "/live.json", data: try JSONEncoder().encode(feed), contentType: "application/json",
        cacheControl: "no-cache")
    origin.register("/broken.json", data: Data("{\"title\": 1".utf8), contentType: "application/json")

    func makeManager() throws -> AssetsManager {
        var configuration = AssetsManager.Configuration(disk: .init(directory: cacheDirectory))
        configuration.memoryPartitions[.documents] = MemoryCache.Limits(costLimit: 8 << 20)
        return try AssetsManager(configuration: configuration)
    }
    let manager = try makeManager()
    let documents = DocumentUtil<Feed>(manager: manager)
    let feedURL = origin.url(for: "/feed.json")

    func show(_ step: String, _ result: AssetResult<Feed>) {
        print("\(step.padding(toLength: 34, withPad: " ", startingAt: 0)) \(result.source)  \(result.value.title)")
    }
    show("first ask", try await documents.document(at: feedURL))
    show("second ask", try await documents.document(at: feedURL))
    let concurrent = try await withThrowingTaskGroup(of: AssetResult<Feed>.self) { group in
        for _ in 0..<5 { group.addTask { try await documents.document(at: origin.url(for: "/live.json")) } }
        var results: [AssetResult<Feed>] = []
        for try await result in group { results.append(result) }
        return results
    }
    print(
        "five concurrent asks               \(concurrent.count) results, "
            + "\(origin.requestCount(for: "/live.json")) origin request")
    show("no-cache document, asked again", try await documents.document(at: origin.url(for: "/live.json")))
    do {
        _ = try await documents.document(at: origin.url(for: "/broken.json"))
    } catch {
        print("invalid document                   refused: \(ExampleRun.oneLine(error))")
    }
    await manager.shutdown()  // writes everything staged: nothing is lost at exit
    let stored = try await manager.readData(forKey: "\(origin.url(for: "/broken.json"))", storageType: .disk)
    print("invalid document stored            \(stored != nil)")
    await (try manager.backend(for: .disk) as? DiskCache)?.close()

    let reopened = DocumentUtil<Feed>(manager: try makeManager())
    show("new manager, same directory", try await reopened.document(at: feedURL))
    print("\nstatistics   \(documents.statistics)")
    print(
        "origin requests  /feed.json \(origin.requestCount(for: "/feed.json")), "
            + "/live.json \(origin.requestCount(for: "/live.json")) (one 304)")
    return 0
}
