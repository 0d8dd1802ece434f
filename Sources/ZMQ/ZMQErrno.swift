import CZMQ

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Maps raw errno values (POSIX and libzmq's own) to ``ZMQError/Code`` values and symbolic names.
enum ZMQErrno {
    static func code(for errno: Int32, function: String) -> ZMQError.Code {
        switch errno {
        case EAGAIN: return .wouldBlock
        case CZMQ.ETERM: return .contextTerminated
        case EINTR: return .interrupted
        case EADDRINUSE: return .addressInUse
        case EADDRNOTAVAIL: return .addressNotAvailable
        case EPROTONOSUPPORT: return .protocolNotSupported
        case CZMQ.ENOCOMPATPROTO: return .incompatibleProtocol
        case EMFILE: return .tooManySockets
        case CZMQ.EFSM: return .invalidState
        case EHOSTUNREACH: return .hostUnreachable
        case ENOTSUP: return .notSupported
        case ENOTSOCK: return .socketClosed
        case ENOENT, ENODEV: return function == "zmq_bind" || function == "zmq_connect" ? .invalidEndpoint : .other
        case EINVAL:
            switch function {
            case "zmq_bind", "zmq_connect", "zmq_unbind", "zmq_disconnect": return .invalidEndpoint
            default: return .invalidArgument
            }
        default: return .other
        }
    }

    /// The symbolic name of an errno value, e.g. `"EADDRINUSE"`, or nil when unknown.
    static func name(_ errno: Int32) -> String? {
        switch errno {
        case 0: return nil
        case EAGAIN: return "EAGAIN"
        case EINTR: return "EINTR"
        case EINVAL: return "EINVAL"
        case ENOENT: return "ENOENT"
        case ENODEV: return "ENODEV"
        case EMFILE: return "EMFILE"
        case EFAULT: return "EFAULT"
        case ENOMEM: return "ENOMEM"
        case EADDRINUSE: return "EADDRINUSE"
        case EADDRNOTAVAIL: return "EADDRNOTAVAIL"
        case EPROTONOSUPPORT: return "EPROTONOSUPPORT"
        case ENOTSUP: return "ENOTSUP"
        case ENOTSOCK: return "ENOTSOCK"
        case EHOSTUNREACH: return "EHOSTUNREACH"
        case ECONNREFUSED: return "ECONNREFUSED"
        case CZMQ.EFSM: return "EFSM"
        case CZMQ.ENOCOMPATPROTO: return "ENOCOMPATPROTO"
        case CZMQ.ETERM: return "ETERM"
        case CZMQ.EMTHREAD: return "EMTHREAD"
        default: return "errno \(errno)"
        }
    }
}
