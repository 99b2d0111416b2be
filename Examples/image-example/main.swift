import ExampleSupport
import Foundation

let usage = """
    usage: image-example [--cache DIR] [--out FILE.png]
           image-example INPUT [--style STYLE] [--cache DIR] [--out FILE.png]

    Fetches, decodes and styles images through ImageUtil.

      (no INPUT)     a contact list of 200 rows from 40 users in 3 styles, served by an embedded
                     origin: 40 downloads, 120 renders, the rest from memory; writes a contact
                     sheet of the styled avatars (default <temp>/mediaassets-image-example-sheet.png)
      INPUT          a JPEG or PNG: a path, file://, http:// or https:// URL; writes it, styled,
                     as PNG (default <temp>/mediaassets-image-example.png)
      --style STYLE  \(AvatarStyleArgument.forms)
                     (default original)
      --cache DIR    the disk cache directory (default: <temp>/mediaassets-image-example,
                     emptied at start)
    """

await ExampleRun.main("image-example", usage: usage, valueOptions: ["--cache", "--out", "--style"]) { arguments in
    guard arguments.inputs.count <= 1 else {
        throw ExampleError.usage(reason: "one INPUT at a time, got \(arguments.inputs.count)")
    }
    let style = try arguments.value("--style").map(AvatarStyleArgument.parse) ?? .original
    let cacheDirectory = try ExampleDirectories.cache(
        option: arguments.value("--cache"), example: "image-example", keepsDefault: false
    )
    let output = arguments.value("--out").map { URL(fileURLWithPath: $0) }
    if let input = arguments.inputs.first {
        try await ImageInspection.run(
            input: input, style: style, cacheDirectory: cacheDirectory,
            output: output ?? ExampleDirectories.temporary("mediaassets-image-example.png")
        )
    } else {
        guard arguments.value("--style") == nil else {
            throw ExampleError.usage(reason: "--style needs an INPUT (the list uses its own three styles)")
        }
        try await AvatarListTour.run(
            cacheDirectory: cacheDirectory,
            output: output ?? ExampleDirectories.temporary("mediaassets-image-example-sheet.png")
        )
    }
    return 0
}
