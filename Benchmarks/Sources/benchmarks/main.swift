// The Syringe comparison table.
//
//   swift run -c release --package-path Benchmarks benchmarks [--filter <substring>] [--json]
//
// See Benchmarks/README.md for what each scenario measures.
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes to standard error (progress and usage), unbuffered.
func printError(_ text: String) {
    var text = text
    text.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
}

// MARK: - Arguments

let usage = """
    USAGE: benchmarks [--filter <substring>] [--json] [--contender <name>]... [--reps <n>] [--ops <n>] [--graph-ops <n>] [--no-pairs]

      --filter <substring>  only the scenario with that id (S1…S7, G1…G3, SC1, SC2, A1…A3, W1…W6, R, M), or else those whose
                            id begins with it (--filter W: W1…W6), or else those whose id or title contains it
                            (case-insensitive), e.g. --filter S2, --filter W, --filter shared
      --json                machine-readable output on stdout (progress still goes to stderr)
      --contender <name>    only these columns: syringe, by-hand, swift-locked, swift-frozen, swinject, syringe-swinject (repeatable)
      --reps <n>            repetitions per measurement (default 11; at least 7 for reportable numbers)
      --ops <n>             operations per repetition (default 1000000)
      --graph-ops <n>       operations per repetition of the graph rows (default: ~50 ms worth per column)
      --no-pairs            do not measure a row's paired row again in its rounds (A2's S5, …): its ratio is then not
                            shown. For callgrind, which must count one row's loop only.
    """

struct Options {
    var filter: String?
    var json = false
    var method = Method()
    var chosen: [Contender] = []
    var pairs = true
}

func parseArguments() -> Options {
    var options = Options()
    var arguments = CommandLine.arguments.dropFirst()
    func value(after flag: String) -> String {
        guard let next = arguments.popFirst() else {
            printError("\(flag) needs a value\n\(usage)\n")
            exit(64)
        }
        return next
    }
    while let argument = arguments.popFirst() {
        switch argument {
        case "--filter": options.filter = value(after: argument).lowercased()
        case "--json": options.json = true
        case "--reps": options.method.repetitions = max(1, Int(value(after: argument)) ?? options.method.repetitions)
        case "--ops": options.method.opsPerRep = max(1_000, Int(value(after: argument)) ?? options.method.opsPerRep)
        case "--graph-ops": options.method.graphOpsPerRep = Int(value(after: argument)).map { max(1, $0) }
        case "--no-pairs": options.pairs = false
        case "--contender":
            let name = value(after: argument)
            guard let contender = Contender.allCases.first(where: { $0.argument == name }) else {
                printError("unknown contender \(name)\n\(usage)\n")
                exit(64)
            }
            options.chosen.append(contender)
        case "-h", "--help":
            print(usage)
            exit(0)
        default:
            printError("unknown argument \(argument)\n\(usage)\n")
            exit(64)
        }
    }
    return options
}

let options = parseArguments()
let filter = options.filter
let json = options.json
let method = options.method
let chosen = options.chosen
let contenders = chosen.isEmpty ? Contender.allCases : Contender.allCases.filter(chosen.contains)

extension Contender {
    var argument: String {
        switch self {
        case .syringe: "syringe"
        case .byHand: "by-hand"
        case .swiftLocked: "swift-locked"
        case .swiftFrozen: "swift-frozen"
        case .swinject: "swinject"
        case .syringeSwinject: "syringe-swinject"
        }
    }
}

// MARK: - Running

/// A filter equal to a scenario id (S1…S7, W1…W6, R, M) selects that
/// scenario; one that begins ids (W, G, SC) selects those scenarios; any other
/// filter selects the scenarios whose id or title contains it.
let selected = scenarios.indices.filter { index in
    guard let filter else { return true }
    let id = scenarios[index].id.lowercased()
    if scenarios.contains(where: { $0.id.lowercased() == filter }) {
        return id == filter
    }
    if scenarios.contains(where: { $0.id.lowercased().hasPrefix(filter) }) {
        return id.hasPrefix(filter)
    }
    return id.contains(filter) || scenarios[index].title.lowercased().contains(filter)
}
if selected.isEmpty {
    printError("no scenario matches --filter \(filter ?? "")\n")
    exit(1)
}

