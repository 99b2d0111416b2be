import Foundation

/// libFuzzer's start-up hook. With `FUZZ_WRITE_SEEDS=<folder>` in the environment it writes the
/// target's seed corpus there and exits, so `Fuzz/run` makes corpora from code instead of committed files.
/// The target is found from the executable's name (`fuzz-<name>`).
@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(
    _ argc: UnsafeMutablePointer<CInt>?,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?
) -> CInt {
    guard let folder = ProcessInfo.processInfo.environment["FUZZ_WRITE_SEEDS"] else { return 0 }
    let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").lastPathComponent
    let name = executable.hasPrefix("fuzz-") ? String(executable.dropFirst("fuzz-".count)) : executable
    guard let target = FuzzTargets.named(name) else {
        FileHandle.standardError.write(Data("no fuzz target named \(name)\n".utf8))
        exit(2)
    }
    exit(writeSeeds(of: target, to: URL(fileURLWithPath: folder, isDirectory: true)))
}

/// Writes `target`'s seeds into `directory`; returns the process status (its own frame, so nothing it
/// allocated is still referenced when the process exits and LeakSanitizer checks).
func writeSeeds(of target: FuzzTarget, to directory: URL) -> CInt {
    do {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (fileName, bytes) in target.seeds() {
            try bytes.write(to: directory.appendingPathComponent(fileName))
        }
        return 0
    } catch {
        FileHandle.standardError.write(Data("cannot write seeds to \(directory.path): \(error)\n".utf8))
        return 1
    }
}
