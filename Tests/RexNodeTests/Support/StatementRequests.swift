import Foundation
import NodeTestSupport
import RexAuthority
import RexControl
import ZMQ

@testable import RexNode

/// A `statement` request carrying `signed` (or any bytes, as base64).
func statementRequest(_ bytes: [UInt8], id: String = "st") -> String {
    #"{"v": 1, "id": "\#(id)", "op": "statement", "statement": "\#(Data(bytes).base64EncodedString())"}"#
}

/// Gives `node` a statement over CURVE as operator `client`; the reply (nil: none).
func giveStatement(
    _ signed: SignedStatement, to node: Node, serverKey: ZMQCurveKey, as client: ZMQCurveKeyPair
) async throws -> [String: Any]? {
    try await secureControlRequest(node.controlEndpoint, serverKey: serverKey, client: client, statementRequest(signed.encoded))
}

/// The reply's error code, if it is an error.
func errorCode(of reply: [String: Any]?) -> String? {
    (reply?["error"] as? [String: Any])?["code"] as? String
}

/// The reply's result document.
func result(of reply: [String: Any]?) -> [String: Any]? {
    reply?["result"] as? [String: Any]
}

extension AuthoritySigningKey {
    /// `claim` at `serial`, signed.
    func signed(_ serial: UInt64, _ claim: Statement.Claim) throws -> SignedStatement {
        sign(try Statement(serial: serial, claim: claim))
    }
}

extension ZMQCurveKeyPair {
    /// The public key as the authority names it.
    var curveKey: CurvePublicKey { CurvePublicKey(bytes: publicKey.bytes)! }
}

extension Node {
    /// What the node's authority counted (nil: it has none).
    var authorityMetrics: MetricsDocument.Authority? { ioCounters().authority }
}