let machine = Machine.current()
let runner = Runner(method: method) { printError($0) }
var results: [Int: [Contender: Sample]] = [:]
/// By row index: the Syringe cell of the row's `pairedWith`, measured in the
/// row's own rounds (after its columns, in each round).
var paired: [Int: Sample] = [:]
let started = now()

/// One repetition of every column per round: a row's columns are measured
/// A B C, A B C, … rather than all of A's repetitions, then all of B's. On a
/// shared machine whose speed drifts by 1.5× from one second to the next,
/// every column then sees the same drift, and the ratios between columns
/// (what the goals are stated in) hold still from run to run; measured
/// column after column, a slow stretch that caught one column and not the
/// other moved a ratio by 30 % between runs of one binary. Each round sets
/// its cell up afresh and warms it up again before its repetition.
let roundRunner = Runner(method: { var round = method; round.repetitions = 1; return round }()) { printError($0) }

/// Measures one cell: the samples of the rows it fills (S6's run fills both
/// S6 rows), by scenario index. Synchronous, as every scenario but SC1 and
/// A1–A3 is (those go through `measureAsyncCellWaiting`).
func measureCell(_ index: Int, _ contender: Contender, with runner: Runner) -> [Int: Sample] {
    let scenario = scenarios[index]
    let sample: Sample?
    switch scenario.id {
    case "S1": sample = runner.s1(contender)
    case "S2": sample = runner.s2(contender)
    case "S3": sample = runner.s3(contender)
    case "S4": sample = runner.s4(contender)
    case "S5": sample = runner.s5(contender)
    case "S6":
        // Both S6 rows come from one run.
        guard let (perOp, throughput) = runner.s6(contender) else { return [:] }
        var both: [Int: Sample] = [:]
        for other in scenarios.indices where scenarios[other].id == "S6" {
            both[other] = scenarios[other].unit == .mopsPerSecond ? throughput : perOp
        }
        return both
    case "S7": sample = runner.s7(contender)
    case "G1": sample = runner.graph(.g1, contender)
    case "G2": sample = runner.graph(.g2, contender)
    case "G3": sample = runner.graph(.g3, contender)
    case "SC2": sample = runner.sc2(contender)
    case "W1", "W2", "W3", "W4", "W5", "W6": sample = runner.swinjectShape(scenario.id, contender)
    case "R": sample = runner.r(contender)
    case "M": sample = runner.m(contender)
    default: fatalError("unknown scenario \(scenario.id)")
    }
    return sample.map { [index: $0] } ?? [:]
}

/// `measureCell` for the async scenarios, SC1 and A1–A3.
func measureAsyncCell(_ index: Int, _ contender: Contender, with runner: Runner) async -> [Int: Sample] {
    let sample: Sample?
    switch scenarios[index].id {
    case "SC1": sample = await runner.sc1(contender)
    case "A1": sample = await runner.a1(contender)
    case "A2": sample = await runner.a2(contender)
    case "A3": sample = await runner.a3(contender)
    default: fatalError("\(scenarios[index].id) is not an async scenario")
    }
    return sample.map { [index: $0] } ?? [:]
}

/// An async cell's samples, handed from the task that measured them to the
/// thread that waits for it.
final class AsyncCells: @unchecked Sendable {
    // @unchecked: `cells` is written by the task before it signals `done`
    // and read by the waiting thread after `done.wait()` returns.
    var cells: [Int: Sample] = [:]
    let done = DispatchSemaphore(value: 0)
}

