import Foundation
import SampleOrigin
import TestSupport

// The seeded user: scenarios that use the package as apps and services do, from a seed, against a loopback
// origin whose log every invariant is checked against. See README.md beside this file.
//
//   seeded-user --seed N | --seeds 1,2,5-8 | --seeds-file FILE | --soak SECONDS [--from N]
//               [--scenario lists,faults,video,restart] [--tolerate kept-bytes,download-resume,cold-seek,stats,
//               cache-answer-counts]
//   seeded-user child ...        (the restart scenario's child processes; see ChildCommands)
//
// One line per scenario with its seed and what it checked, a line per violation, and a last line
// `seeded-user: N passed, M failed`. Exit status 1 when an invariant broke (each with the command that replays
// it), 2 for a usage error.

struct Options {
    var seeds: [UInt64] = []
    var soak: Duration?
    var soakStart: UInt64 = 1_000
    var scenarios = Scenario.allCases
    var tolerated: Set<String> = []
}

enum Scenario: String, CaseIterable {
    case lists, faults, video, restart

    func run(_ context: inout ScenarioContext) async throws {
        switch self {
        case .lists: try await ListScenario.run(&context)
        case .faults: try await FaultScenario.run(&context)
        case .video: try await VideoScenario.run(&context)
        case .restart: try await RestartScenario.run(&context)
        }
    }
}

func usage(_ message: String) -> Never {
    Output.error("seeded-user: \(message)")
    Output.error(
        "usage: seeded-user --seed N | --seeds 1,2,5-8 | --seeds-file FILE | --soak SECONDS [--from N]\n"
            + "                   [--scenario \(Scenario.allCases.map(\.rawValue).joined(separator: ","))]\n"
            + "                   [--tolerate \(KnownDefect.allCases.map(\.rawValue).joined(separator: ","))]")
    exit(2)
}

/// `1,2,5-8` as seeds.
func parseSeeds(_ text: String) -> [UInt64] {
    var seeds: [UInt64] = []
    for part in text.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\n" }) where !part.hasPrefix("#") {
        let bounds = part.split(separator: "-").map { UInt64($0.trimmingCharacters(in: .whitespaces)) }
        switch bounds.count {
        case 1: if let seed = bounds[0] { seeds.append(seed) } else { usage("not a seed: \(part)") }
        case 2:
            guard let low = bounds[0], let high = bounds[1], low <= high, high - low < 100_000 else {
                usage("not a seed range: \(part)")
            }
            seeds.append(contentsOf: low...high)
        default: usage("not a seed: \(part)")
        }
    }
    return seeds
}

func parseOptions(_ arguments: [String]) -> Options {
    var options = Options()
    var index = 0
    func value() -> String {
        index += 1
        guard index < arguments.count else { usage("\(arguments[index - 1]) needs a value") }
        return arguments[index]
    }
    while index < arguments.count {
        switch arguments[index] {
        case "--seed", "--seeds": options.seeds += parseSeeds(value())
        case "--seeds-file":
            let path = value()
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { usage("cannot read \(path)") }
            // A `#` starts a comment, to the end of its line.
            let lines = text.split(separator: "\n").map { String($0.prefix { $0 != "#" }) }
            options.seeds += parseSeeds(lines.joined(separator: ","))
        case "--soak":
            guard let seconds = Int(value()), seconds > 0 else { usage("--soak takes whole seconds") }
            options.soak = .seconds(seconds)
        case "--from":
            guard let start = UInt64(value()) else { usage("--from takes a seed") }
            options.soakStart = start
        case "--scenario", "--scenarios":
            options.scenarios = value().split(separator: ",").map { name in
                guard let scenario = Scenario(rawValue: String(name)) else { usage("no scenario \(name)") }
                return scenario
            }
        case "--tolerate":
            for name in value().split(separator: ",") {
                guard KnownDefect(rawValue: String(name)) != nil else { usage("no known defect \(name)") }
                options.tolerated.insert(String(name))
            }
        default: usage("unknown argument \(arguments[index])")
        }
        index += 1
    }
    if options.seeds.isEmpty && options.soak == nil { usage("give --seed, --seeds, --seeds-file or --soak") }
    return options
}

