/// A type-erased, `Sendable` hashable value whose equality is type-aware.
///
/// Two wrapped values are equal only when they have the same dynamic type and compare equal, so
/// `1` (Int), `1.0` (Double), `"1"` and two enums' same-named cases are four distinct ids.
///
/// The engine compares and looks up ids for every channel on every reconcile cycle, so this type
/// is built for that: `Int` and `String` ids (the common ones) are stored inline without boxing,
/// other values in a class box compared by a direct type check (no dynamic cast), and a hash is
/// computed once at wrapping time and compared before anything else.
public struct AnyHashableSendable: Hashable, Sendable, CustomStringConvertible {
    @usableFromInline
    enum Storage: Sendable {
        case int(Int)
        case string(String)
        case boxed(AnyHashableBox)
    }

    @usableFromInline let storage: Storage
    @usableFromInline let hashCode: Int

    /// Wraps `value`. Wrapping an `AnyHashableSendable` returns it unchanged (never nests).
    @inlinable
    public init<Value: Hashable & Sendable>(_ value: Value) {
        if Value.self == AnyHashableSendable.self {
            self = unsafeBitCast(value, to: AnyHashableSendable.self)
        } else if Value.self == Int.self {
            let number = unsafeBitCast(value, to: Int.self)
            storage = .int(number)
            hashCode = number &* -7_046_029_254_386_353_131  // a cheap odd-multiplier mix
        } else if Value.self == String.self {
            let text = unsafeBitCast(value, to: String.self)
            storage = .string(text)
            hashCode = text.hashValue
        } else {
            storage = .boxed(HashableBox(value))
            hashCode = value.hashValue
        }
    }

    /// The wrapped value.
    public var base: any Hashable & Sendable {
        switch storage {
        case .int(let number): number
        case .string(let text): text
        case .boxed(let box): box.anyValue
        }
    }

    @inlinable
    public static func == (lhs: AnyHashableSendable, rhs: AnyHashableSendable) -> Bool {
        guard lhs.hashCode == rhs.hashCode else { return false }
        switch (lhs.storage, rhs.storage) {
        case (.int(let a), .int(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.boxed(let a), .boxed(let b)): return a === b || a.isEqual(to: b)
        default: return false
        }
    }

    @inlinable
    public func hash(into hasher: inout Hasher) {
        hasher.combine(hashCode)
    }

    public var description: String {
        switch storage {
        case .int(let number): String(number)
        case .string(let text): text
        case .boxed(let box): String(describing: box.anyValue)
        }
    }
}

/// The box for values that are neither `Int` nor `String`.
@usableFromInline
class AnyHashableBox: @unchecked Sendable {
    // @unchecked Sendable: immutable; the only subclass holds a `let` of a `Sendable` value.
    @usableFromInline init() {}

    var anyValue: any Hashable & Sendable { fatalError("abstract") }

    @usableFromInline func isEqual(to other: AnyHashableBox) -> Bool { fatalError("abstract") }
}

@usableFromInline
final class HashableBox<Value: Hashable & Sendable>: AnyHashableBox, @unchecked Sendable {
    // @unchecked Sendable: `value` is an immutable `let` of a `Sendable` type.
    @usableFromInline let value: Value

    @inlinable init(_ value: Value) {
        self.value = value
        super.init()
    }

    override var anyValue: any Hashable & Sendable { value }

    @inlinable
    override func isEqual(to other: AnyHashableBox) -> Bool {
        // Same dynamic type is a metadata pointer comparison; then the downcast needs no check.
        guard type(of: other) == HashableBox<Value>.self else { return false }
        return value == unsafeDowncast(other, to: HashableBox<Value>.self).value
    }
}
