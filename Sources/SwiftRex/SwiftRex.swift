// SwiftRex: Store, Behavior, Effect and state-driven Channels reconciled by an engine.
