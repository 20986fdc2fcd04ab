#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import Testing
import Syringe

extension StressTests {
    @Suite("Readers of every scope against one writer")
    struct MixedScopes {
        /// One registration key of the mixed test and the newest version the
        /// writer has published (or is about to) for it.
        final class Key: Sendable {
            let name: String
            let scope: Scope
            /// Removed and re-registered by the writer; a reader may miss it.
            let volatile: Bool
            let latest = Atomic(0)

            init(name: String, scope: Scope, volatile: Bool) {
                self.name = name
                self.scope = scope
                self.volatile = volatile
            }
        }

        /// Registers `key` as `version`: a `StressInstance` in the key's scope
        /// (for `.graph`, plus a `.new` `Pair` of two of them) and a `.new`
        /// `StressOther` under the same name.
        /// Returns the `StressInstance` registration, for `onResolved`.
        @discardableResult
        static func install(_ key: Key, version: Int, in c: Container, counter: Counter, ledger: CreationLedger,
                            releasesBefore: Int = 0) -> Registration<StressInstance> {
            // Before publishing, so that a reader never sees a version above `latest`.
            key.latest.store(version, ordering: .releasing)
            let name = key.name
            let registration: Registration<StressInstance>
            switch key.scope {
            case .shared, .weak:
                let id = CreationLedger.id(name, version)
                ledger.installed(id, releasesBefore: releasesBefore)
                registration = c.register(type: StressInstance.self, name: name, in: key.scope) { _ in
                    ledger.enter(id)
                    defer { ledger.leave(id) }
                    return StressInstance(key: name, version: version, counter: counter)
                }
            case .new:
                // Also reachable as `StressNamed` under the same name; the alias
                // goes and comes back with each replacement.
                registration = c.register(type: StressInstance.self, name: name, in: .new) { _ in
                    StressInstance(key: name, version: version, counter: counter)
                }
                .implements(StressNamed.self, name: name)
            case .graph:
                registration = c.register(type: StressInstance.self, name: name, in: .graph) { _ in
                    StressInstance(key: name, version: version, counter: counter)
                }
                c.register(type: Pair<StressInstance>.self, name: name, in: .new) { r in
                    Pair(first: try r.resolve(name: name), second: try r.resolve(name: name))
                }
            case .scoped:
                preconditionFailure("no key of this test is .scoped (StressScopeTests covers scopes)")
            }
            c.register(type: StressOther.self, name: name, in: .new) { _ in
                StressOther(key: name, version: version, counter: counter)
            }
            return registration
        }

        static func remove(_ key: Key, from c: Container) {
            c.remove(type: StressInstance.self, name: key.name)  // and its alias
            c.remove(type: Pair<StressInstance>.self, name: key.name)
            c.remove(type: StressOther.self, name: key.name)
        }

        /// Nil when `instance` is a well-formed instance of `key`.
        static func problem(_ instance: StressInstance, for key: Key) -> String? {
            guard instance.magic == StressInstance.expectedMagic else {
                return "\(key.name): not a StressInstance (magic \(instance.magic))"
            }
            guard instance.key == key.name else {
                return "asked for \(key.name), got the instance of \(instance.key)"
            }
            let latest = key.latest.load(ordering: .acquiring)
            guard instance.version >= 1 && instance.version <= latest else {
                return "\(key.name): version \(instance.version) was never registered (latest \(latest))"
            }
            return nil
        }

