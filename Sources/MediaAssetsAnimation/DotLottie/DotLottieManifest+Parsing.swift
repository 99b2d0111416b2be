import Foundation

extension DotLottieManifest {
    /// Parses `manifest.json`; unknown keys are ignored, `animations` with an `id` each is required.
    static func parse(_ data: Data, options: LottieParsingOptions) throws -> DotLottieManifest {
        try JSONByteReader.reading(data, options: options) { reader in
            var parser = LottieModelParser(reader: reader, options: options)
            return try parser.parseManifest()
        }
    }
}

extension LottieModelParser {
    /// Reads a manifest object, reusing the Lottie parser's typed readers and JSON paths.
    mutating func parseManifest() throws -> DotLottieManifest {
        guard try expectObject(at: "$", depth: 0) else {
            try reader.expectEnd()
            throw firstIssue ?? LottieError.invalid(path: "$", reason: "expected an object")
        }
        var manifest = DotLottieManifest(version: nil, animations: [])
        var animations: [DotLottieManifest.Animation]?
        if try !reader.beginObject(depth: 1) {
            repeat {
                switch try reader.readKeyText() {
                case "version": manifest.version = try readVersionText(depth: 1)
                case "generator": manifest.generator = try readString(at: "$.generator", depth: 1)
                case "author": manifest.author = try readString(at: "$.author", depth: 1)
                case "activeAnimationId":
                    manifest.initialAnimationID = try readString(at: "$.activeAnimationId", depth: 1)
                case "initial":
                    manifest.initialAnimationID = try readInitial(depth: 1) ?? manifest.initialAnimationID
                case "animations": animations = try readManifestAnimations(depth: 1)
                default: try reader.skipValue(depth: 1)
                }
            } while try reader.continueContainer(closer: UInt8(ascii: "}"))
        }
        try reader.expectEnd()
        if let firstIssue { throw firstIssue }
        guard let animations else {
            throw LottieError.invalid(path: "$.animations", reason: "missing required key (the animation list)")
        }
        manifest.animations = animations
        return manifest
    }

    /// Reads `version` written as a string or a number.
    private mutating func readVersionText(depth: Int) throws -> String? {
        let byte = try reader.peekValueStart()
        guard byte == UInt8(ascii: "-") || JSONByteReader.isDigit(byte) else {
            return try readString(at: "$.version", depth: depth)
        }
        let number = try reader.readNumber()
        return Int(exactly: number).map(String.init) ?? String(number)
    }

    /// Reads v2 `initial` (`{"animation": id}`) and returns the id.
    private mutating func readInitial(depth: Int) throws -> String? {
        guard try expectObject(at: "$.initial", depth: depth) else { return nil }
        var identifier: String?
        if try reader.beginObject(depth: depth + 1) { return nil }
        repeat {
            if try reader.readKeyText() == "animation" {
                identifier = try readString(at: "$.initial.animation", depth: depth + 1)
            } else {
                try reader.skipValue(depth: depth + 1)
            }
        } while try reader.continueContainer(closer: UInt8(ascii: "}"))
        return identifier
    }

    /// Reads `animations`: objects that each need a string `id`.
    private mutating func readManifestAnimations(depth: Int) throws -> [DotLottieManifest.Animation]? {
        guard try expectArray(at: "$.animations", depth: depth) else { return nil }
        var animations: [DotLottieManifest.Animation] = []
        if try reader.beginArray(depth: depth + 1) { return animations }
        var index = 0
        repeat {
            guard index < options.maximumAssetCount else {
                throw LottieError.tooManyElements(path: "$.animations", limit: options.maximumAssetCount)
            }
            if try expectObject(at: "$.animations[\(index)]", depth: depth + 1) {
                var identifier: String?
                if try !reader.beginObject(depth: depth + 2) {
                    repeat {
                        if try reader.readKeyText() == "id" {
                            identifier = try readString(at: "$.animations[\(index)].id", depth: depth + 2)
                        } else {
                            try reader.skipValue(depth: depth + 2)
                        }
                    } while try reader.continueContainer(closer: UInt8(ascii: "}"))
                }
                if let identifier {
                    animations.append(DotLottieManifest.Animation(id: identifier))
                } else {
                    recordIssue("$.animations[\(index)].id", "missing required key (the animation identifier)")
                }
            }
            index += 1
        } while try reader.continueContainer(closer: UInt8(ascii: "]"))
        return animations
    }
}
