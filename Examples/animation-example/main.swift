import ExampleSupport
import Foundation
import MediaAssets
import MediaAssetsAnimation

let usage = """
    usage: animation-example [--cache DIR] [--export OUT.lottie] [INPUT...]

    Loads Lottie animations through AnimationUtil and prints what it parsed.

      (no INPUT)    loads the sample animations from an embedded origin, again (from memory,
                    no parsing), and after emptying memory (from disk); then a dotLottie
                    archive, and an invalid download being refused and not cached
      INPUT...      Lottie JSON or dotLottie (.lottie) files: paths, file://, http:// or https://
                    URLs; prints one JSON line per animation on stdout, with its image assets
                    (external ones fetched and cached through ImageUtil, embedded ones decoded)
                    and their sizes; progress and statistics go to stderr; an invalid input
                    prints its error on stderr and the run exits with status 1
      --export OUT  with one Lottie JSON input: writes a self-contained .lottie archive (the
                    animation with every image inlined; dotLottie v1 layout)
      --cache DIR   the disk cache directory (default: <temp>/mediaassets-animation-example,
                    emptied at start)
    """

await ExampleRun.main("animation-example", usage: usage, valueOptions: ["--cache", "--export"]) { arguments in
    let cacheDirectory = try ExampleDirectories.cache(
        option: arguments.value("--cache"), example: "animation-example", keepsDefault: false
    )
    if arguments.inputs.isEmpty {
        try await AnimationTour.run(cacheDirectory: cacheDirectory)
        return 0
    }
    return try await AnimationInspection.run(
        inputs: arguments.inputs, cacheDirectory: cacheDirectory, exportPath: arguments.value("--export")
    )
}
