// COpenSSL: OpenSSL 3 for Swift.
// Several OpenSSL entry points are C macros, invisible to Swift; each is wrapped here as a static inline
// function with the same meaning. Nothing else belongs in this file.
#ifndef HTTPWIRE_COPENSSL_SHIM_H
#define HTTPWIRE_COPENSSL_SHIM_H
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

/// SNI: SSL_set_tlsext_host_name is a macro over SSL_ctrl.
static inline int httpwire_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}
/// Minimum protocol version (TLS 1.2 for HTTPWire).
static inline int httpwire_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}
static inline long httpwire_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_mode(ctx, mode);
}
static inline long httpwire_SSL_set_mode(SSL *ssl, long mode) {
    return SSL_set_mode(ssl, mode);
}
static inline int httpwire_SSL_CTX_set1_groups_list(SSL_CTX *ctx, const char *list) {
    return (int)SSL_CTX_set1_groups_list(ctx, list);
}
#endif
