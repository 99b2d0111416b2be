import Foundation

/// Turns a command-line input into the URL the manager fetches.
public enum ExampleInput {
    /// The URL for `argument`: an http(s) URL as given, a file:// URL or a plain path (relative to
    /// the working directory) as a file URL that must name an existing regular file.
    ///
    /// - Throws: `ExampleError.noSuchFile` or `ExampleError.unsupportedScheme`.
    public static func url(for argument: String) throws -> URL {
        if let schemeEnd = argument.range(of: "://") {
            let scheme = argument[..<schemeEnd.lowerBound].lowercased()
            guard let url = URL(string: argument) else { throw ExampleError.unsupportedScheme(input: argument) }
            switch scheme {
            case "http", "https":
                return url
            case "file":
                try checkRegularFile(url.path)
                return url
            default:
                throw ExampleError.unsupportedScheme(input: argument)
            }
        }
        let url = URL(fileURLWithPath: argument).standardizedFileURL
        try checkRegularFile(url.path)
        return url
    }

    private static func checkRegularFile(_ path: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw ExampleError.noSuchFile(path: path)
        }
    }
}
