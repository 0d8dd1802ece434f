/// The Z85 text of a CURVE key as files carry it: 40 characters of the Z85 alphabet.
///
/// RexControl checks the form only (it has no libzmq); the ZMQ layer decodes the bytes.
public enum CurveKeyText {
    /// The length of a key's Z85 text.
    public static let length = 40
    private static let alphabet = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#".utf8)

    /// Whether `text` has the form of a Z85 CURVE key.
    public static func isValid(_ text: String) -> Bool {
        text.utf8.count == length && text.utf8.allSatisfy(alphabet.contains)
    }

    /// A short form for messages: the first 8 characters and an ellipsis (enough to tell keys
    /// apart, and what an operator compares with `rexctl keygen`'s output).
    public static func short(_ text: String) -> String {
        String(text.prefix(8)) + "…"
    }
}
