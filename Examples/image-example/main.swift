import ExampleSupport
import Foundation

let usage = """
    usage: image-example [--cache DIR] [--out FILE.png]
           image-example INPUT [--style STYLE] [--format png|webp] [--frames DIR] [--cache DIR] [--out FILE]

    Fetches, decodes and styles images through ImageUtil.

      (no INPUT)     a contact list of 200 rows from 40 users in 3 styles, served by an embedded
                     origin: 40 downloads, 120 renders, the rest from memory; writes a contact
                     sheet of the styled avatars (default <temp>/mediaassets-image-example-sheet.png)
      INPUT          a JPEG, PNG, WebP, GIF, HEIC or AVIF: a path, file://, http:// or https:// URL;
                     writes it, styled, as PNG (the first frame of an animation; default
                     <temp>/mediaassets-image-example.png)
      --format FMT   png (default) or webp: the encoding of the styled output (WebP at quality 80)
      --frames DIR   also writes every frame of an animation as DIR/frame-NNN.png
      --style STYLE  \(AvatarStyleArgument.forms)
                     (default original)
      --cache DIR    the disk cache directory (default: <temp>/mediaassets-image-example,
                     emptied at start)
    """

let valueOptions: Set<String> = ["--cache", "--out", "--style", "--format", "--frames"]
await ExampleRun.main("image-example", usage: usage, valueOptions: valueOptions) { arguments in
    guard arguments.inputs.count <= 1 else {
        throw ExampleError.usage(reason: "one INPUT at a time, got \(arguments.inputs.count)")
    }
    let style = try arguments.value("--style").map(AvatarStyleArgument.parse) ?? .original
    let cacheDirectory = try ExampleDirectories.cache(
        option: arguments.value("--cache"), example: "image-example", keepsDefault: false
    )
    let output = arguments.value("--out").map { URL(fileURLWithPath: $0) }
    let format = try ImageInspection.OutputFormat.parse(arguments.value("--format"))
    if let input = arguments.inputs.first {
        try await ImageInspection.run(
            input: input, style: style, format: format, cacheDirectory: cacheDirectory,
            output: output ?? ExampleDirectories.temporary("mediaassets-image-example.\(format.rawValue)"),
            framesDirectory: arguments.value("--frames").map { URL(fileURLWithPath: $0) }
        )
    } else {
        for option in ["--style", "--format", "--frames"] where arguments.value(option) != nil {
            throw ExampleError.usage(reason: "\(option) needs an INPUT (the list uses its own three styles)")
        }
        try await AvatarListTour.run(
            cacheDirectory: cacheDirectory,
            output: output ?? ExampleDirectories.temporary("mediaassets-image-example-sheet.png")
        )
    }
    return 0
}
