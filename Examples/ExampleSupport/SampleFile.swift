import Foundation

/// One file the sample origin serves: its path, bytes and content type.
public struct SampleFile: Sendable {
    /// The path on the origin, such as `/animations/confetti.json`.
    public let path: String
    /// The bytes.
    public let data: Data
    /// The `Content-Type` the origin sends.
    public let contentType: String

    /// Creates a file.
    public init(path: String, data: Data, contentType: String) {
        self.path = path
        self.data = data
        self.contentType = contentType
    }
}
