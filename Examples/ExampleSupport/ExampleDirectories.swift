import Foundation

/// Where an example keeps its cache and writes its output files.
public enum ExampleDirectories {
    /// The cache directory: `option` when given (used as is, and kept), otherwise
    /// `<temp>/mediaassets-<example>`.
    ///
    /// - Parameters:
    ///   - option: the `--cache DIR` value, if any.
    ///   - example: the example's name.
    ///   - keepsDefault: `true` to reuse the default directory from run to run (the demo's second
    ///     run is served from it); `false` to empty it first, so every run starts cold.
    /// - Throws: `ExampleError.cannotPrepareDirectory` if the default directory cannot be emptied.
    public static func cache(option: String?, example: String, keepsDefault: Bool) throws -> URL {
        if let option { return URL(fileURLWithPath: option, isDirectory: true).standardizedFileURL }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("mediaassets-\(example)", isDirectory: true)
        if !keepsDefault { try removeIfPresent(directory) }
        return directory
    }

    /// A path under the temporary directory: `<temp>/<name>`, for default output files.
    public static func temporary(_ name: String, isDirectory: Bool = false) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent(name, isDirectory: isDirectory)
    }

    /// Creates `directory` and its parents if missing.
    ///
    /// - Throws: `ExampleError.cannotPrepareDirectory` with the system's reason.
    public static func create(_ directory: URL) throws {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw ExampleError.cannotPrepareDirectory(path: directory.path, reason: ExampleRun.oneLine(error))
        }
    }

    /// Writes `data` to `file` atomically, creating its directory.
    ///
    /// - Throws: `ExampleError.cannotWrite` with the system's reason.
    public static func write(_ data: Data, to file: URL) throws {
        do {
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true
            )
            try data.write(to: file, options: .atomic)
        } catch {
            throw ExampleError.cannotWrite(path: file.path, reason: ExampleRun.oneLine(error))
        }
    }

    private static func removeIfPresent(_ directory: URL) throws {
        guard FileManager.default.fileExists(atPath: directory.path) else { return }
        do {
            try FileManager.default.removeItem(at: directory)
        } catch {
            throw ExampleError.cannotPrepareDirectory(path: directory.path, reason: ExampleRun.oneLine(error))
        }
    }
}
