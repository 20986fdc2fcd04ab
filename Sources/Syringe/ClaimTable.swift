/// A table of claim bookkeeping (`InstanceCreation`, `AsyncClaims`), keyed
/// by an object's identity or a thread's: an array searched from the front,
/// not a `Dictionary`. It holds a few entries at a time (one per creation in
/// progress, or thread waiting, on each thread or task), and hashing a key
/// cost more than the search; a removal moves the last entry into the gap,
/// so the array keeps its buffer and a claim allocates nothing.
struct ClaimTable<Key: Equatable, Value> {
    private var entries: [(key: Key, value: Value)] = []

    subscript(key: Key) -> Value? {
        get {
            entries.first { $0.key == key }?.value
        }
        set {
            let index = entries.firstIndex { $0.key == key }
            switch (index, newValue) {
            case let (index?, value?):
                entries[index].value = value
            case let (index?, nil):
                entries.swapAt(index, entries.count - 1)
                entries.removeLast()
            case let (nil, value?):
                entries.append((key, value))
            case (nil, nil):
                break
            }
        }
    }

    var values: LazyMapSequence<[(key: Key, value: Value)], Value> {
        entries.lazy.map(\.value)
    }
}