/// `measureAsyncCell`, waited for on the main thread, so that this top-level
/// code has no `await`: an async program parks its main thread in
/// `dispatchMain`, where valgrind 3.19 crashes on this VM's kernel as soon
/// as a second thread starts, so the async rows (SC1, A1–A3) could not be
/// counted with callgrind. The cell runs on the global executor, as it did
/// when awaited from the top level.
func measureAsyncCellWaiting(_ index: Int, _ contender: Contender, with runner: Runner) -> [Int: Sample] {
    let result = AsyncCells()
    // The runner's progress closure is not `Sendable`; only the task uses
    // the runner until this thread wakes.
    nonisolated(unsafe) let runner = runner
    Task.detached {
        result.cells = await measureAsyncCell(index, contender, with: runner)
        result.done.signal()
    }
    result.done.wait()
    return result.cells
}

for index in selected {
    let scenario = scenarios[index]
    if scenario.id == "S6", results[index] != nil { continue }
    // M counts bytes, which do not drift: one round of its own repetitions.
    let rounds = scenario.id == "M" ? 1 : method.repetitions
    let cellRunner = rounds == 1 ? runner : roundRunner
    for round in 1...rounds {
        runner.progress("\(scenario.id) round \(round)/\(rounds)…\n")
        for contender in contenders {
            let cells = ["SC1", "A1", "A2", "A3"].contains(scenario.id)
                ? measureAsyncCellWaiting(index, contender, with: cellRunner)
                : measureCell(index, contender, with: cellRunner)
            for (row, sample) in cells {
                results[row, default: [:]][contender, default: Sample(values: [], opsPerRep: sample.opsPerRep)].values += sample.values
            }
        }
        // Every reference row is synchronous (S1, S2, S5, G1).
        if options.pairs, contenders.contains(.syringe), let reference = scenario.pairedWith,
           let referenceIndex = scenarios.firstIndex(where: { $0.id == reference && $0.unit == .nsPerOp }),
           let sample = measureCell(referenceIndex, .syringe, with: cellRunner)[referenceIndex] {
            paired[index, default: Sample(values: [], opsPerRep: sample.opsPerRep)].values += sample.values
        }
    }
}
// The floors are measured on full runs only (not with --filter).
let floors: Floors? = filter == nil ? { runner.progress("floors…\n"); return runner.floors() }() : nil
let elapsed = Double(now() - started) / 1e9
let shown = scenarios.indices.filter { results[$0] != nil }

// MARK: - Formatting

func format(_ value: Double) -> String {
    guard value.isFinite else { return "n/a" }
    if value >= 100 { return String(Int(value.rounded())) }
    let decimals = value >= 10 ? 1 : 2
    let scale = decimals == 1 ? 10.0 : 100.0
    let scaled = Int((value * scale).rounded())
    let whole = scaled / Int(scale)
    let fraction = String(scaled % Int(scale))
    return "\(whole).\(String(repeating: "0", count: decimals - fraction.count))\(fraction)"
}

/// How many times more time (or bytes) the contender needs than Syringe.
func ratio(_ sample: Sample, to syringe: Sample?, unit: Unit) -> Double? {
    guard let syringe, syringe.median > 0, sample.median > 0 else { return nil }
    return unit.lowerIsBetter ? sample.median / syringe.median : syringe.median / sample.median
}

func targetText(_ scenario: Scenario) -> String {
    if let limit = scenario.byHandLimit {
        return "≤ \(format(limit))× by hand"
    }
    guard let target = scenario.target else { return "" }
    return (scenario.unit.lowerIsBetter ? "≤ " : "≥ ") + format(target)
}

func targetMet(_ scenario: Scenario, _ row: [Contender: Sample]?) -> Bool? {
    guard let syringe = row?[.syringe] else { return nil }
    if let limit = scenario.byHandLimit {
        guard let byHand = row?[.byHand] else { return nil }
        return syringe.median <= limit * byHand.median
    }
    guard let target = scenario.target else { return nil }
    return scenario.unit.lowerIsBetter ? syringe.median <= target : syringe.median >= target
}

