// Syringe's allocation budget, checked by package-benchmark's malloc counters.
//
// Each benchmark runs 1 000 resolves per iteration (scalingFactor .kilo), so
// mallocCountTotal is the number of mallocs per 1 000 resolves:
//
//   SharedResolve     .shared resolve of an existing instance      0  (nothing at all)
//   NewResolve        .new resolve of a class behind a protocol    1 000  (the instance only)
//   NamedNewResolve   .new resolve by name                         1 000  (the instance only)
//   ArgumentResolve   .new resolve with one Int runtime argument   1 000  (the instance only)
//   NewChain5         five-level .new chain A→B→C→D→E              5 000  (the five instances only)
//   Graph100          G1's 100-node .graph DAG, root resolve       100 000  (the 100 objects only)
//   ScopedResolve     .scoped resolve of an instance the scope has 0  (nothing at all)
//   ScopeRequest      SC1: makeScope, register the request's value,
//                     resolve the .scoped unit of work, close      3 000 per 1 000 requests
//                                                                  (#12's goal is 4 000)
//   AsyncSharedResolve  resolveAsync of an existing async .shared  0  (nothing at all)
//   AsyncNewChain5    A2: the chain with async factories           5 000 (the five instances;
//                                                                  frames come from the thread's
//                                                                  pool, AsyncFramePool)
//
// Every count is exact but AsyncNewChain5's and ScopeRequest's, which may be
// up to 500 over or under. AsyncNewChain5's factories hop back to their
// executor after each resolve (as ScopeRequest's awaited `close()` does),
// and the executor allocates now and then for
// itself (threads started, its per-thread caches refilled): on a loaded
// machine a few of an iteration's 1 000 resolves can meet such an allocation, which failed
// an exact check in CI once (measured alone, 50 resolves allocate exactly 500
// in each of 200 iterations). 500 is half an allocation per resolve, so one
// more allocation per resolve (+1 000) still fails the check.
//
// The expected counts are checked in under Benchmarks/Thresholds/ and enforced
// by Benchmarks/check-allocations.sh: any extra allocation fails the check.
import Benchmark
import GraphG1
import GraphWorkloads
import Syringe

protocol Service: AnyObject {}
final class ServiceImpl: Service {}
final class NumberedService: Service {
    let number: Int
    init(number: Int) { self.number = number }
}

final class E {}
final class D { let e: E; init(e: E) { self.e = e } }
final class C { let d: D; init(d: D) { self.d = d } }
final class B { let c: C; init(c: C) { self.c = c } }
final class A { let b: B; init(b: B) { self.b = b } }

final class RequestValue {
    let id: Int
    init(id: Int) { self.id = id }
}
final class UnitOfWork {
    let request: RequestValue
    let app: ServiceImpl
    init(request: RequestValue, app: ServiceImpl) {
        self.request = request
        self.app = app
    }
}

/// SC2's app: a `.shared` dependency (already made) and a `.scoped` unit of work.
func scopedApp() -> Container {
    let app = Container()
    app.register(type: ServiceImpl.self) { _ in ServiceImpl() }
    app.register(type: UnitOfWork.self, in: .scoped) { r in UnitOfWork(request: try r.resolve(), app: try r.resolve()) }
    blackHole(app.resolve(type: ServiceImpl.self))
    return app
}

