#include "CATSProbeShims.h"

long CATSProbeShims_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) { return SSL_CTX_set_min_proto_version(ctx, version); }
long CATSProbeShims_SSL_CTX_set_max_proto_version(SSL_CTX *ctx, int version) { return SSL_CTX_set_max_proto_version(ctx, version); }
long CATSProbeShims_SSL_set_min_proto_version(SSL *ssl, int version) { return SSL_set_min_proto_version(ssl, version); }
long CATSProbeShims_SSL_set_max_proto_version(SSL *ssl, int version) { return SSL_set_max_proto_version(ssl, version); }
long CATSProbeShims_SSL_set_tlsext_host_name(SSL *ssl, const char *name) { return SSL_set_tlsext_host_name(ssl, name); }
long CATSProbeShims_SSL_get_peer_tmp_key(SSL *ssl, EVP_PKEY **key) { return SSL_get_peer_tmp_key(ssl, key); }
long CATSProbeShims_SSL_set_tlsext_status_type(SSL *ssl, int type) { return SSL_set_tlsext_status_type(ssl, type); }
long CATSProbeShims_SSL_get_tlsext_status_ocsp_resp(SSL *ssl, const unsigned char **resp) { return SSL_get_tlsext_status_ocsp_resp(ssl, resp); }
long CATSProbeShims_SSL_set_tlsext_status_ocsp_resp(SSL *ssl, unsigned char *resp, long len) { return SSL_set_tlsext_status_ocsp_resp(ssl, resp, len); }
long CATSProbeShims_SSL_CTX_set_tlsext_status_cb(SSL_CTX *ctx, int (*cb)(SSL *, void *)) { return SSL_CTX_set_tlsext_status_cb(ctx, cb); }
long CATSProbeShims_SSL_CTX_set_tlsext_status_arg(SSL_CTX *ctx, void *arg) { return SSL_CTX_set_tlsext_status_arg(ctx, arg); }
long CATSProbeShims_SSL_CTX_set_tlsext_servername_callback(SSL_CTX *ctx, int (*cb)(SSL *, int *, void *)) { return SSL_CTX_set_tlsext_servername_callback(ctx, cb); }
long CATSProbeShims_SSL_CTX_set_dh_auto(SSL_CTX *ctx, long onoff) { return SSL_CTX_set_dh_auto(ctx, onoff); }
long CATSProbeShims_SSL_CTX_set1_groups_list(SSL_CTX *ctx, const char *list) { return SSL_CTX_set1_groups_list(ctx, list); }
long CATSProbeShims_SSL_set1_groups_list(SSL *ssl, const char *list) { return SSL_set1_groups_list(ssl, list); }
long CATSProbeShims_SSL_CTX_set1_sigalgs_list(SSL_CTX *ctx, const char *list) { return SSL_CTX_set1_sigalgs_list(ctx, list); }
long CATSProbeShims_SSL_CTX_add_extra_chain_cert(SSL_CTX *ctx, X509 *cert) { return SSL_CTX_add_extra_chain_cert(ctx, cert); }
long CATSProbeShims_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_mode(ctx, mode); }
long CATSProbeShims_SSL_get_tmp_key(SSL *ssl, EVP_PKEY **key) { return SSL_get_tmp_key(ssl, key); }
int CATSProbeShims_SSL_get_negotiated_group(SSL *ssl) { return SSL_get_negotiated_group(ssl); }

