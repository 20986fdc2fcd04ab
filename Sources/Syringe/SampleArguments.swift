/// Runtime arguments for `validate(samples:)` to resolve registrations that
/// take them: without a sample, such a registration is listed as not
/// validated (its factory cannot run without arguments).
///
/// ```swift
/// var samples = SampleArguments()
/// samples.add(for: Endpoint.self, name: "tls", arguments: "example.org", 443, true)
/// try container.validate(samples: samples)
/// ```
public struct SampleArguments {
    /// One registration's arguments, copied to the heap for each resolve
    /// (an async resolve needs them across suspensions).
    struct Sample {
        let make: () -> UnsafeMutableRawPointer
        let free: (UnsafeMutableRawPointer) -> Void
        /// What a resolve with these arguments fails with from a container
        /// where nothing takes them: a sample `validate` could not use.
        let unmatched: (Container) -> ResolutionError
    }

    private(set) var samples: [DefinitionKey: Sample] = [:]

    /// No samples: every registration with runtime arguments is listed as not validated.
    ///
    /// ```swift
    /// try container.validate(samples: SampleArguments())
    /// ```
    public init() {}

    /// Sets the arguments to resolve the registration of `type` (under
    /// `name`) that takes arguments of exactly these types, in this order.
    /// A sample that no registration of the validated container (or its
    /// parents) takes is a problem `validate` reports, with the signatures
    /// registered for the type, if any.
    ///
    /// ```swift
    /// samples.add(for: Report.self, arguments: 11)   // register { (r: Resolver, month: Int) in … }
    /// ```
    public mutating func add<T, each Argument>(for type: T.Type, name: String? = nil, arguments: repeat each Argument) {
        let key = DefinitionKey(type: typeIdentity(T.self), signature: ArgumentSignature<repeat each Argument>.identity, name: name)
        let tuple = (repeat each arguments)
        samples[key] = Sample(
            make: {
                let copy = UnsafeMutablePointer<(repeat each Argument)>.allocate(capacity: 1)
                copy.initialize(to: tuple)
                return UnsafeMutableRawPointer(copy)
            },
            free: { raw in
                let copy = raw.assumingMemoryBound(to: (repeat each Argument).self)
                copy.deinitialize(count: 1)
                copy.deallocate()
            },
            unmatched: { container in
                let argumentTypes = ArgumentSignature<repeat each Argument>.types
                return container.notRegistered(T.self, name: name, signature: key.signature, argumentTypes: argumentTypes,
                                               path: ["SampleArguments", TypeName.step(T.self, name: name, argumentTypes: argumentTypes)],
                                               observed: false)
            }
        )
    }
}
