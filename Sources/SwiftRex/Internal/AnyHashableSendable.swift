/// A type-erased, `Sendable` hashable value whose equality is type-aware.
///
/// Two wrapped values are equal only when they have the same dynamic type and compare equal, so
/// `1` (Int), `1.0` (Double), `"1"` and two enums' same-named cases are four distinct ids. The hash
/// is computed once at wrapping time: the engine compares and looks up ids on every reconcile
/// cycle, and a precomputed hash makes both cheap.
public struct AnyHashableSendable: Hashable, Sendable, CustomStringConvertible {
    @usableFromInline let box: any HashableSendableBox
    @usableFromInline let hashCode: Int

    /// Wraps `value`. Wrapping an `AnyHashableSendable` returns it unchanged (never nests).
    @inlinable
    public init<Value: Hashable & Sendable>(_ value: Value) {
        if let already = value as? AnyHashableSendable {
            self = already
            return
        }
        var hasher = Hasher()
        hasher.combine(ObjectIdentifier(Value.self))
        hasher.combine(value)
        self.box = ConcreteHashableBox(value)
        self.hashCode = hasher.finalize()
    }

    /// The wrapped value.
    public var base: any Hashable & Sendable { box.anyValue }

    @inlinable
    public static func == (lhs: AnyHashableSendable, rhs: AnyHashableSendable) -> Bool {
        lhs.hashCode == rhs.hashCode && lhs.box.isEqual(to: rhs.box)
    }

    @inlinable
    public func hash(into hasher: inout Hasher) {
        hasher.combine(hashCode)
    }

    public var description: String { String(describing: box.anyValue) }
}

@usableFromInline
protocol HashableSendableBox: Sendable {
    var anyValue: any Hashable & Sendable { get }
    func isEqual(to other: any HashableSendableBox) -> Bool
}

@usableFromInline
struct ConcreteHashableBox<Value: Hashable & Sendable>: HashableSendableBox {
    @usableFromInline let value: Value

    @inlinable init(_ value: Value) { self.value = value }

    @usableFromInline var anyValue: any Hashable & Sendable { value }

    @inlinable
    func isEqual(to other: any HashableSendableBox) -> Bool {
        guard let other = other as? ConcreteHashableBox<Value> else { return false }
        return value == other.value
    }
}
