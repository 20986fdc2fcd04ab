// Rows W1–W6: one source, written against Swinject's API, compiled twice.
//
// This folder is the target SwinjectShapes, built against Swinject 2.10.0. The
// target SyringeSwinjectShapes compiles the very same files (its `Shapes` is a
// link to this folder) with SYRINGE_SWINJECT defined, against SyringeSwinject.
// So both columns run one source text; only the module behind `Container`
// differs. Each module exports just `Shapes` (the benchmark names it
// `SwinjectShapes.Shapes` or `SyringeSwinjectShapes.Shapes`); the services and
// the timed loops are internal, so that each resolve is specialised here, in
// the module that calls it, as an app's call site is.
#if SYRINGE_SWINJECT
import SyringeSwinject
#else
import Swinject
#endif
import CBenchSink

/// W1–W6's workloads. Each function registers its services in a fresh
/// container and returns the timed loop: `run(n)` performs n resolves and
/// sinks every result.
public enum Shapes {
    /// W1: `.transient` resolve of a class behind a protocol (S1's shape).
    public static func transient() -> (Int) -> Void {
        let container = Container()
        container.register(Service.self) { _ in ServiceImpl() }.inObjectScope(.transient)
        return { loopW1(container, $0) }
    }

    /// W2: `.container` resolve, the instance already made (S2's shape).
    public static func containerScoped() -> (Int) -> Void {
        let container = Container()
        container.register(Service.self) { _ in ServiceImpl() }.inObjectScope(.container)
        _ = container.resolve(Service.self)
        return { loopW2(container, $0) }
    }

    /// W3: `.transient` resolve by name, "beta" among three names (S3's shape).
    public static func named() -> (Int) -> Void {
        let container = Container()
        for name in ["alpha", "beta", "gamma"] {
            container.register(Service.self, name: name) { _ in ServiceImpl() }.inObjectScope(.transient)
        }
        return { loopW3(container, $0) }
    }

    /// W4: one `Int` runtime argument, a new instance each time (S4's shape).
    public static func argument() -> (Int) -> Void {
        let container = Container()
        container.register(Service.self) { (_: Resolver, number: Int) in NumberedService(number: number) }
            .inObjectScope(.transient)
        return { loopW4(container, $0) }
    }

    /// W5: a five-deep `.transient` chain A→B→C→D→E, each factory resolving
    /// the next (S5's shape).
    public static func chain() -> (Int) -> Void {
        let container = Container()
        container.register(E.self) { _ in E() }.inObjectScope(.transient)
        container.register(D.self) { r in D(e: r.resolve(E.self)!) }.inObjectScope(.transient)
        container.register(C.self) { r in C(d: r.resolve(D.self)!) }.inObjectScope(.transient)
        container.register(B.self) { r in B(c: r.resolve(C.self)!) }.inObjectScope(.transient)
        container.register(A.self) { r in A(b: r.resolve(B.self)!) }.inObjectScope(.transient)
        return { loopW5(container, $0) }
    }

    /// W6: the root of G1's 100-node DAG, every node `.graph` (Swinject's
    /// default scope); G1Graph.swift is written by generate-graphs.py.
    public static func graph() -> (Int) -> Void {
        let container = Container()
        registerG1(container)
        return { loopW6(container, $0) }
    }
}

// MARK: - The services (the same shapes as the S rows')

protocol Service: AnyObject {}

final class ServiceImpl: Service {
    init() {}
}

final class NumberedService: Service {
    let number: Int
    init(number: Int) { self.number = number }
}

final class E { init() {} }
final class D { let e: E; init(e: E) { self.e = e } }
final class C { let d: D; init(d: D) { self.d = d } }
final class B { let c: C; init(c: C) { self.c = c } }
final class A { let b: B; init(b: B) { self.b = b } }

// MARK: - The timed loops
//
// As the benchmark's own: one function per row, never inlined, every result
// through an opaque sink. (Named loopW… for callgrind-counts.sh.)

@inline(never)
func blackHole(_ value: AnyObject) {
    bench_sink(UnsafeRawPointer(Unmanaged.passUnretained(value).toOpaque()))
}

@inline(never)
func loopW1(_ container: Container, _ n: Int) {
    for _ in 0..<n { blackHole(container.resolve(Service.self)!) }
}

@inline(never)
func loopW2(_ container: Container, _ n: Int) {
    for _ in 0..<n { blackHole(container.resolve(Service.self)!) }
}

@inline(never)
func loopW3(_ container: Container, _ n: Int) {
    for _ in 0..<n { blackHole(container.resolve(Service.self, name: "beta")!) }
}

@inline(never)
func loopW4(_ container: Container, _ n: Int) {
    for i in 0..<n { blackHole(container.resolve(Service.self, argument: i)!) }
}

@inline(never)
func loopW5(_ container: Container, _ n: Int) {
    for _ in 0..<n { blackHole(container.resolve(A.self)!) }
}

@inline(never)
func loopW6(_ container: Container, _ n: Int) {
    for _ in 0..<n { blackHole(container.resolve(G1Root.self)!) }
}