func cell(_ sample: Sample?, syringe: Sample?, unit: Unit, isSyringe: Bool) -> String {
    guard let sample else { return "—" }
    var text = "\(format(sample.median)) [\(format(sample.min))–\(format(sample.max))]"
    if !isSyringe, let ratio = ratio(sample, to: syringe, unit: unit) {
        text += " ×" + format(ratio)
    }
    return text
}

func pad(_ text: String, _ width: Int) -> String {
    text + String(repeating: " ", count: max(0, width - text.count))
}

// MARK: - Ratios

/// A goal stated as a ratio of two medians measured in this run.
struct RunRatio {
    let name: String
    let value: Double?
    /// The goal; nil for a ratio shown for what it explains.
    let limit: Double?
    let atMost: Bool

    var met: Bool? {
        guard let value, let limit else { return nil }
        return atMost ? value <= limit : value >= limit
    }
}

@MainActor
func median(_ id: String, _ contender: Contender) -> Double? {
    scenarios.indices
        .first { scenarios[$0].id == id && scenarios[$0].unit == .nsPerOp }
        .flatMap { results[$0]?[contender]?.median }
}

/// The median of row `id`'s `pairedWith` row, Syringe's cell, as measured
/// in `id`'s rounds.
@MainActor
func pairedMedian(_ id: String) -> Double? {
    scenarios.indices
        .first { scenarios[$0].id == id && scenarios[$0].unit == .nsPerOp }
        .flatMap { paired[$0]?.median }
}

func quotient(_ a: Double?, _ b: Double?) -> Double? {
    guard let a, let b, b > 0 else { return nil }
    return a / b
}

/// W1–W6: the same source against Swinject and against SyringeSwinject, and
/// SyringeSwinject against Syringe's own API on the same shape.
let swinjectShapeRatios = scenarios.filter { $0.id.hasPrefix("W") }.flatMap { row in
    [
        RunRatio(name: "\(row.id), Swinject / SyringeSwinject (the same source)",
                 value: quotient(median(row.id, .swinject), median(row.id, .syringeSwinject)), limit: 15, atMost: false),
        RunRatio(name: "\(row.id), SyringeSwinject / Syringe's own API",
                 value: quotient(median(row.id, .syringeSwinject), median(row.id, .syringe)), limit: 1.5, atMost: true),
    ]
}

let ratios = ([
    RunRatio(name: "S5 / S1, Syringe (nested resolves cost what single ones do)",
             value: quotient(median("S5", .syringe), pairedMedian("S5")), limit: 5.5, atMost: true),
    RunRatio(name: "S2 / the stored-reference floor",
             value: quotient(median("S2", .syringe), floors?.shared.median), limit: 3, atMost: true),
    RunRatio(name: "S5, Swinject / Syringe",
             value: quotient(median("S5", .swinject), median("S5", .syringe)), limit: 30, atMost: false),
    RunRatio(name: "G1, Syringe / by hand",
             value: quotient(median("G1", .syringe), median("G1", .byHand)), limit: 2, atMost: true),
    RunRatio(name: "G1, Swinject / Syringe",
             value: quotient(median("G1", .swinject), median("G1", .syringe)), limit: 30, atMost: false),
    RunRatio(name: "G2 / G1, Syringe (10× the nodes; ideal about 10)",
             value: quotient(median("G2", .syringe), pairedMedian("G2")), limit: 11, atMost: true),
    RunRatio(name: "SC1, Syringe / by hand (the request's objects made in code)",
             value: quotient(median("SC1", .syringe), median("SC1", .byHand)), limit: nil, atMost: true),
    RunRatio(name: "SC2 / S2, Syringe (a scope's instance costs what a .shared one does)",
             value: quotient(median("SC2", .syringe), pairedMedian("SC2")), limit: 1.5, atMost: true),
    RunRatio(name: "A1 / S2, Syringe (an existing instance, resolved async)",
             value: quotient(median("A1", .syringe), pairedMedian("A1")), limit: 2, atMost: true),
    RunRatio(name: "A2 / S5, Syringe (a chain of async factories)",
             value: quotient(median("A2", .syringe), pairedMedian("A2")), limit: 2, atMost: true),
    RunRatio(name: "A2 by hand / S5, Syringe (the factories alone, no container)",
             value: quotient(median("A2", .byHand), pairedMedian("A2")), limit: nil, atMost: true),
    RunRatio(name: "A2, Syringe / by hand",
             value: quotient(median("A2", .syringe), median("A2", .byHand)), limit: nil, atMost: true),
] + swinjectShapeRatios).filter { $0.value != nil }

