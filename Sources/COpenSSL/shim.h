// COpenSSL: OpenSSL 3 for Swift.
// Several OpenSSL entry points are C macros, invisible to Swift; each is wrapped here as a static inline
// function with the same meaning. Besides those wrappers it holds one C callback, the server's ALPN choice,
// which OpenSSL calls with C pointers that are simpler to handle in C. Nothing else belongs in this file.
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
/// Adds an intermediate certificate to the chain a context presents (a macro over SSL_CTX_ctrl).
static inline int httpwire_SSL_CTX_add1_chain_cert(SSL_CTX *ctx, X509 *certificate) {
    return (int)SSL_CTX_add1_chain_cert(ctx, certificate);
}
/// Options that are macros built from SSL_OP_BIT, exported as values.
static const uint64_t httpwire_SSL_OP_IGNORE_UNEXPECTED_EOF = SSL_OP_IGNORE_UNEXPECTED_EOF;
static const uint64_t httpwire_SSL_OP_NO_RENEGOTIATION = SSL_OP_NO_RENEGOTIATION;

/// Server side of ALPN (RFC 7301 §3.2): choose "http/1.1" when the client offers it; otherwise continue
/// without ALPN (SSL_TLSEXT_ERR_NOACK) rather than failing, as an HTTP/1.1-only server may.
static int httpwire_alpn_select_http11(SSL *ssl, const unsigned char **out, unsigned char *outlen,
                                       const unsigned char *in, unsigned int inlen, void *arg) {
    static const unsigned char http11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
    (void)ssl;
    (void)arg;
    unsigned char *selected = NULL;
    if (SSL_select_next_proto(&selected, outlen, http11, sizeof http11, in, inlen) != OPENSSL_NPN_NEGOTIATED) {
        return SSL_TLSEXT_ERR_NOACK;
    }
    *out = selected;
    return SSL_TLSEXT_ERR_OK;
}
/// Installs `httpwire_alpn_select_http11` on a server context.
static inline void httpwire_SSL_CTX_select_alpn_http11(SSL_CTX *ctx) {
    SSL_CTX_set_alpn_select_cb(ctx, httpwire_alpn_select_http11, NULL);
}
#endif
