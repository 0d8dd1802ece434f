import RexControl
import SwiftRex

extension NodeChannels {
    /// The SWIM membership (instead of heartbeats): one `MembershipHost` for the node's life,
    /// receiving its timer and the membership messages as broadcasts of `MembershipEvent` (see
    /// `NodeFeature`'s produce), so the machine always runs on the store's executor. Its status
    /// reports come back as `memberChanged` actions, which the peers' channels follow. Cancelling
    /// it announces the node's leave.
    static func swimMembership(_ plan: MembershipPlan, _ env: NodeEnvironment, id: String) -> Channel<NodeAction> {
        Channel(id: NodeFeature.membershipID, receiving: { dispatch in
            let transport = env.transport
            guard let host = MembershipHost(plan, id: id, env: env, dispatch: dispatch) else {
                env.log.error("membership_refused", ["address": plan.address.text, "message": "id or address over the membership's bounds"])
                return ChannelHandler(receive: { (_: MembershipEvent) in }, cancel: {})
            }
            transport.membershipReceive { bytes, from in dispatch(.membershipReceived(bytes: bytes, from: from)) }
            host.start(members: plan.members, seeds: plan.seeds)
            // A node stops (SIGTERM, or its store is released) by leaving: peers hear `left` at
            // once; the socket's linger gives those sends time to go out.
            return ChannelHandler(receive: { (event: MembershipEvent) in host.handle(event) }, cancel: {
                host.leave()
                transport.membershipStop()
                host.stop()
            })
        })
    }
}
