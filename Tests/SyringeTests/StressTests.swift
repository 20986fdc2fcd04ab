#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import Testing
import Syringe

/// Concurrency stress. Every test is bounded in count and in time (see
/// StressSupport.swift): the same sizes run in a debug build and under TSan
/// and ASan, where a loop simply gets fewer iterations before its deadline.
/// All checks are about correctness, none about speed.
@Suite("Stress", .serialized, .timeLimit(.minutes(2)))
struct StressTests {
    /// How long the busy phase of one test may last.
    static let phase = 1.5

    // MARK: - Readers of every scope against one writer

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
        #expect(counter.alive == 0, "\(counter.alive) instances outlived the container")
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
                        if case .notRegistered = error.reason {} else { failures.record("alias \(key.name): \(error)") }
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
                if key.volatile, case .notRegistered = error.reason {
                    // The writer removed it for a moment.
                } else {
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
        let deadline = StressDeadline(seconds: phase)
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

    // MARK: - Aliases against concurrent replacement

    @Test("register(...).implements(...) racing a re-registration of the same key leaves no orphan alias")
    func aliasRacingReplacement() {
        // The interleaving that orphans an alias is narrow, so many short
        // rounds, each on fresh keys, until the deadline.
        let counter = Counter()
        let deadline = StressDeadline(seconds: Self.phase)
        var rounds = 0
        var keys = 0
        var orphans: [String] = []
        var versions: Set<Int> = []
        while rounds < 500 && (rounds < 5 || !deadline.passed) {
            rounds += 1
            let names = (0..<500).map { "aliased-\($0)" }
            let registered = StressCount(-1)  // highest key the first thread has registered
            let c = Container()
            runThreads(2) { thread in
                if thread == 0 {
                    // Registers each key with an alias, in two steps as the API goes.
                    for (index, name) in names.enumerated() {
                        let registration = c.register(type: StressInstance.self, name: name, in: .new) { _ in
                            StressInstance(key: name, version: 1, counter: counter)
                        }
                        registered.store(index)
                        registration.implements(StressNamed.self, name: name)
                    }
                } else {
                    // Replaces each key as soon as it exists: sometimes before
                    // its alias is added, sometimes after.
                    for (index, name) in names.enumerated() {
                        while registered.load < index { sched_yield() }
                        c.register(type: StressInstance.self, name: name, in: .new) { _ in
                            StressInstance(key: name, version: 2, counter: counter)
                        }
                    }
                }
            }
            // One more replacement of every key, alone: whatever registration
            // was live, its alias (if it had one) goes with it ("The alias goes
            // away with this registration when it is removed or replaced").
            for name in names {
                c.register(type: StressInstance.self, name: name, in: .new) { _ in
                    StressInstance(key: name, version: 3, counter: counter)
                }
            }
            keys += names.count
            for name in names where c.isRegistered(type: StressNamed.self, name: name) {
                orphans.append(name)
                if let instance = c.resolveIfRegistered(type: StressNamed.self, name: name) as? StressInstance {
                    versions.insert(instance.version)
                }
            }
        }
        #expect(orphans.count == 0, """
            \(orphans.count) of \(keys) aliases outlived the registration they were added to; \
            they resolve version(s) \(versions.sorted()) of a replaced registration while the key resolves version 3
            """)
    }

    // MARK: - First resolves racing

    @Test("16 threads racing the first resolve of 512 shared keys create each exactly once")
    func racingFirstResolves() {
        let deadline = StressDeadline(seconds: Self.phase)
        var rounds = 0
        while rounds < 20 && (rounds < 2 || !deadline.passed) {
            rounds += 1
            let counter = Counter()
            let ledger = CreationLedger()
            let failures = StressFailures()
            let names = (0..<256).map { "key-\($0)" }
            let threadCount = 16
            let results = Locked<[[ObjectIdentifier]]>(Array(repeating: [], count: threadCount))
            do {
                let c = Container()
                for (version, name) in names.enumerated() {
                    let id = CreationLedger.id(name, version)
                    c.register(type: StressInstance.self, name: name) { _ in
                        ledger.enter(id)
                        defer { ledger.leave(id) }
                        sched_yield()  // widen the window
                        return StressInstance(key: name, version: version, counter: counter)
                    }
                    let otherID = CreationLedger.id("other-" + name, version)
                    c.register(type: StressOther.self, name: name) { _ in
                        ledger.enter(otherID)
                        defer { ledger.leave(otherID) }
                        return StressOther(key: name, version: version, counter: counter)
                    }
                }
                runThreads(threadCount) { thread in
                    // Each thread walks the keys from its own starting point.
                    var seen = Array(repeating: ObjectIdentifier(StressInstance.self), count: names.count * 2)
                    for step in 0..<names.count {
                        let index = (step + thread * 16) % names.count
                        let instance = c.resolve(type: StressInstance.self, name: names[index])
                        let other = c.resolve(type: StressOther.self, name: names[index])
                        if instance.magic != StressInstance.expectedMagic || instance.key != names[index] || instance.version != index {
                            failures.record("\(names[index]): got \(instance.key) v\(instance.version)")
                        }
                        if other.magic != StressOther.expectedMagic || other.key != names[index] {
                            failures.record("StressOther \(names[index]): got \(other.key)")
                        }
                        seen[index] = ObjectIdentifier(instance)
                        seen[names.count + index] = ObjectIdentifier(other)
                    }
                    results.withLock { $0[thread] = seen }
                }
                #expect(failures.count == 0, "\(failures.summary)")
                let all = results.withLock { $0 }
                #expect(Set(all).count == 1, "threads saw different instances of a shared key")
                #expect(counter.created == names.count * 2, "\(counter.created) creations for \(names.count * 2) keys")
                for (id, entry) in ledger.snapshot where entry.created != 1 || entry.maxInFlight != 1 {
                    Issue.record("\(id): created \(entry.created) times, \(entry.maxInFlight) at once")
                }
            }
            #expect(counter.alive == 0)
        }
    }

    // MARK: - Growth under readers

    @Test("the table grows many times while readers resolve fixed and fresh keys")
    func growthUnderReaders() {
        let counter = Counter()
        let failures = StressFailures()
        let published = StressCount()
        let lag = 64
        let minimumKeys = 4_096  // at least 9 doublings from the initial 8 slots
        let maximumKeys = 30_000
        weak var weakContainer: Container?
        do {
            let c = Container()
            weakContainer = c
            let fixed = (0..<16).map { "fixed-\($0)" }
            for (version, name) in fixed.enumerated() {
                c.register(type: StressInstance.self, name: name) { _ in
                    StressInstance(key: name, version: version, counter: counter)
                }
            }
            let stop = StressFlag()
            runThreads(5) { thread in
                if thread == 0 {
                    defer { stop.set() }
                    let deadline = StressDeadline(seconds: Self.phase)
                    var index = 0
                    while index < maximumKeys && (index < minimumKeys || !deadline.passed) {
                        let value = index
                        c.register(type: Int.self, name: "grow-\(value)", dependency: value)
                        // Every fourth key goes again a little later: tombstones
                        // and clean-up rebuilds on top of the growth.
                        if index >= lag && (index - lag) % 4 == 0 {
                            c.remove(type: Int.self, name: "grow-\(index - lag)")
                        }
                        index += 1
                        published.store(index)
                    }
                    return
                }
                var rng = SplitMix64(seed: UInt64(thread) * 7919)
                var count = 0
                while count < 1_000_000 && !stop.isSet {
                    count += 1
                    let name = fixed[rng.below(fixed.count)]
                    do throws(ResolutionError) {
                        let instance = try c.tryResolve(type: StressInstance.self, name: name)
                        if instance.key != name || instance.magic != StressInstance.expectedMagic {
                            failures.record("asked \(name), got \(instance.key)")
                        }
                    } catch {
                        failures.record("fixed key \(name) missing during growth: \(error)")
                    }
                    let limit = published.load
                    guard limit > 0 else { continue }
                    let index = rng.below(limit)
                    do throws(ResolutionError) {
                        let value = try c.tryResolve(type: Int.self, name: "grow-\(index)")
                        if value != index { failures.record("grow-\(index) resolved to \(value)") }
                    } catch {
                        if index % 4 != 0 { failures.record("published key grow-\(index) missing: \(error)") }
                    }
                }
            }
            #expect(failures.count == 0, "\(failures.summary)")
            let total = published.load
            #expect(total >= minimumKeys)
            var missing = 0
            for index in 0..<total {
                let removed = index % 4 == 0 && index + lag < total
                let value = c.resolveIfRegistered(type: Int.self, name: "grow-\(index)")
                if value != (removed ? nil : index) { missing += 1 }
            }
            #expect(missing == 0, "\(missing) of \(total) keys wrong after growth")
        }
        #expect(weakContainer == nil)
        #expect(counter.alive == 0)
    }

    // MARK: - Child containers

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
                    let deadline = StressDeadline(seconds: Self.phase)
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
            #expect(childCounter.alive == 0, "\(childCounter.alive) child instances outlived their child containers")
        }
        #expect(weakParent == nil)
        #expect(counter.alive == 0)
    }

    // MARK: - .weak under contention

    final class Slot: Sendable {
        let held = Locked<StressInstance?>(nil)
    }

    @Test(".weak instances released and recreated under contention")
    func weakUnderContention() {
        let counter = Counter()
        let ledger = CreationLedger()
        let failures = StressFailures()
        let names = (0..<4).map { "weak-\($0)" }
        let slots = names.map { _ in Slot() }
        let latest = StressCount()
        let c = Container()
        func install(_ name: String, _ version: Int) {
            let id = CreationLedger.id(name, version)
            c.register(type: StressInstance.self, name: name, in: .weak) { _ in
                ledger.enter(id)
                defer { ledger.leave(id) }
                return StressInstance(key: name, version: version, counter: counter)
            }
        }
        for name in names { install(name, 1) }
        latest.store(1)
        let stop = StressFlag()
        runThreads(9) { thread in
            if thread == 0 {
                // Replaces "weak-0" now and then; releases shared instances (none).
                defer { stop.set() }
                let deadline = StressDeadline(seconds: Self.phase)
                var version = 1
                var count = 0
                while count < 2_000 && !deadline.passed {
                    count += 1
                    if count % 2 == 0 {
                        version += 1
                        latest.store(version)
                        install(names[0], version)
                    } else {
                        c.releaseSharedInstances()
                    }
                    usleep(500)
                }
                return
            }
            var rng = SplitMix64(seed: UInt64(thread) &* 31)
            var mine: StressInstance?
            var count = 0
            while count < 300_000 && !stop.isSet {
                count += 1
                let index = rng.below(names.count)
                // Held strongly across the resolve: if it is of the same
                // registration, the resolve must return it.
                let held = slots[index].held.withLock { $0 }
                do throws(ResolutionError) {
                    let instance = try c.tryResolve(type: StressInstance.self, name: names[index])
                    if instance.key != names[index] || instance.version > latest.load {
                        failures.record("\(names[index]): got \(instance.key) v\(instance.version)")
                    }
                    if let held, held.version == instance.version, held !== instance {
                        failures.record("\(names[index]): a second live .weak instance while one was held")
                    }
                    if let mine, mine.key == instance.key, mine.version == instance.version, mine !== instance {
                        failures.record("\(names[index]): a second live .weak instance while this thread held one")
                    }
                    switch rng.below(4) {
                    case 0: slots[index].held.withLock { $0 = instance }
                    case 1: slots[index].held.withLock { $0 = nil }
                    case 2: mine = instance
                    default: mine = nil
                    }
                } catch {
                    failures.record("\(names[index]): \(error)")
                }
            }
        }
        #expect(failures.count == 0, "\(failures.summary)")
        let concurrent = ledger.snapshot.filter { $0.value.maxInFlight > 1 }.map { "\($0.key): \($0.value.maxInFlight) at once" }
        #expect(concurrent.isEmpty, "factories run concurrently: \(concurrent)")
        for slot in slots { slot.held.withLock { $0 = nil } }
        // Nothing outside holds an instance now; the container must not either.
        #expect(counter.alive == 0, "the container keeps \(counter.alive) .weak instances alive")
        let before = counter.created
        let again = c.resolve(type: StressInstance.self, name: names[1])
        #expect(counter.created == before + 1, "a released .weak instance must be recreated")
        #expect(c.resolve(type: StressInstance.self, name: names[1]) === again)
    }
}
