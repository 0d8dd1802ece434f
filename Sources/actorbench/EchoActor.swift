import ActorEchoInterface
import Distributed
import Foundation
import RexActors

/// The benchmark's implementation of `Echo`, hosted by the `actor-serve` child.
distributed actor EchoActor: Echo {
    typealias ActorSystem = ClusterActorSystem

    private var count = 0
    private var first: UInt64 = 0
    private var last: UInt64 = 0

    distributed func echo(_ payload: [UInt8]) -> [UInt8] { payload }

    distributed func deliver(_ payload: [UInt8]) {
        last = nowNanoseconds()
        if count == 0 { first = last }
        count += 1
    }

    distributed func delivered() -> DeliveryReport {
        DeliveryReport(count: count, firstToLastNanoseconds: count > 1 ? last &- first : 0)
    }
}
