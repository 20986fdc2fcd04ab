#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import Syringe

extension StressTests {
    @Suite("Child containers coming and going")
    struct ChildContainers {
        final class WeakRef: @unchecked Sendable {
            weak var object: AnyObject?
            init(_ object: AnyObject) { self.object = object }
        }

        @Test("child containers created and dropped while resolving through them")
        func childContainersComeAndGo() {
            let counter = Counter()
            let childCounter = Counter()
            let failures = StressFailures()
            let children = StressCount()
            let dropped = Locked<[WeakRef]>([])
            weak var weakParent: Container?
            do {
                let parent = Container()
                weakParent = parent
                let names = (0..<8).map { "p-\($0)" }
                let latest = StressCount()
                func installParent(_ name: String, _ version: Int) {
                    parent.register(type: StressInstance.self, name: name) { _ in
                        StressInstance(key: name, version: version, owner: 0, counter: counter)
                    }
                }
                for name in names { installParent(name, 1) }
                latest.store(1)
                parent.register(type: StressInstance.self, name: "dep", in: .graph) { _ in
                    StressInstance(key: "dep", version: 1, owner: 0, counter: counter)
                }
                // `.new`: resolves "dep" from the container that was asked.
                parent.register(type: Pair<StressInstance>.self, name: "composite", in: .new) { r in
                    Pair(first: try r.resolve(name: "dep"), second: try r.resolve(name: "dep"))
                }
                // `.shared`: resolves "dep" from the parent, whoever asks.
                parent.register(type: Pair<StressInstance>.self, name: "singleton") { r in
                    Pair(first: try r.resolve(name: "dep"), second: try r.resolve(name: "dep"))
                }
                let stop = StressFlag()
                runThreads(5) { thread in
                    if thread == 0 {
                        defer { stop.set() }
                        let deadline = StressDeadline(seconds: StressTests.phase)
                        var version = 1
                        var count = 0
                        while count < 20_000 && !deadline.passed {
                            count += 1
                            if count % 5 == 0 {
                                parent.releaseSharedInstances()
                            } else {
                                version += 1
                                latest.store(version)
                                installParent(names[count % names.count], version)
                            }
                            sched_yield()
                        }
                        return
                    }
                    var rng = SplitMix64(seed: UInt64(thread))
                    var count = 0
                    var local: [WeakRef] = []
                    while count < 100_000 && !stop.isSet {
                        count += 1
                        let id = children.increment()
                        let child = Container(parent: parent)
                        child.register(type: StressInstance.self, name: "dep", in: .graph) { _ in
                            StressInstance(key: "dep", version: 1, owner: id, counter: childCounter)
                        }
                        child.register(type: StressInstance.self, name: "own") { _ in
                            StressInstance(key: "own", version: 1, owner: id, counter: childCounter)
                        }
                        let through = rng.below(2) == 0 ? child : Container(parent: child)
                        do throws(ResolutionError) {
                            let name = names[rng.below(names.count)]
                            let inherited = try through.tryResolve(type: StressInstance.self, name: name)
                            if inherited.key != name || inherited.owner != 0 || inherited.version > latest.load {
                                failures.record("\(name) through a child: key \(inherited.key) owner \(inherited.owner) v\(inherited.version)")
                            }
                            let own = try through.tryResolve(type: StressInstance.self, name: "own")
                            let direct = try child.tryResolve(type: StressInstance.self, name: "own")
                            if own.owner != id || own !== direct {
                                failures.record("own: owner \(own.owner), expected \(id), or not shared")
                            }
                            let composite = try through.tryResolve(type: Pair<StressInstance>.self, name: "composite")
                            if composite.first.owner != id || composite.first !== composite.second {
                                failures.record("composite through child \(id): owner \(composite.first.owner)")
                            }
                            let singleton = try through.tryResolve(type: Pair<StressInstance>.self, name: "singleton")
                            if singleton.first.owner != 0 || singleton.first !== singleton.second {
                                failures.record("singleton captured child \(singleton.first.owner)'s dependency")
                            }
                        } catch {
                            failures.record("through child \(id): \(error)")
                        }
                        if rng.below(4) == 0 {
                            // Emptied, the child still reaches its parent.
                            child.removeAll()
                            let name = names[rng.below(names.count)]
                            if (try? through.tryResolve(type: StressInstance.self, name: name))?.owner != 0 {
                                failures.record("\(name) not inherited after the child's removeAll")
                            }
                            if through.isRegistered(type: StressInstance.self, name: "own") {
                                failures.record("own still registered after removeAll")
                            }
                        }
                        if local.count < 64 { local.append(WeakRef(child)) }
                        if through !== child && local.count < 64 { local.append(WeakRef(through)) }
                    }
                    dropped.withLock { $0 += local }
                }
                #expect(failures.count == 0, "\(failures.summary)")
                #expect(children.load > 0)
                let survivors = dropped.withLock { $0.filter { $0.object != nil }.count }
                #expect(survivors == 0, "\(survivors) dropped child containers are still alive")
                #expect(afterReclamation { childCounter.alive == 0 }, "\(childCounter.alive) child instances outlived their child containers")
            }
            #expect(weakParent == nil)
            #expect(afterReclamation { counter.alive == 0 })
        }
    }
}
