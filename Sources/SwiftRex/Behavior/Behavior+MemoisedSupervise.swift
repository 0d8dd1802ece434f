extension Behavior {
    /// Declares the channels each state keeps alive, memoised on what they depend on.
    ///
    /// `input` projects the state onto everything `supervise` reads. After a batch the store
    /// computes the input and compares it (`==`) with the last one: when equal, `supervise` is not
    /// run, its cached channels stand, and the engine does not diff them at all — a batch that
    /// changed no supervise input costs the store one projection and one comparison per memo.
    /// When every memo of a store compares equal, the reconcile is skipped as a whole.
    ///
    /// Correctness rests on one contract: the channels depend on `input` alone (and on the
    /// environment, which is fixed for a store's life). Read nothing else of the state inside.
    ///
    /// Cost: the saving is only as good as the comparison is cheap. Prefer small values (ids,
    /// endpoints, a reset key) or a revision counter the reducer bumps when the supervised part
    /// changes. A whole large collection as the input costs O(n) to compare (arrays and
    /// dictionaries compare in O(1) only while they share storage), and keeping it costs a
    /// copy-on-write copy at the next mutation; for collections use `liftCollection`/`liftEach`
    /// with a memoised element supervise, guarded by `memoisingSupervise(on:)` with a revision.
    ///
    /// ```swift
    /// Behavior<PeerAction, Peer, Env>
    ///     .supervise(on: \.endpoint) { endpoint in
    ///         Supervision { env in [Channel(id: "socket", lifetime: .ephemeral(resetKey: endpoint)) { … }] }
    ///     }
    /// ```
    public static func supervise<Input: Equatable & Sendable>(
        on input: @escaping @Sendable (State) -> Input,
        _ supervise: @escaping @Sendable (Input) -> Supervision<Action, Environment>
    ) -> Behavior {
        Behavior(reducer: nil, producer: nil, supervisor: SupervisorPlan { MemoisedSupervisor(input: input, supervise: supervise) })
    }

    /// This behavior plus a memoised supervision (see the static `supervise(on:_:)`).
    public func supervise<Input: Equatable & Sendable>(
        on input: @escaping @Sendable (State) -> Input,
        _ supervise: @escaping @Sendable (Input) -> Supervision<Action, Environment>
    ) -> Behavior {
        .combine(self, .supervise(on: input, supervise))
    }

    /// This behavior with its whole supervise (every `supervise` combined into it, lifted ones
    /// included) consulted only when `input` changed.
    ///
    /// A guard over a subtree: while `input(state)` compares equal to the last one, none of the
    /// subtree's supervises or memos is even asked, so its cost is O(1) however many channels it
    /// declares. When the input changes, the subtree updates as it would unguarded (its own memos
    /// still skip what did not change). The contract is the one of `supervise(on:_:)`: the
    /// subtree's channels depend on nothing of the state that `input` does not reflect — a
    /// revision counter that the reducer bumps whenever it changes something the subtree reads is
    /// the usual input.
    ///
    /// ```swift
    /// Follow.behavior
    ///     .liftCollection(action: …, embed: …, stateDictionary: \.follows)
    ///     .memoisingSupervise(on: \.followsRevision)
    /// ```
    public func memoisingSupervise<Input: Equatable & Sendable>(on input: @escaping @Sendable (State) -> Input) -> Behavior {
        Behavior(reducer: reducer, producer: producer, supervisor: supervisor?.guarded(by: input))
    }
}
