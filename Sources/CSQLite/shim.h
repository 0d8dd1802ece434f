// SQLite's public header (Debian package libsqlite3-dev).
#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast of -1 to a function pointer, a macro Swift cannot import: binding
// with it makes SQLite copy the bytes before the call returns.
static inline void (*csqlite_transient(void))(void *) { return SQLITE_TRANSIENT; }
