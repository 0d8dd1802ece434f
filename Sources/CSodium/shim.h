// libsodium's public header (Debian package libsodium-dev): only its Ed25519 signatures, secure
// memory and random numbers are used (Sources/Sodium).
#include <sodium.h>
