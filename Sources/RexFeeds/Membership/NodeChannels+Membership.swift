import RexCluster
import RexControl
import SwiftRex

extension NodeChannels {
    /// The SWIM membership: one `MembershipHost` for the node's life,
    /// receiving the membership messages from the transport and its timer as a broadcast of
    /// `MembershipEvent.timer` (see `NodeFeature`'s produce), so the timer's sends go out on the
    /// store's executor, where the live transport's sockets are. Its status
    /// reports come back as `memberChanged` actions, which the peers' channels follow. Cancelling
    /// it announces the node's leave.
    static func swimMembership(_ plan: MembershipPlan, _ env: NodeEnvironment, id: String) -> Channel<NodeAction> {
        Channel(
            id: NodeFeature.membershipID,
            receiving: { dispatch in
                let transport = env.transport
                guard let host = MembershipHost(plan, id: id, env: env, dispatch: dispatch) else {
                    env.log.error(
                        "membership_refused", ["address": plan.address.text, "message": "id or address over the membership's bounds"])
                    return ChannelHandler(receive: { (_: MembershipEvent) in }, cancel: {})
                }
                // Messages go to the machine straight from the transport (the live socket's reader
                // runs on the reactor, the store's executor): a store cycle per message would be
                // most of the membership's idle cost. The host is thread-safe and its outputs are
                // sends on the same transport and dispatched status reports.
                transport.membershipReceive { bytes, from in host.handle(.message(bytes, from: from)) }
                host.start(members: plan.members, seeds: plan.seeds)
                // A node stops (SIGTERM, or its store is released) by leaving: peers hear `left` at
                // once; the socket's linger gives those sends time to go out.
                return ChannelHandler(
                    receive: { (event: MembershipEvent) in host.handle(event) },
                    cancel: {
                        host.leave()
                        transport.membershipStop()
                        host.stop()
                    })
            })
    }
}