int CATSProbeShims_sk_X509_num(const STACK_OF(X509) *stack) { return sk_X509_num(stack); }
X509 *CATSProbeShims_sk_X509_value(const STACK_OF(X509) *stack, int index) { return sk_X509_value(stack, index); }
STACK_OF(X509) *CATSProbeShims_sk_X509_new_null(void) { return sk_X509_new_null(); }
int CATSProbeShims_sk_X509_push(STACK_OF(X509) *stack, X509 *cert) { return sk_X509_push(stack, cert); }
void CATSProbeShims_sk_X509_free(STACK_OF(X509) *stack) { sk_X509_free(stack); }
void CATSProbeShims_sk_X509_pop_free(STACK_OF(X509) *stack) { sk_X509_pop_free(stack, X509_free); }
int CATSProbeShims_sk_GENERAL_NAME_num(const STACK_OF(GENERAL_NAME) *stack) { return sk_GENERAL_NAME_num(stack); }
GENERAL_NAME *CATSProbeShims_sk_GENERAL_NAME_value(const STACK_OF(GENERAL_NAME) *stack, int index) { return sk_GENERAL_NAME_value(stack, index); }
void CATSProbeShims_GENERAL_NAMES_free(STACK_OF(GENERAL_NAME) *stack) { GENERAL_NAMES_free(stack); }
int CATSProbeShims_sk_SCT_num(const STACK_OF(SCT) *stack) { return sk_SCT_num(stack); }
SCT *CATSProbeShims_sk_SCT_value(const STACK_OF(SCT) *stack, int index) { return sk_SCT_value(stack, index); }
void CATSProbeShims_SCT_LIST_free_all(STACK_OF(SCT) *stack) { SCT_LIST_free(stack); }
int CATSProbeShims_sk_ASN1_OBJECT_num(const STACK_OF(ASN1_OBJECT) *stack) { return sk_ASN1_OBJECT_num(stack); }
ASN1_OBJECT *CATSProbeShims_sk_ASN1_OBJECT_value(const STACK_OF(ASN1_OBJECT) *stack, int index) { return sk_ASN1_OBJECT_value(stack, index); }
void CATSProbeShims_EXTENDED_KEY_USAGE_free_all(STACK_OF(ASN1_OBJECT) *stack) { EXTENDED_KEY_USAGE_free(stack); }
int CATSProbeShims_sk_SSL_CIPHER_num(const STACK_OF(SSL_CIPHER) *stack) { return sk_SSL_CIPHER_num(stack); }
const SSL_CIPHER *CATSProbeShims_sk_SSL_CIPHER_value(const STACK_OF(SSL_CIPHER) *stack, int index) { return sk_SSL_CIPHER_value(stack, index); }
void CATSProbeShims_OPENSSL_free(void *pointer) { OPENSSL_free(pointer); }
int CATSProbeShims_ERR_GET_LIB(unsigned long error) { return ERR_GET_LIB(error); }
int CATSProbeShims_ERR_GET_REASON(unsigned long error) { return ERR_GET_REASON(error); }
int CATSProbeShims_BIO_get_mem_data(BIO *bio, char **data) { return (int)BIO_get_mem_data(bio, data); }

// ATSProbe client engine.
unsigned long CATSProbeShims_XN_FLAG_RFC2253(void) { return XN_FLAG_RFC2253; }
uint64_t CATSProbeShims_SSL_OP_LEGACY_SERVER_CONNECT(void) { return SSL_OP_LEGACY_SERVER_CONNECT; }
uint64_t CATSProbeShims_SSL_OP_IGNORE_UNEXPECTED_EOF(void) { return SSL_OP_IGNORE_UNEXPECTED_EOF; }
long CATSProbeShims_BIO_set_mem_eof_return(BIO *bio, long value) { return BIO_set_mem_eof_return(bio, value); }
int CATSProbeShims_X509_STORE_CTX_set_app_data(X509_STORE_CTX *ctx, void *data) { return X509_STORE_CTX_set_app_data(ctx, data); }
void *CATSProbeShims_X509_STORE_CTX_get_app_data(X509_STORE_CTX *ctx) { return X509_STORE_CTX_get_app_data(ctx); }

// Apple's path building: caIssuers (AIA) and certs-only PKCS#7.
int CATSProbeShims_sk_ACCESS_DESCRIPTION_num(const AUTHORITY_INFO_ACCESS *stack) { return sk_ACCESS_DESCRIPTION_num(stack); }
ACCESS_DESCRIPTION *CATSProbeShims_sk_ACCESS_DESCRIPTION_value(const AUTHORITY_INFO_ACCESS *stack, int index) { return sk_ACCESS_DESCRIPTION_value(stack, index); }
STACK_OF(X509) *CATSProbeShims_PKCS7_signed_certificates(PKCS7 *p7) { return PKCS7_type_is_signed(p7) && p7->d.sign ? p7->d.sign->cert : NULL; }
long CATSProbeShims_SSL_get_peer_signature_nid(SSL *ssl, int *nid) { return SSL_get_peer_signature_nid(ssl, nid); }

/* A byte pipe between an SSL and the socket code: what the peer sent, waiting for OpenSSL to read
 * it, and what OpenSSL wrote, waiting to be sent. A memory BIO does the same, but zeroes every
 * byte it is given before copying it in (BUF_MEM_grow_clean), and its writes were copied again
 * into an array to be sent; here bytes are copied once each way. Each buffer is freed when it has
 * been drained, so a session waiting for its peer holds nothing. */
typedef struct {
    unsigned char *in;
    size_t in_len, in_off;
    unsigned char *out;
    size_t out_len, out_off;
    int eof;
} atsprobe_pipe;

static void pipe_drop_in(atsprobe_pipe *p) { OPENSSL_free(p->in); p->in = NULL; p->in_len = p->in_off = 0; }
static void pipe_drop_out(atsprobe_pipe *p) { OPENSSL_free(p->out); p->out = NULL; p->out_len = p->out_off = 0; }

