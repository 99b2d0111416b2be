import ExampleSupport
import Foundation

let usage = """
    usage: custom-backend-example [--cache DIR] [--redis redis://HOST:PORT | --redis-cluster HOST:PORT,...]

    Registers backends with an AssetsManager: a DirectoryBackend written in this example under
    .custom("files"), then SQLiteBackend in place of .disk, and fetches through both.

      --cache DIR   the directory holding the three stores: DIR/disk (the DiskCache the manager
                    opens), DIR/files (DirectoryBackend), DIR/cache.sqlite (SQLiteBackend)
                    (default: <temp>/mediaassets-custom-backend-example, emptied at start)
      --redis URL   instead: register .hybrid(.image) as memory → disk → Redis and fetch the
                    image list in two processes with separate disk caches; the second is served
                    from Redis (redis://[user:password@]host:port[/db] or unix:///path)
      --redis-cluster HOST:PORT,...   the same over a Redis Cluster, from these seed nodes
    """

await ExampleRun.main(
    "custom-backend-example", usage: usage, valueOptions: ["--cache", "--redis", "--redis-cluster", "--redis-worker"]
) { arguments in
    guard arguments.inputs.isEmpty else {
        throw ExampleError.usage(reason: "unexpected argument \(arguments.inputs[0])")
    }
    let directory = try ExampleDirectories.cache(
        option: arguments.value("--cache"), example: "custom-backend-example", keepsDefault: false
    )
    if arguments.value("--redis") != nil || arguments.value("--redis-cluster") != nil {
        let configuration = try RedisTour.configuration(
            redis: arguments.value("--redis"), cluster: arguments.value("--redis-cluster"))
        if let worker = arguments.value("--redis-worker").flatMap(Int.init) {
            return try await RedisTour.runWorker(worker, directory: directory, configuration: configuration)
        }
        let passed = ["--redis", "--redis-cluster"].flatMap { option in
            arguments.value(option).map { [option, $0] } ?? []
        }
        return try await RedisTour.runParent(arguments: passed, directory: directory, configuration: configuration)
    }
    try await CustomBackendTour.run(directory: directory)
    return 0
}