/// This program, for the restart scenario's children.
let executable = URL(
    fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        ?? CommandLine.arguments[0])

/// Runs one scenario of one seed in a fresh origin and directory; prints its line; returns whether it passed.
func run(_ scenario: Scenario, seed: UInt64, options: Options) async -> Bool {
    let origin = SampleOrigin()
    let directory: TemporaryDirectory
    do {
        try origin.start()
        directory = try TemporaryDirectory("seeded-user")
    } catch {
        Output.line("seed \(seed) \(scenario.rawValue): could not set up: \(error)")
        return false
    }
    defer {
        origin.stop()
        directory.remove()
    }
    let log = ScenarioLog()
    // SplitMix64 states of nearby seeds are one stream shifted: the seed and the scenario are mixed first.
    var mixer = SeededGenerator(seed: seed ^ (UInt64(Scenario.allCases.firstIndex(of: scenario) ?? 0) << 56))
    let generatorSeed = mixer.next()
    let context = ScenarioContext(
        seed: seed, random: SeededGenerator(seed: generatorSeed), origin: origin, directory: directory, log: log,
        executable: executable)
    let started = ContinuousClock.now
    // A scenario that hangs is a violation too: past its bound the run stops with the seed to replay.
    let watchdog = Task {
        try await Task.sleep(for: Limits.scenarioTimeout)
        Output.line("seed \(seed) \(scenario.rawValue): VIOLATION hung: no end after \(Limits.scenarioTimeout)")
        Output.line("replay: seeded-user --seed \(seed) --scenario \(scenario.rawValue)")
        Output.line("seeded-user: hung")
        exit(1)
    }
    do {
        var context = context
        try await scenario.run(&context)
    } catch {
        log.violate("typed-errors", "the scenario stopped on \(errorName(error))")
    }
    watchdog.cancel()
    let elapsed = ContinuousClock.now - started
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let failing = log.violations.filter { !options.tolerated.contains($0.invariant) }
    let verdict = failing.isEmpty ? "ok" : "FAILED (\(failing.count) violations)"
    Output.line(
        "seed \(seed) \(scenario.rawValue): \(log.facts.joined(separator: "; ")) [\(verdict), "
            + String(format: "%.1f s]", seconds))
    for reason in log.skipped { Output.line("  skipped: \(reason)") }
    for violation in log.violations {
        let tolerated = options.tolerated.contains(violation.invariant)
        Output.line(
            "  \(tolerated ? "tolerated known defect" : "VIOLATION") seed \(seed) \(scenario.rawValue) \(violation)")
    }
    return failing.isEmpty
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "child" { await ChildCommands.run(Array(arguments.dropFirst())) }
let options = parseOptions(arguments)
var passed = 0
var failures: [String] = []
/// Runs every scenario of `seed`, counting what passed and keeping the command that replays what failed.
func runSeed(_ seed: UInt64) async -> (passed: Int, failures: [String]) {
    var result = (passed: 0, failures: [String]())
    for scenario in options.scenarios {
        if await run(scenario, seed: seed, options: options) {
            result.passed += 1
        } else {
            result.failures.append("seeded-user --seed \(seed) --scenario \(scenario.rawValue)")
        }
    }
    return result
}
var seeds = options.seeds[...]
let deadline = options.soak.map { ContinuousClock.now + $0 }
var nextSoakSeed = options.soakStart
while true {
    let seed: UInt64
    if let deadline {
        guard ContinuousClock.now < deadline else { break }
        seed = nextSoakSeed
        nextSoakSeed += 1
    } else {
        guard let next = seeds.popFirst() else { break }
        seed = next
    }
    let result = await runSeed(seed)
    passed += result.passed
    failures += result.failures
}
for failure in failures { Output.line("replay: \(failure)") }
Output.line("seeded-user: \(passed) passed, \(failures.count) failed")
exit(failures.isEmpty ? 0 : 1)
