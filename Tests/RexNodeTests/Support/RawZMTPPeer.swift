import Foundation
import RexCluster
import RexControl
import RexFeeds

#if canImport(Glibc)
import Glibc
#endif

/// A peer that speaks ZMTP 3.0 over a plain TCP socket, so a test can send what no libzmq socket
/// would: a frame of any announced size, regardless of what the other side allows.
final class RawZMTPPeer: @unchecked Sendable {
    // @unchecked Sendable: the descriptor is used by one test, from one thread at a time.
    private let descriptor: Int32

    /// Connects to `endpoint` (`tcp://127.0.0.1:PORT`) and completes the NULL handshake as a
    /// socket of type `socketType` (e.g. "SUB").
    init(endpoint: String, socketType: String) throws {
        guard let colon = endpoint.lastIndex(of: ":"), let port = UInt16(endpoint[endpoint.index(after: colon)...]) else {
            throw RawZMTPError("bad endpoint \(endpoint)")
        }
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw RawZMTPError("socket failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(descriptor)
            throw RawZMTPError("connect failed")
        }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        // Greeting: signature, version 3.0, mechanism NULL, as-server 0, filler.
        var greeting: [UInt8] = [0xFF, 0, 0, 0, 0, 0, 0, 0, 1, 0x7F, 3, 0]
        greeting += Array("NULL".utf8) + [UInt8](repeating: 0, count: 16) + [0] + [UInt8](repeating: 0, count: 31)
        try write(greeting)
        _ = try read(64)
        // READY with Socket-Type.
        var ready: [UInt8] = [5] + Array("READY".utf8)
        ready += [UInt8(11)] + Array("Socket-Type".utf8)
        ready += [0, 0, 0, UInt8(socketType.utf8.count)] + Array(socketType.utf8)
        try write([0x04, UInt8(ready.count)] + ready)
    }

    /// Sends the header of a one-frame message announcing `size` bytes, then `body` (which may
    /// be much shorter: the receiver should refuse the size before reading any of it).
    func sendFrame(announcing size: UInt64, body: [UInt8]) throws {
        var header: [UInt8] = [0x02]  // long frame, last
        for shift in stride(from: 56, through: 0, by: -8) { header.append(UInt8(truncatingIfNeeded: size >> UInt64(shift))) }
        try write(header + body)
    }

    /// Whether the other side closed the connection within `timeout` seconds.
    func isClosedByPeer() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<100 {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count == 0 { return true }
            if count < 0 { return errno == ECONNRESET }
        }
        return false
    }

    func close() { Glibc.close(descriptor) }

    private func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { throw RawZMTPError("send failed (errno \(errno))") }
            offset += written
        }
    }

    private func read(_ count: Int) throws -> [UInt8] {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: count)
        while result.count < count {
            let got = recv(descriptor, &buffer, count - result.count, 0)
            guard got > 0 else { throw RawZMTPError("handshake: connection closed") }
            result += buffer[..<got]
        }
        return result
    }
}

struct RawZMTPError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
