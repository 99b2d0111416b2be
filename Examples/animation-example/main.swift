import ExampleSupport
import Foundation
import MediaAssets
import MediaAssetsAnimation

let usage = """
    usage: animation-example [--cache DIR] [INPUT...]

    Loads Lottie animations through AnimationUtil and prints what it parsed.

      (no INPUT)    loads the sample animations from an embedded origin, again (from memory,
                    no parsing), and after emptying memory (from disk); then a dotLottie
                    archive, and an invalid download being refused and not cached
      INPUT...      Lottie JSON or dotLottie (.lottie) files: paths, file://, http:// or https://
                    URLs; prints one JSON line per animation; an invalid input prints its error
                    on stderr and the run exits with status 1
      --cache DIR   the disk cache directory (default: <temp>/mediaassets-animation-example,
                    emptied at start)
    """

await ExampleRun.main("animation-example", usage: usage, valueOptions: ["--cache"]) { arguments in
    let cacheDirectory = try ExampleDirectories.cache(
        option: arguments.value("--cache"), example: "animation-example", keepsDefault: false
    )
    if arguments.inputs.isEmpty {
        try await AnimationTour.run(cacheDirectory: cacheDirectory)
        return 0
    }
    return try await AnimationInspection.run(inputs: arguments.inputs, cacheDirectory: cacheDirectory)
}