static int pipe_append(unsigned char **buffer, size_t *length, size_t *offset, const void *bytes, size_t count) {
    size_t kept = *length - *offset;
    unsigned char *grown = OPENSSL_malloc(kept + count > 0 ? kept + count : 1);
    if (grown == NULL) return 0;
    if (kept > 0) memcpy(grown, *buffer + *offset, kept);
    memcpy(grown + kept, bytes, count);
    OPENSSL_free(*buffer);
    *buffer = grown;
    *length = kept + count;
    *offset = 0;
    return 1;
}

static int pipe_write(BIO *bio, const char *bytes, size_t count, size_t *written) {
    atsprobe_pipe *p = BIO_get_data(bio);
    BIO_clear_retry_flags(bio);
    if (p == NULL || !pipe_append(&p->out, &p->out_len, &p->out_off, bytes, count)) return 0;
    *written = count;
    return 1;
}

static int pipe_read(BIO *bio, char *bytes, size_t count, size_t *read) {
    atsprobe_pipe *p = BIO_get_data(bio);
    BIO_clear_retry_flags(bio);
    if (p == NULL) return 0;
    size_t available = p->in_len - p->in_off;
    if (available == 0) {
        if (!p->eof) BIO_set_retry_read(bio);  /* empty: try again once the socket has more */
        *read = 0;
        return 0;
    }
    size_t n = count < available ? count : available;
    memcpy(bytes, p->in + p->in_off, n);
    p->in_off += n;
    if (p->in_off == p->in_len) pipe_drop_in(p);
    *read = n;
    return 1;
}

static long pipe_ctrl(BIO *bio, int command, long number, void *pointer) {
    (void)number; (void)pointer;
    atsprobe_pipe *p = BIO_get_data(bio);
    if (p == NULL) return 0;
    switch (command) {
    case BIO_CTRL_FLUSH: return 1;
    case BIO_CTRL_PENDING: return (long)(p->in_len - p->in_off);
    case BIO_CTRL_WPENDING: return (long)(p->out_len - p->out_off);
    case BIO_CTRL_EOF: return p->eof && p->in_len == p->in_off;
    default: return 0;
    }
}

static int pipe_create(BIO *bio) {
    atsprobe_pipe *p = OPENSSL_zalloc(sizeof(atsprobe_pipe));
    if (p == NULL) return 0;
    BIO_set_data(bio, p);
    BIO_set_init(bio, 1);
    return 1;
}

static int pipe_destroy(BIO *bio) {
    atsprobe_pipe *p = BIO_get_data(bio);
    if (p != NULL) {
        pipe_drop_in(p);
        pipe_drop_out(p);
        OPENSSL_free(p);
    }
    BIO_set_data(bio, NULL);
    return 1;
}

static BIO_METHOD *pipe_method = NULL;
static CRYPTO_ONCE pipe_once = CRYPTO_ONCE_STATIC_INIT;

static void pipe_make_method(void) {
    BIO_METHOD *method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "atsprobe pipe");
    if (method == NULL) return;
    if (!BIO_meth_set_write_ex(method, pipe_write) || !BIO_meth_set_read_ex(method, pipe_read)
        || !BIO_meth_set_ctrl(method, pipe_ctrl) || !BIO_meth_set_create(method, pipe_create)
        || !BIO_meth_set_destroy(method, pipe_destroy)) {
        BIO_meth_free(method);
        return;
    }
    pipe_method = method;
}

BIO *CATSProbeShims_pipe_new(void) {
    if (!CRYPTO_THREAD_run_once(&pipe_once, pipe_make_method) || pipe_method == NULL) return NULL;
    return BIO_new(pipe_method);
}

int CATSProbeShims_pipe_feed(BIO *bio, const void *bytes, size_t count) {
    atsprobe_pipe *p = BIO_get_data(bio);
    if (p == NULL) return 0;
    if (count == 0) return 1;
    return pipe_append(&p->in, &p->in_len, &p->in_off, bytes, count);
}

void CATSProbeShims_pipe_set_eof(BIO *bio) {
    atsprobe_pipe *p = BIO_get_data(bio);
    if (p != NULL) p->eof = 1;
}

const unsigned char *CATSProbeShims_pipe_output(BIO *bio, size_t *count) {
    atsprobe_pipe *p = BIO_get_data(bio);
    if (p == NULL || p->out_len == p->out_off) { *count = 0; return NULL; }
    *count = p->out_len - p->out_off;
    return p->out + p->out_off;
}

void CATSProbeShims_pipe_consume_output(BIO *bio, size_t count) {
    atsprobe_pipe *p = BIO_get_data(bio);
    if (p == NULL) return;
    size_t available = p->out_len - p->out_off;
    p->out_off += count < available ? count : available;
    if (p->out_off == p->out_len) pipe_drop_out(p);
}
