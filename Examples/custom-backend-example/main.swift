import ExampleSupport
import Foundation

let usage = """
    usage: custom-backend-example [--cache DIR]

    Registers backends with an AssetsManager: a DirectoryBackend written in this example under
    .custom("files"), then SQLiteBackend in place of .disk, and fetches through both.

      --cache DIR   the directory holding the three stores: DIR/disk (the DiskCache the manager
                    opens), DIR/files (DirectoryBackend), DIR/cache.sqlite (SQLiteBackend)
                    (default: <temp>/mediaassets-custom-backend-example, emptied at start)
    """

await ExampleRun.main("custom-backend-example", usage: usage, valueOptions: ["--cache"]) { arguments in
    guard arguments.inputs.isEmpty else {
        throw ExampleError.usage(reason: "unexpected argument \(arguments.inputs[0])")
    }
    let directory = try ExampleDirectories.cache(
        option: arguments.value("--cache"), example: "custom-backend-example", keepsDefault: false
    )
    try await CustomBackendTour.run(directory: directory)
    return 0
}
