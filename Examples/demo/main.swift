import ExampleSupport
import Foundation

let usage = """
    usage: demo [--cache DIR] [--out DIR]

    Avatars in a list, a Lottie animation and a video stream, all through one AssetsManager with
    the default backends, served by an embedded origin (no network). Run it twice: the second run
    is served from the disk cache (the origin starts anew each run and shows 0 downloads).

      --cache DIR   the disk cache directory (default: <temp>/mediaassets-demo, kept between runs)
      --out DIR     where the styled avatars and the contact sheet go
                    (default: <temp>/mediaassets-demo-output)
    """

await ExampleRun.main("demo", usage: usage, valueOptions: ["--cache", "--out"]) { arguments in
    guard arguments.inputs.isEmpty else {
        throw ExampleError.usage(reason: "unexpected argument \(arguments.inputs[0])")
    }
    let cacheDirectory = try ExampleDirectories.cache(
        option: arguments.value("--cache"), example: "demo", keepsDefault: true
    )
    let outputDirectory =
        arguments.value("--out").map { URL(fileURLWithPath: $0, isDirectory: true) }
        ?? ExampleDirectories.temporary("mediaassets-demo-output", isDirectory: true)
    try await Demo.run(cacheDirectory: cacheDirectory, outputDirectory: outputDirectory)
    return 0
}
