@_spi(_Unicode) import Swift
import CSyringeTable

/// How a registration's name reaches the C table.
///
/// The table compares bytes, but Swift compares strings by canonical
/// equivalence ("é" precomposed equals "e" + combining acute). Names are
/// therefore stored in NFC. A resolve first tries the caller's bytes as they
/// are (ASCII and already-NFC names, i.e. nearly all, hit at once), and only
/// on a miss of a non-ASCII name retries with the NFC form.
@usableFromInline
enum KeyName {
    /// `name_len` for a key without a name (`SYR_NO_NAME`).
    @usableFromInline
    static let absent = -1

    /// Calls `body` with the UTF-8 bytes of `name`, or with `(nil, absent)`.
    @inlinable
    @inline(__always)
    static func withBytes<R>(_ name: String?, _ body: (UnsafeRawPointer?, Int) -> R) -> R {
        guard let name else {
            return body(nil, absent)
        }
        if let result = name.utf8.withContiguousStorageIfAvailable({ body(UnsafeRawPointer($0.baseAddress), $0.count) }) {
            return result
        }
        return withContiguousCopy(name, body)
    }

    /// Bridged and other non-contiguous strings: copy into native storage.
    @usableFromInline
    static func withContiguousCopy<R>(_ name: String, _ body: (UnsafeRawPointer?, Int) -> R) -> R {
        var copy = name
        copy.makeContiguousUTF8()
        return copy.utf8.withContiguousStorageIfAvailable { body(UnsafeRawPointer($0.baseAddress), $0.count) }!
    }

    /// The NFC form that registrations store.
    @usableFromInline
    static func canonical(_ name: String) -> String {
        if isASCII(name) {
            return name
        }
        return String(decoding: name._nfcCodeUnits, as: UTF8.self)
    }

    /// The NFC form when it can differ from `name`'s own bytes, else nil.
    @usableFromInline
    static func canonicalIfDifferent(_ name: String?) -> String? {
        guard let name, !isASCII(name) else {
            return nil
        }
        let nfc = canonical(name)
        return nfc.utf8.elementsEqual(name.utf8) ? nil : nfc
    }

    private static func isASCII(_ name: String) -> Bool {
        name.utf8.allSatisfy { $0 < 0x80 }
    }
}

/// The form in which a registration name is stored and looked up (NFC), for
/// SyringeSwinject's tables, which keep names as Syringe's do.
@_spi(SyringeSwinject) public func canonicalRegistrationName(_ name: String) -> String {
    KeyName.canonical(name)
}

/// The NFC form of `name` when it differs from `name`'s own bytes, else nil:
/// what a lookup that missed on the caller's bytes retries with.
@_spi(SyringeSwinject) public func canonicalRegistrationNameIfDifferent(_ name: String) -> String? {
    KeyName.canonicalIfDifferent(name)
}
