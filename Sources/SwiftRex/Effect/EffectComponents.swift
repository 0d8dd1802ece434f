/// The components of an effect, in order.
///
/// Most effects have exactly one component (a `just`, a `broadcast`, an `open`), and a store
/// builds one per produced action: holding a single component inline instead of in an array
/// saves an allocation and a free on that path.
@usableFromInline
struct EffectComponents<Action: Sendable>: Sendable, RandomAccessCollection {
    @usableFromInline
    enum Storage: Sendable {
        case none
        case one(EffectComponent<Action>)
        case many([EffectComponent<Action>])
    }

    @usableFromInline var storage: Storage

    @inlinable init() { storage = .none }

    @usableFromInline init(_ component: EffectComponent<Action>) { storage = .one(component) }

    @usableFromInline init(_ components: [EffectComponent<Action>]) {
        switch components.count {
        case 0: storage = .none
        case 1: storage = .one(components[0])
        default: storage = .many(components)
        }
    }

    @inlinable var startIndex: Int { 0 }

    @inlinable var endIndex: Int {
        switch storage {
        case .none: 0
        case .one: 1
        case .many(let components): components.count
        }
    }

    @usableFromInline subscript(position: Int) -> EffectComponent<Action> {
        switch storage {
        case .one(let component):
            precondition(position == 0, "Index out of range")
            return component
        case .many(let components):
            return components[position]
        case .none:
            preconditionFailure("Index out of range")
        }
    }

    /// Every component transformed, keeping the inline single-component form.
    func mapComponents<Other: Sendable>(_ transform: (EffectComponent<Action>) -> EffectComponent<Other>) -> EffectComponents<Other> {
        switch storage {
        case .none: EffectComponents<Other>()
        case .one(let component): EffectComponents<Other>(transform(component))
        case .many(let components): EffectComponents<Other>(components.map(transform))
        }
    }

    /// `lhs`'s components followed by `rhs`'s.
    @usableFromInline static func + (lhs: EffectComponents, rhs: EffectComponents) -> EffectComponents {
        if lhs.isEmpty { return rhs }
        if rhs.isEmpty { return lhs }
        return EffectComponents(Array(lhs) + Array(rhs))
    }
}
