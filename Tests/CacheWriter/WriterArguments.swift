import Foundation
import MediaAssets
import MediaAssetsSQLite

/// A failure of the helper itself (bad arguments), as opposed to a verification failure.
struct WriterFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The command line: a mode, then `--name value` options and `--flag`s.
struct WriterArguments {
    let mode: String
    private var options: [String: String] = [:]

    init(_ arguments: [String]) {
        mode = arguments.count > 1 ? arguments[1] : ""
        var index = 2
        while index < arguments.count {
            let name = String(arguments[index].drop(while: { $0 == "-" }))
            let hasValue = index + 1 < arguments.count && !arguments[index + 1].hasPrefix("--")
            options[name] = hasValue ? arguments[index + 1] : ""
            index += hasValue ? 2 : 1
        }
    }

    func string(_ name: String) throws -> String {
        guard let value = options[name] else { throw WriterFailure("missing --\(name)") }
        return value
    }

    func int(_ name: String, default fallback: Int? = nil) throws -> Int {
        guard let text = options[name] else {
            guard let fallback else { throw WriterFailure("missing --\(name)") }
            return fallback
        }
        guard let value = Int(text) else { throw WriterFailure("--\(name) must be a number, not \(text)") }
        return value
    }

    func flag(_ name: String) -> Bool { options[name] != nil }

    /// Opens the backend the options name.
    func openBackend() throws -> any CacheBackend {
        let path = URL(fileURLWithPath: try string("path"))
        let limit = try int("size-limit")
        switch try string("backend") {
        case "disk":
            // A snapshot at every clean close, however small: each cycle's writer opens from the one the
            // previous verify left, and the kill then tests that the next open does not trust it.
            let configuration = DiskCache.Configuration.tuned(
                directory: path, sizeLimit: limit, indexSnapshotMinimumCount: 0
            )
            return try DiskCache(configuration: configuration)
        case "sqlite":
            // Four writers contend for one file on a loaded CI machine: a lock may be held for seconds there,
            // and these runs check correctness, not latency, so they wait longer than the 2 s default.
            return try SQLiteBackend(
                configuration: SQLiteBackend.Configuration(path: path, sizeLimit: limit, busyTimeout: .seconds(30))
            )
        case let other: throw WriterFailure("unknown backend \(other); use disk or sqlite")
        }
    }
}
