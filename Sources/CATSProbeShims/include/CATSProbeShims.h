#ifndef CATSPROBE_SHIMS_H
#define CATSPROBE_SHIMS_H
// One-line wrappers for OpenSSL macros that Swift's importer cannot see. No logic here.
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <openssl/ct.h>
#include <openssl/ocsp.h>
#include <openssl/err.h>
#include <openssl/pkcs7.h>

long CATSProbeShims_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version);
long CATSProbeShims_SSL_CTX_set_max_proto_version(SSL_CTX *ctx, int version);
long CATSProbeShims_SSL_set_min_proto_version(SSL *ssl, int version);
long CATSProbeShims_SSL_set_max_proto_version(SSL *ssl, int version);
long CATSProbeShims_SSL_set_tlsext_host_name(SSL *ssl, const char *name);
long CATSProbeShims_SSL_get_peer_tmp_key(SSL *ssl, EVP_PKEY **key);
long CATSProbeShims_SSL_set_tlsext_status_type(SSL *ssl, int type);
long CATSProbeShims_SSL_get_tlsext_status_ocsp_resp(SSL *ssl, const unsigned char **resp);
long CATSProbeShims_SSL_set_tlsext_status_ocsp_resp(SSL *ssl, unsigned char *resp, long len);
long CATSProbeShims_SSL_CTX_set_tlsext_status_cb(SSL_CTX *ctx, int (*cb)(SSL *, void *));
long CATSProbeShims_SSL_CTX_set_tlsext_status_arg(SSL_CTX *ctx, void *arg);
long CATSProbeShims_SSL_CTX_set_tlsext_servername_callback(SSL_CTX *ctx, int (*cb)(SSL *, int *, void *));
long CATSProbeShims_SSL_CTX_set_dh_auto(SSL_CTX *ctx, long onoff);
long CATSProbeShims_SSL_CTX_set1_groups_list(SSL_CTX *ctx, const char *list);
long CATSProbeShims_SSL_set1_groups_list(SSL *ssl, const char *list);
long CATSProbeShims_SSL_CTX_set1_sigalgs_list(SSL_CTX *ctx, const char *list);
long CATSProbeShims_SSL_CTX_add_extra_chain_cert(SSL_CTX *ctx, X509 *cert);
long CATSProbeShims_SSL_CTX_set_mode(SSL_CTX *ctx, long mode);
long CATSProbeShims_SSL_get_tmp_key(SSL *ssl, EVP_PKEY **key);
int CATSProbeShims_SSL_get_negotiated_group(SSL *ssl);
long CATSProbeShims_SSL_get_peer_signature_nid(SSL *ssl, int *nid);

int CATSProbeShims_sk_X509_num(const STACK_OF(X509) *stack);
X509 *CATSProbeShims_sk_X509_value(const STACK_OF(X509) *stack, int index);
STACK_OF(X509) *CATSProbeShims_sk_X509_new_null(void);
int CATSProbeShims_sk_X509_push(STACK_OF(X509) *stack, X509 *cert);
void CATSProbeShims_sk_X509_free(STACK_OF(X509) *stack);
void CATSProbeShims_sk_X509_pop_free(STACK_OF(X509) *stack);
int CATSProbeShims_sk_GENERAL_NAME_num(const STACK_OF(GENERAL_NAME) *stack);
GENERAL_NAME *CATSProbeShims_sk_GENERAL_NAME_value(const STACK_OF(GENERAL_NAME) *stack, int index);
void CATSProbeShims_GENERAL_NAMES_free(STACK_OF(GENERAL_NAME) *stack);
int CATSProbeShims_sk_SCT_num(const STACK_OF(SCT) *stack);
SCT *CATSProbeShims_sk_SCT_value(const STACK_OF(SCT) *stack, int index);
void CATSProbeShims_SCT_LIST_free_all(STACK_OF(SCT) *stack);
int CATSProbeShims_sk_ASN1_OBJECT_num(const STACK_OF(ASN1_OBJECT) *stack);
ASN1_OBJECT *CATSProbeShims_sk_ASN1_OBJECT_value(const STACK_OF(ASN1_OBJECT) *stack, int index);
void CATSProbeShims_EXTENDED_KEY_USAGE_free_all(STACK_OF(ASN1_OBJECT) *stack);
int CATSProbeShims_sk_SSL_CIPHER_num(const STACK_OF(SSL_CIPHER) *stack);
const SSL_CIPHER *CATSProbeShims_sk_SSL_CIPHER_value(const STACK_OF(SSL_CIPHER) *stack, int index);
void CATSProbeShims_OPENSSL_free(void *pointer);
int CATSProbeShims_ERR_GET_LIB(unsigned long error);
int CATSProbeShims_ERR_GET_REASON(unsigned long error);
int CATSProbeShims_BIO_get_mem_data(BIO *bio, char **data);

// ATSProbe client engine.
unsigned long CATSProbeShims_XN_FLAG_RFC2253(void);
uint64_t CATSProbeShims_SSL_OP_LEGACY_SERVER_CONNECT(void);
uint64_t CATSProbeShims_SSL_OP_IGNORE_UNEXPECTED_EOF(void);
long CATSProbeShims_BIO_set_mem_eof_return(BIO *bio, long value);
int CATSProbeShims_X509_STORE_CTX_set_app_data(X509_STORE_CTX *ctx, void *data);
void *CATSProbeShims_X509_STORE_CTX_get_app_data(X509_STORE_CTX *ctx);

// Apple's path building: caIssuers (AIA) and certs-only PKCS#7.
int CATSProbeShims_sk_ACCESS_DESCRIPTION_num(const AUTHORITY_INFO_ACCESS *stack);
ACCESS_DESCRIPTION *CATSProbeShims_sk_ACCESS_DESCRIPTION_value(const AUTHORITY_INFO_ACCESS *stack, int index);
STACK_OF(X509) *CATSProbeShims_PKCS7_signed_certificates(PKCS7 *p7);

/* A byte pipe BIO between an SSL and the socket code (shims.c): read and write it as one BIO
 * (SSL_set_bio with it twice); feed it what the peer sent, take what OpenSSL wrote. */
BIO *CATSProbeShims_pipe_new(void);
int CATSProbeShims_pipe_feed(BIO *bio, const void *bytes, size_t count);
void CATSProbeShims_pipe_set_eof(BIO *bio);
const unsigned char *CATSProbeShims_pipe_output(BIO *bio, size_t *count);
void CATSProbeShims_pipe_consume_output(BIO *bio, size_t count);

#endif
