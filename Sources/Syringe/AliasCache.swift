import Synchronization

/// What an alias (`implements`) of a `.shared` registration made of its
/// target's instance the last time: the instance converted to the alias's
/// type, with the box it was read from.
///
/// Converting asks the runtime whether the instance's class conforms to the
/// alias's type, about 330 instructions, on every resolve; the instance of a
/// `.shared` registration is the same until it is released, closed or taken
/// back, so the alias keeps the answer. It is the answer while the target's
/// published box is the box it was made from: the entry holds that box, so
/// no other box can take its address meanwhile, and a box's instance never
/// changes while anyone holds it (a box is emptied for reuse only when
/// nothing else does, see `SpareObjects`).
///
/// Lock-free. The entry is read inside the resolve's read-side section, and
/// a replaced or forgotten one is retired, not released. The alias's
/// definition forgets it when the container releases or closes its
/// `.shared` instances (`Definition.takeSharedInstance`), so that it keeps
/// no released instance alive; one made from a box that was unpublished
/// meanwhile is forgotten by its maker (`remember`). An instance a failed
/// resolve took back (`retractShared`) is never handed out through it (its
/// box is no longer the target's); the entry keeps it until the alias is
/// resolved again while the target has an instance, or the container
/// releases or closes its instances (a target does not know its aliases).
///
/// Not generic: the converted instance is kept in a box of its own, as a
/// `.shared` instance is. An `AliasCache<U>` held by the generic forwarding
/// factory cost each resolve a runtime lookup of its metadata (about 300
/// instructions), more than the conversion it saves.
@usableFromInline
final class AliasCache: @unchecked Sendable {
    // @unchecked: `entry` is an atomic word; the entries it points to are
    // immutable.
    private final class Entry {
        /// The target's box the instance was read from.
        let box: InstanceBox
        /// The instance, converted to the alias's type.
        let converted: InstanceBox

        init(box: InstanceBox, converted: InstanceBox) {
            self.box = box
            self.converted = converted
        }
    }

    /// A retained `Entry`, or nil.
    private let entry = Atomic<UnsafeRawPointer?>(nil)

    deinit {
        if let raw = entry.load(ordering: .acquiring) {
            Unmanaged<Entry>.fromOpaque(raw).release()
        }
    }

    /// The converted instance, a `U`, if it was made from `box` (the
    /// target's published box); else throws. Call inside a read-side
    /// section. Throws rather than returning a `U?`: in the unspecialised
    /// code that asks, `Optional<U>` is a runtime metadata lookup.
    func value<U>(madeFrom box: UnsafeRawPointer, as _: U.Type) throws(Miss) -> U {
        guard let raw = entry.load(ordering: .acquiring),
              let converted = Unmanaged<Entry>.fromOpaque(raw)._withUnsafeGuaranteedRef({ entry in
                  UnsafeRawPointer(Unmanaged.passUnretained(entry.box).toOpaque()) == box ? entry.converted : nil
              }) else {
            throw Miss()
        }
        return converted.value(as: U.self)
    }

    /// What the cache throws when it has nothing for the box asked about.
    struct Miss: Error {}

    /// Keeps `value`, converted from the instance in `box`, which was
    /// `target`'s published box. Call inside a read-side section.
    func remember<U>(_ value: U, madeFrom box: InstanceBox, of target: AnyDefinition) {
        let made = Unmanaged.passRetained(Entry(box: box, converted: InstanceBox.make(value)))
        let madeAddress = UnsafeRawPointer(made.toOpaque())
        // Sequentially consistent, as the target's box is taken
        // (`takeSharedBox`) and then this forgotten: either the check below
        // sees the box gone, or the forgetting sees this entry.
        retire(entry.exchange(madeAddress, ordering: .sequentiallyConsistent), polling: true)
        if target.sharedBox.load(ordering: .sequentiallyConsistent) != UnsafeRawPointer(Unmanaged.passUnretained(box).toOpaque()) {
            let (exchanged, _) = entry.compareExchange(expected: madeAddress, desired: nil, ordering: .sequentiallyConsistent)
            if exchanged {
                retire(madeAddress, polling: true)
            }
        }
    }

    /// Drops the converted instance, if any. Called by a writer, perhaps
    /// under its lock: it polls afterwards.
    func forget() {
        retire(entry.exchange(nil, ordering: .sequentiallyConsistent), polling: false)
    }

    /// Hands an entry that was unpublished to the reclaimer: a resolve may
    /// still be reading it. A resolve is no writer, which polls afterwards:
    /// it polls itself (inside a synchronous resolve's section, the poll
    /// leaves that to the reclaimer's thread).
    private func retire(_ raw: UnsafeRawPointer?, polling: Bool) {
        guard let raw else { return }
        let unpublished = Unmanaged<Entry>.fromOpaque(raw).takeRetainedValue()
        if polling {
            Reclamation.retireAndPoll(unpublished)
        } else {
            Reclamation.retire(unpublished)
        }
    }
}
