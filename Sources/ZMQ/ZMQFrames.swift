/// A borrowed view of the frames of one received multipart message.
///
/// Each element is an `UnsafeRawBufferPointer` straight into libzmq's message buffer (no copy).
/// The view and its buffers are valid **only inside** the closure passed to
/// ``ZMQSocket/receive(_:)``/``ZMQSocket/tryReceive(_:)``; copy what you keep (``bytes(_:)``,
/// ``string(_:)``).
///
/// ```swift
/// try sub.receive { frames in
///     guard frames.count == 2, frames.string(0) == "node/a/state" else { return }
///     handle(frames[1]) // UnsafeRawBufferPointer, valid during this closure
/// }
/// ```
public struct ZMQFrames: RandomAccessCollection {
    @usableFromInline let buffers: UnsafeMutablePointer<UnsafeRawBufferPointer>
    /// The number of frames (at least 1).
    public let count: Int

    @inlinable
    init(buffers: UnsafeMutablePointer<UnsafeRawBufferPointer>, count: Int) {
        self.buffers = buffers
        self.count = count
    }

    /// Always 0.
    @inlinable public var startIndex: Int { 0 }
    /// The number of frames.
    @inlinable public var endIndex: Int { count }

    /// The bytes of frame `index`, valid only while the receive closure runs.
    @inlinable
    public subscript(index: Int) -> UnsafeRawBufferPointer {
        precondition(index >= 0 && index < count, "frame index out of range")
        return buffers[index]
    }

    /// A copy of frame `index` as an array.
    public func bytes(_ index: Int) -> [UInt8] { Array(self[index]) }

    /// Frame `index` decoded as UTF-8 (invalid sequences are repaired).
    public func string(_ index: Int) -> String { String(decoding: self[index], as: UTF8.self) }

    /// Copies of all frames.
    public func allBytes() -> [[UInt8]] { map { Array($0) } }
}

@available(*, unavailable, message: "frames borrow the socket's receive buffers")
extension ZMQFrames: Sendable {}