let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(
        metrics: [.mallocCountTotal],
        scalingFactor: .kilo,
        maxDuration: .seconds(10),
        maxIterations: 20
    )

    Benchmark("SharedResolve", configuration: configuration) { benchmark in
        let container = Container()
        container.register(type: Service.self, in: .shared) { _ in ServiceImpl() }
        blackHole(container.resolve(type: Service.self))  // creates the instance and this thread's context
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(container.resolve(type: Service.self))
        }
        benchmark.stopMeasurement()
    }

    Benchmark("NewResolve", configuration: configuration) { benchmark in
        let container = Container()
        container.register(type: Service.self, in: .new) { _ in ServiceImpl() }
        blackHole(container.resolve(type: Service.self))
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(container.resolve(type: Service.self))
        }
        benchmark.stopMeasurement()
    }

    Benchmark("NamedNewResolve", configuration: configuration) { benchmark in
        let container = Container()
        for name in ["alpha", "beta", "gamma"] {
            container.register(type: Service.self, name: name, in: .new) { _ in ServiceImpl() }
        }
        blackHole(container.resolve(type: Service.self, name: "beta"))
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(container.resolve(type: Service.self, name: "beta"))
        }
        benchmark.stopMeasurement()
    }

    Benchmark("ArgumentResolve", configuration: configuration) { benchmark in
        let container = Container()
        container.register(type: Service.self) { (_: Resolver, number: Int) in NumberedService(number: number) }
        blackHole(container.resolve(type: Service.self, arguments: 0))
        benchmark.startMeasurement()
        for number in benchmark.scaledIterations {
            blackHole(container.resolve(type: Service.self, arguments: number))
        }
        benchmark.stopMeasurement()
    }

    Benchmark("NewChain5", configuration: configuration) { benchmark in
        let container = Container()
        container.register(type: E.self, in: .new) { _ in E() }
        container.register(type: D.self, in: .new) { r in D(e: try r.resolve()) }
        container.register(type: C.self, in: .new) { r in C(d: try r.resolve()) }
        container.register(type: B.self, in: .new) { r in B(c: try r.resolve()) }
        container.register(type: A.self, in: .new) { r in A(b: try r.resolve()) }
        blackHole(container.resolve(type: A.self))
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(container.resolve(type: A.self))
        }
        benchmark.stopMeasurement()
    }

    Benchmark("Graph100", configuration: configuration) { benchmark in
        let container = Container()
        GraphWorkload.g1.registerSyringe(container)
        blackHole(GraphWorkload.g1.resolveSyringe(container))  // sizes this thread's slots and lists
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(GraphWorkload.g1.resolveSyringe(container))
        }
        benchmark.stopMeasurement()
    }

    Benchmark("ScopedResolve", configuration: configuration) { benchmark in
        let scope = scopedApp().makeScope()
        scope.register(type: RequestValue.self, instance: RequestValue(id: 1))
        blackHole(scope.resolve(type: UnitOfWork.self))  // the scope's instance, and its copy of the registration
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(scope.resolve(type: UnitOfWork.self))
        }
        benchmark.stopMeasurement()
    }

    Benchmark("AsyncSharedResolve", configuration: configuration) { benchmark in
        let container = Container()
        container.register(type: Service.self) { (_: Resolver) async in ServiceImpl() as Service }
        blackHole(try await container.resolveAsync(type: Service.self))
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try await container.resolveAsync(type: Service.self))
        }
        benchmark.stopMeasurement()
    }

    var executorTolerant = configuration
    executorTolerant.thresholds = [.mallocCountTotal: .init(absolute: [.p90: 500])]
    // SC1: a whole request, 3 allocations today: the request's own
    // objects, `RequestValue` and `UnitOfWork`, and the container. The
    // scope's table, writer lock and registration list are those a
    // container freed earlier on this thread left (`SpareTables`), its copy
    // of the `.scoped` registration is one an earlier request's scope gave
    // back (`ScopeLocalPool`), the registration of the request's value and
    // the two boxes are ones an earlier scope freed on this thread emptied
    // and left (`SpareObjects`), and `close()`, with nothing to dispose,
    // keeps the boxes without a list.
    // Checked so that the count only goes down; within 500 either way per
    // 1 000 requests, as `AsyncNewChain5`, since `close()` is awaited.
    Benchmark("ScopeRequest", configuration: executorTolerant) { benchmark in
        let app = scopedApp()
        func request(_ id: Int) async {
            let scope = app.makeScope()
            scope.register(type: RequestValue.self, instance: RequestValue(id: id))
            blackHole(scope.resolve(type: UnitOfWork.self))
            try? await scope.close()
        }
        await request(0)  // the dense index free list and the disposal cache, once
        benchmark.startMeasurement()
        for id in benchmark.scaledIterations {
            await request(id)
        }
        benchmark.stopMeasurement()
    }

    Benchmark("AsyncNewChain5", configuration: executorTolerant) { benchmark in
        let container = Container()
        container.register(type: E.self, in: .new) { (_: Resolver) async in E() }
        container.register(type: D.self, in: .new) { (r: Resolver) async throws in D(e: try await r.resolve()) }
        container.register(type: C.self, in: .new) { (r: Resolver) async throws in C(d: try await r.resolve()) }
        container.register(type: B.self, in: .new) { (r: Resolver) async throws in B(c: try await r.resolve()) }
        container.register(type: A.self, in: .new) { (r: Resolver) async throws in A(b: try await r.resolve()) }
        // Fills this thread's frame pool, so that the resolves measured
        // take their frames from it.
        blackHole(try await container.resolveAsync(type: A.self))
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try await container.resolveAsync(type: A.self))
        }
        benchmark.stopMeasurement()
    }
}
