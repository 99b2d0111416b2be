import ExampleSupport
import Foundation

let usage = """
    usage: video-example [--cache DIR]
           video-example URL [--range START-END] [--out FILE] [--cache DIR]
           video-example [URL] --download DIR [--timeout SECONDS] [--cache DIR]
           video-example [URL] --proxy [--cache DIR]
           video-example --feed DIR_OR_URLS [--swipe SECONDS] [--cache DIR]

    Reads a video by byte ranges through VideoUtil, caching 1 MiB chunks.

      (no URL)           streams a generated 64 MiB resource (a synthetic byte stream, not a real
                         video) from an embedded origin by ranges with seeks, then replays it
                         from the cache
      URL                a path, file://, http:// or https:// URL; writes the bytes of the range
                         (default: all of it) to FILE (default <temp>/mediaassets-video-example.out)
      --range START-END  byte positions, inclusive as in HTTP (START- reads to the end)
      --download DIR     downloads the URL for offline play into DIR with VideoDownloads: a
                         progressive file, or an HLS stream (.m3u8: a master playlist's top variant
                         and its audio), progress on standard error; prints the local file's or
                         playlist's path. Killed and run again on the same DIR, it resumes and
                         fetches only what is missing. A local path is served by an embedded origin;
                         with no URL a generated HLS stream is
      --timeout SECONDS  how long a download waits on a server that sends nothing before it gives up on
                         the request and asks again from the bytes on disk (default 60, URLSession's)
      --proxy            serves the URL through the caches on 127.0.0.1 and prints the proxy URL at
                         once (flushed); runs until SIGINT or SIGTERM. Without a URL: a generated
                         HLS stream
      --feed DIR_OR_URLS plays a feed through the proxy: the videos in DIR (served by an embedded origin)
                         or comma-separated URLs, one after another, swiping every few seconds while a
                         VideoPreloader readies the next items and their posters; prints each item's
                         time to first byte and the origin bytes
      --swipe SECONDS    how long each item of a feed plays (default 3)
      --cache DIR        the disk cache directory (default: <temp>/mediaassets-video-example,
                         emptied at start)
    """

await ExampleRun.main(
    "video-example", usage: usage,
    valueOptions: ["--cache", "--out", "--range", "--download", "--timeout", "--feed", "--swipe"],
    flags: ["--proxy"]
) { arguments in
    guard arguments.inputs.count <= 1 else {
        throw ExampleError.usage(reason: "one URL at a time, got \(arguments.inputs.count)")
    }
    let cacheDirectory = try ExampleDirectories.cache(
        option: arguments.value("--cache"), example: "video-example", keepsDefault: false
    )
    let timeout = try arguments.value("--timeout").map { text in
        guard let seconds = Double(text), seconds > 0 else {
            throw ExampleError.usage(reason: "--timeout takes a number of seconds above 0, got '\(text)'")
        }
        return seconds
    }
    if let directory = arguments.value("--download") {
        try await DownloadCommand.run(
            input: arguments.inputs.first, to: URL(fileURLWithPath: directory), cacheDirectory: cacheDirectory,
            timeout: timeout
        )
        return 0
    }
    guard timeout == nil else { throw ExampleError.usage(reason: "--timeout goes with --download") }
    if let feed = arguments.value("--feed") {
        let swipe = try arguments.value("--swipe").map { text in
            guard let seconds = Double(text), seconds > 0 else {
                throw ExampleError.usage(reason: "--swipe takes a number of seconds above 0, got '\(text)'")
            }
            return seconds
        }
        try await FeedCommand.run(feed: feed, swipeSeconds: swipe ?? 3, cacheDirectory: cacheDirectory)
        return 0
    }
    if arguments.has("--proxy") {
        try await HLSCommands.proxy(input: arguments.inputs.first, cacheDirectory: cacheDirectory)
        return 0
    }
    if let input = arguments.inputs.first {
        let output =
            arguments.value("--out").map { URL(fileURLWithPath: $0) }
            ?? ExampleDirectories.temporary("mediaassets-video-example.out")
        try await RangeRead.run(
            input: input, rangeText: arguments.value("--range"), cacheDirectory: cacheDirectory, output: output
        )
    } else {
        guard arguments.value("--range") == nil, arguments.value("--out") == nil else {
            throw ExampleError.usage(reason: "--range and --out need a URL")
        }
        try await VideoTour.run(cacheDirectory: cacheDirectory)
    }
    return 0
}