// MARK: - Output

if json {
    func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
    func number(_ value: Double) -> String { value.isFinite ? "\(value)" : "null" }
    var rows: [String] = []
    for index in shown {
        let scenario = scenarios[index]
        let syringe = results[index]?[.syringe]
        var entries: [String] = []
        for contender in contenders {
            guard let sample = results[index]?[contender] else { continue }
            let values = sample.values.map(number).joined(separator: ", ")
            var entry = "        \(quoted(contender.argument)): {\"name\": \(quoted(contender.title)), \"median\": \(number(sample.median)), "
            entry += "\"min\": \(number(sample.min)), \"max\": \(number(sample.max)), \"repetitions\": \(sample.values.count), "
            entry += "\"opsPerRepetition\": \(sample.opsPerRep), "
            entry += "\"ratioToSyringe\": \(ratio(sample, to: syringe, unit: scenario.unit).map(number) ?? "null"), \"values\": [\(values)]}"
            entries.append(entry)
        }
        var row = "    {\"id\": \(quoted(scenario.id)), \"title\": \(quoted(scenario.title)), \"unit\": \(quoted(scenario.unit.rawValue)), "
        row += "\"target\": \(scenario.target.map(number) ?? "null"), "
        if let reference = scenario.pairedWith, let sample = paired[index] {
            row += "\"paired\": {\"with\": \(quoted(reference)), \"median\": \(number(sample.median)), \"values\": [\(sample.values.map(number).joined(separator: ", "))]}, "
        }
        row += "\"targetMet\": \(targetMet(scenario, results[index]).map { $0 ? "true" : "false" } ?? "null"), "
        row += "\"results\": {\n\(entries.joined(separator: ",\n"))\n    }}"
        rows.append(row)
    }
    print("""
        {
          "date": \(quoted(machine.date)),
          "machine": {"cpu": \(quoted(machine.cpu)), "logicalCPUs": \(machine.logicalCPUs), "architecture": \(quoted(machine.architecture)), "system": \(quoted(machine.system))},
          "loadAverage1min": \(quoted(machine.load)),
          "swift": \(quoted(machine.compiler)),
          "build": "release",
          "method": {"repetitions": \(method.repetitions), "opsPerRepetition": \(method.opsPerRep), "swinjectSecondsPerRepetition": \(method.swinjectSecondsPerRep), "statistic": "median"},
          "seconds": \(number(elapsed)),
          "ratios": [\(ratios.map { "{\"name\": \(quoted($0.name)), \"value\": \(number($0.value!)), \"limit\": \($0.limit.map(number) ?? "null"), \"atMost\": \($0.atMost), \"met\": \($0.met.map(String.init) ?? "null")}" }.joined(separator: ", "))],
          "floors": \(floors.map { "{\"newInstanceNsPerOp\": \(number($0.new.median)), \"sharedReferenceNsPerOp\": \(number($0.shared.median)), \"sharedReferenceTwoThreadsMops\": \(number($0.sharedTwoThreads.median))}" } ?? "null"),
          "scenarios": [
        \(rows.joined(separator: ",\n"))
          ]
        }
        """)
    exit(0)
}

