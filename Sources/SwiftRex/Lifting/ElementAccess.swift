/// How the collection lifts reach the elements of a container inside the global state.
struct ElementAccess<GlobalState, ID: Hashable & Sendable, Element>: Sendable {
    /// Mutates the element with `id` in place; does nothing if it is absent.
    let modify: @Sendable (inout GlobalState, ID, (inout Element) -> Void) -> Void
    let get: @Sendable (GlobalState, ID) -> Element?
    /// Every element with its id, in the container's order.
    let all: @Sendable (GlobalState) -> [(ID, Element)]
    /// How many elements there are.
    let count: @Sendable (GlobalState) -> Int
    /// Visits every element with its id, in the container's order, without collecting them.
    let forEach: @Sendable (GlobalState, (ID, Element) -> Void) -> Void
    let modifyAll: @Sendable (inout GlobalState, (inout Element) -> Void) -> Void
    /// Visits the elements at the given offsets from the start, in the order given, projecting
    /// the container once (random-access containers only; each offset in range).
    var elementsAt: (@Sendable (GlobalState, [Int], (ID, Element) -> Void) -> Void)? = nil

    /// Elements of a mutable collection of `Identifiable` values.
    static func collection<C: MutableCollection>(
        _ keyPath: any WritableKeyPath<GlobalState, C> & Sendable
    ) -> ElementAccess
    where
        C.Element == Element, Element: Identifiable, Element.ID == ID,
        C: SendableMetatype, C.Index: SendableMetatype, Element: SendableMetatype
    {
        ElementAccess(
            modify: { global, id, body in
                guard let index = global[keyPath: keyPath].firstIndex(where: { $0.id == id }) else { return }
                body(&global[keyPath: keyPath][index])
            },
            get: { global, id in global[keyPath: keyPath].first { $0.id == id } },
            all: { global in global[keyPath: keyPath].map { ($0.id, $0) } },
            count: { global in global[keyPath: keyPath].count },
            forEach: { global, body in
                for element in global[keyPath: keyPath] { body(element.id, element) }
            },
            modifyAll: { global, body in
                var index = global[keyPath: keyPath].startIndex
                while index != global[keyPath: keyPath].endIndex {
                    body(&global[keyPath: keyPath][index])
                    global[keyPath: keyPath].formIndex(after: &index)
                }
            }
        )
    }

    /// Elements of a random-access collection: `collection` plus access by offset.
    static func randomAccess<C: MutableCollection & RandomAccessCollection>(
        _ keyPath: any WritableKeyPath<GlobalState, C> & Sendable
    ) -> ElementAccess
    where
        C.Element == Element, Element: Identifiable, Element.ID == ID,
        C: SendableMetatype, C.Index: SendableMetatype, Element: SendableMetatype
    {
        var access = collection(keyPath)
        access.elementsAt = { global, offsets, body in
            let elements = global[keyPath: keyPath]
            for offset in offsets {
                let element = elements[elements.index(elements.startIndex, offsetBy: offset)]
                body(element.id, element)
            }
        }
        return access
    }

    /// Values of a dictionary, keyed by its keys (in the dictionary's order).
    static func dictionary(_ keyPath: any WritableKeyPath<GlobalState, [ID: Element]> & Sendable) -> ElementAccess {
        ElementAccess(
            modify: { global, id, body in
                // One key-path projection and one hash lookup, mutating the value in place.
                Self.modifyValue(in: &global[keyPath: keyPath], id, body)
            },
            get: { global, id in global[keyPath: keyPath][id] },
            all: { global in global[keyPath: keyPath].map { ($0.key, $0.value) } },
            count: { global in global[keyPath: keyPath].count },
            forEach: { global, body in
                for (key, value) in global[keyPath: keyPath] { body(key, value) }
            },
            modifyAll: { global, body in
                for key in global[keyPath: keyPath].keys { body(&global[keyPath: keyPath][key]!) }
            }
        )
    }
}

extension ElementAccess {
    static func modifyValue(in dictionary: inout [ID: Element], _ id: ID, _ body: (inout Element) -> Void) {
        guard let index = dictionary.index(forKey: id) else { return }
        body(&dictionary.values[index])
    }
}
