import Foundation
import Testing

/// Every Swift sample in the README and the DocC articles is compiled: it must stand, line for line, in the
/// snippets target (`Examples/ReadmeSnippets`), which is built with the package. A sample edited in the docs
/// alone, or code changed under a sample, fails here or fails the build.
@Suite("Documentation samples")
struct DocumentationSnippetTests {
    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func everySwiftSampleInTheDocsIsCompiledInTheSnippetsTarget() throws {
        let snippetLines = try Self.swiftFiles(under: "Examples/ReadmeSnippets")
            .flatMap { try Self.normalizedLines(String(contentsOf: $0, encoding: .utf8)) }
        var documents = [Self.root.appendingPathComponent("README.md")]
        documents += try Self.files(under: "Sources") { $0.pathExtension == "md" && $0.path.contains(".docc/") }
        var samples = 0
        for document in documents {
            let text = try String(contentsOf: document, encoding: .utf8)
            for sample in Self.swiftSamples(in: text) {
                samples += 1
                let lines = Self.normalizedLines(sample.code)
                let place = document.path.replacingOccurrences(of: Self.root.path + "/", with: "")
                #expect(
                    Self.contains(snippetLines, lines),
                    "\(place):\(sample.line): this sample is not in Examples/ReadmeSnippets: \(lines.first ?? "")")
            }
        }
        #expect(samples >= 30, "found \(samples) samples: the extraction missed some")
    }

    @Test func theExtractionFindsFencedSwiftOnly() {
        let text = "intro\n```swift\nlet a = 1\n  let b = 2\n```\n```\nnot swift\n```\n```swift\nf()\n```\n"
        let samples = Self.swiftSamples(in: text)
        #expect(samples.map(\.code) == ["let a = 1\n  let b = 2", "f()"])
        #expect(samples.map(\.line) == [2, 9])
        #expect(Self.contains(["x", "let a = 1", "let b = 2", "y"], Self.normalizedLines(samples[0].code)))
        #expect(!Self.contains(["let b = 2", "let a = 1"], Self.normalizedLines(samples[0].code)))
    }

    // MARK: Helpers

    /// The fenced Swift blocks of a Markdown text, with the line of each opening fence (1-based).
    static func swiftSamples(in text: String) -> [(code: String, line: Int)] {
        var samples: [(code: String, line: Int)] = []
        var current: [String]?
        var opening = 0
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if var block = current {
                if trimmed == "```" {
                    samples.append((block.joined(separator: "\n"), opening))
                    current = nil
                } else {
                    block.append(String(line))
                    current = block
                }
            } else if trimmed == "```swift" {
                current = []
                opening = index + 1
            }
        }
        return samples
    }

    /// Lines without indentation, blank lines or runs of spaces, so the formatter's alignment of comments
    /// and a sample's indentation inside a function do not count.
    static func normalizedLines(_ code: String) -> [String] {
        code.split(separator: "\n").map {
            $0.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
        }.filter { !$0.isEmpty }
    }

    /// Whether `lines` stand in `haystack` one after another.
    static func contains(_ haystack: [String], _ lines: [String]) -> Bool {
        guard !lines.isEmpty, lines.count <= haystack.count else { return lines.isEmpty }
        return (0...(haystack.count - lines.count)).contains { start in
            haystack[start..<(start + lines.count)].elementsEqual(lines)
        }
    }

    private static func swiftFiles(under folder: String) throws -> [URL] {
        try files(under: folder) { $0.pathExtension == "swift" }
    }

    private static func files(under folder: String, where keep: (URL) -> Bool) throws -> [URL] {
        let base = root.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: base.path])
        }
        return walker.compactMap { $0 as? URL }.filter(keep).sorted { $0.path < $1.path }
    }
}