print("Syringe benchmarks · \(machine.date)")
print("CPU: \(machine.cpu) · \(machine.logicalCPUs) logical CPUs · \(machine.architecture) · \(machine.system) · load average \(machine.load) at start")
print("Swift \(machine.compiler) (the compiler that built this binary) · release build · Syringe called from another module")
print("Each cell: median [min–max] of \(method.repetitions) repetitions; ×r = Syringe's time (or bytes) × r, so r > 1 means slower than Syringe.")
print("")

var header = ["ID", "Scenario", "Unit"] + contenders.map(\.title) + ["Syringe goal"]
var table: [[String]] = []
for index in shown {
    let scenario = scenarios[index]
    let syringe = results[index]?[.syringe]
    var row = [scenario.id, scenario.title, scenario.unit.rawValue]
    for contender in contenders {
        row.append(cell(results[index]?[contender], syringe: syringe, unit: scenario.unit, isSyringe: contender == .syringe))
    }
    var goal = targetText(scenario)
    if let met = targetMet(scenario, results[index]) {
        goal += met ? " met" : " MISSED"
    }
    row.append(goal)
    table.append(row)
}
let widths = header.indices.map { column in ([header] + table).map { $0[column].count }.max() ?? 0 }
func line(_ row: [String]) -> String {
    row.indices.map { pad(row[$0], widths[$0]) }.joined(separator: "  ").trimmingSpaces()
}
print(line(header))
print(widths.map { String(repeating: "─", count: $0) }.joined(separator: "  "))
for row in table {
    print(line(row))
}

if !ratios.isEmpty {
    print("")
    print("Ratios in this run:")
    let width = ratios.map(\.name.count).max() ?? 0
    for ratio in ratios {
        let named = "  \(pad(ratio.name, width))  "
        guard let limit = ratio.limit else {
            print(named + format(ratio.value!))
            continue
        }
        let goal = (ratio.atMost ? "≤ " : "≥ ") + format(limit)
        print("\(named)\(pad(format(ratio.value!), 6))  goal \(goal) \(ratio.met! ? "met" : "MISSED")")
    }
}

let pairedCells = shown.compactMap { index -> String? in
    guard let reference = scenarios[index].pairedWith, let sample = paired[index] else { return nil }
    return "\(reference) in \(scenarios[index].id)'s rounds \(format(sample.median)) [\(format(sample.min))–\(format(sample.max))]"
}
if !pairedCells.isEmpty {
    print("The second row of each ratio between rows, Syringe's cell measured in the first row's rounds (ns/op):")
    print("  " + pairedCells.joined(separator: "; "))
}

