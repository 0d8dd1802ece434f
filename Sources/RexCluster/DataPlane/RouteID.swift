/// Identifies a route (shared or dedicated) for as long as it exists.
package struct RouteID: Hashable, Sendable {
    package let rawValue: UInt64

    package init(rawValue: UInt64) {
        self.rawValue = rawValue
    }
}
