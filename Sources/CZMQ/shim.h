// libzmq's public header (Debian package libzmq3-dev).
// No pkgConfig on purpose: libzmq.pc pulls krb5 include flags that SwiftPM warns about.
#include <zmq.h>