        @Test("readers of .shared, .new, .weak and .graph while a writer registers, overwrites, removes and releases")
        func mixedScopesUnderWriter() throws {
            let counter = Counter()
            let ledger = CreationLedger()
            let failures = StressFailures()
            let releases = StressCount()
            let reads = StressCount()
            let writerOps = StressCount()
            weak var weakContainer: Container?
            var keys: [Key] = []
            for scope in [Scope.shared, .new, .weak, .graph] {
                for index in 0..<6 {
                    keys.append(Key(name: "\(scope)-\(index)", scope: scope, volatile: index >= 4))
                }
            }
            let allKeys = keys
            do {
                let c = Container()
                weakContainer = c
                for (index, key) in allKeys.enumerated() {
                    Self.install(key, version: index + 1, in: c, counter: counter, ledger: ledger)
                }
                let stop = StressFlag()
                let readerCount = 6
                runThreads(readerCount + 1) { thread in
                    if thread == readerCount {
                        Self.writer(c, keys: allKeys, stop: stop, releases: releases, ops: writerOps,
                                    counter: counter, ledger: ledger, failures: failures)
                    } else {
                        Self.reader(c, keys: allKeys, seed: UInt64(thread), stop: stop, reads: reads, failures: failures)
                    }
                }
                #expect(failures.count == 0, "\(failures.summary)")
                #expect(reads.load > 0)
                #expect(writerOps.load > 0)

                // No .shared or .weak factory ever ran twice at once, and a
                // .shared registration was created at most once per generation.
                let snapshot = ledger.snapshot
                let concurrent = snapshot.filter { $0.value.maxInFlight > 1 }.map { "\($0.key): \($0.value.maxInFlight) at once" }
                #expect(concurrent.isEmpty, "factories run concurrently: \(concurrent)")
                // Generations of a registration: 1 + the releases made while it was registered.
                let tooMany = snapshot.filter { $0.key.hasPrefix("shared-") && $0.value.created > releases.load - $0.value.releasesBefore + 1 }
                    .map { "\($0.key): \($0.value.created) creations in \(releases.load - $0.value.releasesBefore + 1) generations" }
                #expect(tooMany.isEmpty, "more than one creation per generation: \(tooMany)")

                // Quiescent: after one more release, 16 threads racing every
                // .shared key create exactly one new instance per key.
                let shared = allKeys.filter { $0.scope == .shared }
                var version = 10_000
                for key in shared {
                    version += 1
                    Self.install(key, version: version, in: c, counter: counter, ledger: ledger)
                }
                _ = shared.map { c.resolve(type: StressInstance.self, name: $0.name) }  // generation 1 exists
                c.releaseSharedInstances()
                let seen = Locked<[String: Set<ObjectIdentifier>]>([:])
                runThreads(16) { thread in
                    for offset in 0..<shared.count {
                        let key = shared[(thread + offset) % shared.count]
                        let instance = c.resolve(type: StressInstance.self, name: key.name)
                        if let problem = Self.problem(instance, for: key) { failures.record(problem) }
                        seen.withLock { _ = $0[key.name, default: []].insert(ObjectIdentifier(instance)) }
                    }
                }
                #expect(failures.count == 0, "\(failures.summary)")
                for key in shared {
                    let id = CreationLedger.id(key.name, key.latest.load(ordering: .acquiring))
                    #expect(ledger.created(id) == 2, "\(id): created \(ledger.created(id)) times over two generations")
                    #expect(seen.withLock { $0[key.name]?.count } == 1, "\(key.name): several instances in one generation")
                }
            }
            #expect(weakContainer == nil, "the container outlived its last reference")
            #expect(afterReclamation { counter.alive == 0 }, "\(counter.alive) instances outlived the container")
        }