print("")
print("Method:")
print("  • Release build, CLOCK_MONOTONIC around each repetition, every result sunk through an @inline(never)")
print("    blackHole that calls an opaque C function.")
print("  • A row's columns are measured in rounds, one repetition of every column per round (M: all at once), so that")
print("    the machine's drift falls on every column alike; each round sets its cell up and warms it up first.")
print("  • A goal that divides two rows (A2 / S5, A1 / S2, SC2 / S2, S5 / S1, G2 / G1) divides the first row's median by")
print("    the second row's Syringe cell measured again in the first row's rounds, after its columns: two medians of the")
print("    same minutes, which two rows measured minutes apart are not on a machine that drifts.")
print("  • Syringe and the Swift-table columns: \(method.opsPerRep) ops per repetition (graph rows: see below).")
if contenders.contains(.swinject) {
    var swinjectOps: [String] = []
    for index in shown {
        if let sample = results[index]?[.swinject], scenarios[index].unit == .nsPerOp {
            swinjectOps.append("\(scenarios[index].id) \(sample.opsPerRep)")
        }
    }
    print("  • Swinject is far slower: its repetitions are sized to take ~\(Int(method.swinjectSecondsPerRep * 1000)) ms each,")
    print("    i.e. fewer ops per repetition (\(swinjectOps.joined(separator: ", "))); same number of repetitions.")
    print("    Swinject scopes: .transient for .new, .container for .shared; S6 uses its synchronize() resolver.")
}
print("  • Swift dict + lock: Syringe's own engine sources built with a Swift Dictionary (key: the type's and the")
print("    argument signature's identities, name; hashed by Hasher) in place of the C table, every lookup under a lock,")
print("    as registrations may run concurrently (Syringe's C table reads take no lock). Swift dict, frozen: the same")
print("    after freeze() — read-only, no lock — i.e. the cost of the dictionary alone.")
print("  • S6: two threads resolve at once; ns/op as each thread sees it (mean of both); total = 2 × ops / wall time.")
print("  • S7: each op also makes one indirect closure call (the same in every column) to reach the type's call site;")
print("    each type's resolve is its own specialisation, so the code's size (instruction cache) counts too.")
print("  • G1–G3: one op resolves the root of a generated DAG (Benchmarks/generate-graphs.py); By hand builds the same")
print("    objects with direct initialiser calls in dependency order (.shared ones made once beforehand). Every column's")
print("    repetitions are sized to take ~\(Int(method.graphSecondsPerRep * 1000)) ms. Swinject: .graph (its default), .container, .transient;")
print("    it has no G2 cell: G2 is 1 000 levels deep, and Swinject stops the program beyond 200 nested resolves.")
print("  • SC1: one request: makeScope(), register the request's value, resolve a .scoped unit of work that needs it and")
print("    a .shared dependency, await close(); a tenth of the ops. Swinject has no request scope: a child Container per")
print("    request with the value and the unit of work (.container) registered in it, nothing to close. By hand: the value")
print("    and the unit of work made in code, as a service without a container does per request. SC2: the unit of work,")
print("    already made in the scope, resolved again (Swinject: from the child container).")
print("  • A1, A2: resolveAsync from an async loop; A1 an async .shared registration whose instance exists, A2 S5's chain")
print("    with every factory async (a fifth of the ops; By hand: the same five async closures, each awaiting the next")
print("    directly, no container: the floor of any container that calls them), A3 a 100-level chain of named async .graph registrations, each")
print("    asking for the one below it and for the first (1/1 500 of the ops; 100 objects per op). Swinject has no async")
print("    resolution: no cells.")
print("  • W1–W6: one source written against Swinject's API (Sources/SwinjectShapes), compiled once against Swinject")
print("    (its column) and once against SyringeSwinject (the same files, SYRINGE_SWINJECT defined); the Syringe column")
print("    is the same shape on Syringe's own API: S1–S5's workloads (.new for .transient, .shared for .container) and G1's.")
print("    W6's repetitions are sized by time as the graph rows'.")
print("  • R: \(Runner.registrationCount) registrations (1 000 types × unnamed + 9 names) into a fresh container per repetition,")
print("    \(method.repetitions) repetitions (fewer ops than 10^6). M: growth of glibc mallinfo2 in-use bytes (incl. mmapped) over")
print("    the same \(Runner.registrationCount) registrations, divided by \(Runner.registrationCount), 5 repetitions.")
if let floors {
    print("Floors on this machine, no container: allocate + sink + free one instance \(format(floors.new.median)) ns (least for S1);")
    print("  return a stored reference from a call, sink it (1 retain + 1 release) \(format(floors.shared.median)) ns (least for S2);")
    print("  the same on 2 threads at once, same object \(format(floors.sharedTwoThreads.median)) Mops/s total")
    print("  [\(format(floors.sharedTwoThreads.min))–\(format(floors.sharedTwoThreads.max))] (most for S6: both threads write its reference count).")
}
print("Total time: \(format(elapsed)) s")
