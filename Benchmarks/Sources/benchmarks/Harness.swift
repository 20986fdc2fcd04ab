import CBenchSink
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Sinking results

/// Consumes a result so that the optimiser cannot drop the work that made it.
/// The C function it calls is compiled separately, so the call always stays.
/// (`value` is a borrowed argument: it is alive for the whole call.)
@inline(never)
func blackHole(_ value: AnyObject) {
    bench_sink(UnsafeRawPointer(Unmanaged.passUnretained(value).toOpaque()))
}

// MARK: - Clock

/// Nanoseconds from CLOCK_MONOTONIC.
@inline(__always)
func now() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

// MARK: - Statistics

/// The repetitions of one measurement, in the row's unit (ns/op, Mops/s, bytes).
struct Sample {
    var values: [Double]
    /// Operations timed per repetition (registrations for R and M).
    var opsPerRep: Int

    var median: Double {
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
    var min: Double { values.min() ?? .nan }
    var max: Double { values.max() ?? .nan }
}

struct Method {
    /// Repetitions per measurement; the median is reported.
    var repetitions = 11
    /// Operations per repetition for Syringe and the Swift-table baseline.
    var opsPerRep = 1_000_000
    /// Swinject is two orders of magnitude slower: its repetitions are sized
    /// to take about this long instead.
    var swinjectSecondsPerRep = 0.075
    /// Graph rows: every column's repetitions are sized to take about this long…
    var graphSecondsPerRep = 0.05
    /// …unless a fixed count is given (`--graph-ops`, for callgrind).
    var graphOpsPerRep: Int?
}

/// Times `body(n)` (which performs `n` operations) and returns ns per operation
/// for each repetition, after one untimed warm-up.
func measure(ops: Int, repetitions: Int, _ body: (Int) -> Void) -> Sample {
    body(Swift.max(ops / 5, 1))  // warm-up: caches, branch predictors, lazy state
    var values: [Double] = []
    values.reserveCapacity(repetitions)
    for _ in 0..<repetitions {
        let start = now()
        body(ops)
        let end = now()
        values.append(Double(end - start) / Double(ops))
    }
    return Sample(values: values, opsPerRep: ops)
}

/// The number of operations for which `body` takes about `seconds`,
/// between 1 000 and `cap`.
func calibratedOps(seconds: Double, cap: Int, _ body: (Int) -> Void) -> Int {
    var probe = 1_000
    while true {
        let start = now()
        body(probe)
        let elapsed = Double(now() - start) / 1e9
        if elapsed > 0.01 || probe >= cap {
            let ops = Int(seconds / elapsed * Double(probe))
            return Swift.min(Swift.max(ops, 1_000), cap)
        }
        probe *= 4
    }
}

// MARK: - Two threads at once

/// Runs `body(n)` on two threads started together, `repetitions` times.
/// Returns ns per operation as each thread sees it (the mean of the two
/// threads) and the total throughput (both threads' operations over the wall
/// time from the first start to the last end), in Mops/s.
func measureTwoThreads(ops: Int, repetitions: Int, _ body: @escaping @Sendable (Int) -> Void) -> (perOp: Sample, throughput: Sample) {
    var perOp: [Double] = []
    var throughput: [Double] = []
    _ = runTwoThreads(ops: Swift.max(ops / 5, 1), body)  // warm-up
    for _ in 0..<repetitions {
        let times = runTwoThreads(ops: ops, body)
        let threadNs = times.map { Double($0.end - $0.start) }
        let wall = Double(times.map(\.end).max()! - times.map(\.start).min()!)
        perOp.append(threadNs.reduce(0, +) / Double(times.count) / Double(ops))
        throughput.append(Double(ops * times.count) / wall * 1e3)  // ops per ns → Mops/s
    }
    return (Sample(values: perOp, opsPerRep: ops), Sample(values: throughput, opsPerRep: ops * 2))
}

private final class TwoThreadRun: @unchecked Sendable {
    let ready = Atomic<Int>(0)
    let go = Atomic<Bool>(false)
    /// One (start, end) slot per thread, each written only by its thread and
    /// read after both are joined. Raw memory, not a Swift array: two threads
    /// writing elements of one array race on its copy-on-write check.
    let times = UnsafeMutablePointer<(start: UInt64, end: UInt64)>.allocate(capacity: 2)
    let body: @Sendable (Int) -> Void
    let ops: Int

    init(ops: Int, body: @escaping @Sendable (Int) -> Void) {
        self.ops = ops
        self.body = body
        times.initialize(repeating: (0, 0), count: 2)
    }

    deinit {
        times.deallocate()
    }

    func work(_ index: Int) {
        ready.add(1, ordering: .acquiringAndReleasing)
        while !go.load(ordering: .acquiring) {}
        let start = now()
        body(ops)
        let end = now()
        times[index] = (start, end)
    }
}

private final class ThreadStart {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}

private func runTwoThreads(ops: Int, _ body: @escaping @Sendable (Int) -> Void) -> [(start: UInt64, end: UInt64)] {
    let run = TwoThreadRun(ops: ops, body: body)
    var threads: [pthread_t] = []
    for index in 0..<2 {
        let start = Unmanaged.passRetained(ThreadStart { run.work(index) }).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { raw in
            #if canImport(Darwin)
            Unmanaged<ThreadStart>.fromOpaque(raw).takeRetainedValue().run()
            #else
            Unmanaged<ThreadStart>.fromOpaque(raw!).takeRetainedValue().run()
            #endif
            return nil
        }, start)
        precondition(status == 0, "pthread_create failed: \(status)")
        threads.append(thread)
    }
    while run.ready.load(ordering: .acquiring) < 2 {}
    run.go.store(true, ordering: .releasing)
    for thread in threads {
        pthread_join(thread, nil)
    }
    return [run.times[0], run.times[1]]
}

// MARK: - Heap accounting

/// Bytes allocated per registration: the growth of the C heap's in-use bytes
/// (glibc mallinfo2) while `register` fills a fresh container with `count`
/// registrations, divided by `count`. `make` returns the container and the
/// closure that registers into it; the container stays alive until measured.
func bytesPerRegistration(count: Int, repetitions: Int, _ fill: () -> AnyObject) -> Sample? {
    guard bench_heap_accounting_available() != 0 else { return nil }
    withExtendedLifetime(fill()) {}  // warm-up: lazy metadata, caches
    var values: [Double] = []
    for _ in 0..<repetitions {
        let before = bench_heap_in_use()
        let container = fill()
        let after = bench_heap_in_use()
        withExtendedLifetime(container) {}
        values.append((Double(after) - Double(before)) / Double(count))
    }
    return Sample(values: values, opsPerRep: count)
}