        static func reader(_ c: Container, keys: [Key], seed: UInt64, stop: StressFlag, reads: StressCount, failures: StressFailures) {
            var rng = SplitMix64(seed: seed)
            var lastNew: [Int: StressInstance] = [:]
            var heldWeak: [Int: StressInstance] = [:]
            var count = 0
            while count < 400_000 && !stop.isSet {
                count += 1
                let index = rng.below(keys.count)
                let key = keys[index]
                do throws(ResolutionError) {
                    switch key.scope {
                    case .shared, .new, .weak:
                        // A volatile key is sometimes asked with resolveIfRegistered,
                        // whose miss is cheap (tryResolve's miss builds diagnostics).
                        let found: StressInstance?
                        if key.volatile && rng.below(2) == 0 {
                            found = c.resolveIfRegistered(type: StressInstance.self, name: key.name)
                        } else {
                            found = try c.tryResolve(type: StressInstance.self, name: key.name)
                        }
                        guard let instance = found else { continue }
                        if let problem = problem(instance, for: key) { failures.record(problem) }
                        if key.scope == .new {
                            if let last = lastNew[index], last === instance {
                                failures.record("\(key.name): .new returned the same instance twice")
                            }
                            lastNew[index] = instance
                        } else if key.scope == .weak {
                            // While this thread holds an instance, its registration must return it.
                            if let held = heldWeak[index], held.version == instance.version, held !== instance {
                                failures.record("\(key.name): .weak made a second instance while the first was held")
                            }
                            heldWeak[index] = rng.below(4) == 0 ? nil : instance
                        }
                    case .graph:
                        let pair = try c.tryResolve(type: Pair<StressInstance>.self, name: key.name)
                        for part in [pair.first, pair.second] {
                            if let problem = problem(part, for: key) { failures.record(problem) }
                        }
                        // Same registration within one resolve: same instance.
                        if pair.first.version == pair.second.version && pair.first !== pair.second {
                            failures.record("\(key.name): two .graph instances in one resolve")
                        }
                    case .scoped:
                        failures.record("\(key.name): no key of this test is .scoped")
                    }
                    if key.scope == .new && rng.below(4) == 0 {
                        // The alias: briefly absent while its registration is replaced.
                        do throws(ResolutionError) {
                            let named = try c.tryResolve(type: StressNamed.self, name: key.name)
                            if let instance = named as? StressInstance {
                                if let problem = problem(instance, for: key) { failures.record("alias: " + problem) }
                            } else {
                                failures.record("alias \(key.name): not a StressInstance")
                            }
                        } catch {
                            if !ExpectedReason.notRegistered.matches(error.reason) { failures.record("alias \(key.name): \(error)") }
                        }
                    }
                    if rng.below(64) == 0 {
                        // Every StressOther registration at once, during writes.
                        let all = try c.tryResolveAll(type: StressOther.self)
                        if Set(all.map(\.key)).count != all.count || all.contains(where: { $0.magic != StressOther.expectedMagic }) {
                            failures.record("resolveAll: \(all.map(\.key))")
                        }
                    }
                    if rng.below(8) == 0 {
                        let other = try c.tryResolve(type: StressOther.self, name: key.name)
                        if other.magic != StressOther.expectedMagic || other.key != key.name {
                            failures.record("StressOther \(key.name): got magic \(other.magic) key \(other.key)")
                        }
                    }
                } catch {
                    // A volatile key may be missing: the writer removed it for a moment.
                    if !key.volatile || !ExpectedReason.notRegistered.matches(error.reason) {
                        failures.record("\(key.name): \(error)")
                    }
                }
            }
            reads.add(count)
        }

        static func writer(_ c: Container, keys: [Key], stop: StressFlag, releases: StressCount, ops: StressCount,
                           counter: Counter, ledger: CreationLedger, failures: StressFailures) {
            defer { stop.set() }
            var rng = SplitMix64(seed: 0xFEED)
            var version = keys.count
            var present = Array(repeating: true, count: keys.count)
            var junk = 0
            var handles: [Int: Registration<StressInstance>] = [:]
            let deadline = StressDeadline(seconds: StressTests.phase)
            var count = 0
            while count < 20_000 && !deadline.passed {
                count += 1
                let index = rng.below(keys.count)
                switch rng.below(10) {
                case 0 where !keys[index].volatile && handles[index] != nil:
                    // A callback added while readers resolve: it must see the
                    // instance of its own key.
                    let name = keys[index].name
                    handles[index]!.onResolved { _, instance in
                        if instance.key != name { failures.record("onResolved of \(name) got \(instance.key)") }
                    }
                case 0...2 where !keys[index].volatile:
                    version += 1
                    handles[index] = install(keys[index], version: version, in: c, counter: counter, ledger: ledger,
                                             releasesBefore: releases.load)
                case 0...4 where keys[index].volatile:
                    if present[index] {
                        remove(keys[index], from: c)
                    } else {
                        version += 1
                        install(keys[index], version: version, in: c, counter: counter, ledger: ledger,
                                releasesBefore: releases.load)
                    }
                    present[index].toggle()
                case 5:
                    releases.increment()
                    c.releaseSharedInstances()
                case 6...8:
                    // Unrelated keys: churn of the table (tombstones, rebuilds).
                    // A rolling window of at most 256, because a missed tryResolve
                    // costs time linear in the registrations (its diagnostics).
                    let value = junk
                    c.register(type: Int.self, name: "junk-\(value)", dependency: value)
                    junk += 1
                    if junk > 256 {
                        c.remove(type: Int.self, name: "junk-\(junk - 257)")
                    }
                default:
                    if junk > 0 {
                        c.remove(type: Int.self, name: "junk-\(junk - 1 - rng.below(min(junk, 256)))")
                    }
                }
                if count % 64 == 0 { sched_yield() }
            }
            for (index, key) in keys.enumerated() where !present[index] {
                version += 1
                install(key, version: version, in: c, counter: counter, ledger: ledger, releasesBefore: releases.load)
            }
            ops.store(count)
        }
    }
}
