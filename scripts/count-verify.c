/* LD_PRELOAD shim for scripts/count-trust-evaluations: counts the calls a program makes to
 * OpenSSL's X509_verify_cert, split by caller: libssl's own (the handshake's verification,
 * made whatever atsprobe does with it) and every other (atsprobe's trust evaluation: one per
 * evaluation, more when it fetches a missing issuer or compares the other system store). At
 * exit it writes "evaluator N\nlibssl M\n" to the file named by ATSPROBE_COUNT_VERIFY_FILE.
 * It only counts and forwards. It works on any build of atsprobe, so one measurement covers a
 * commit from before the TrustEvaluationCache and one after.
 * Build: cc -shared -fPIC -O2 -o count-verify.so count-verify.c -ldl */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*verify_fn)(void *);
static atomic_long evaluator_calls, libssl_calls;

int X509_verify_cert(void *context) {
    static verify_fn real;
    if (!real) real = (verify_fn)dlsym(RTLD_NEXT, "X509_verify_cert");
    Dl_info info;
    if (dladdr(__builtin_return_address(0), &info) && info.dli_fname && strstr(info.dli_fname, "libssl")) {
        atomic_fetch_add(&libssl_calls, 1);
    } else {
        atomic_fetch_add(&evaluator_calls, 1);
    }
    return real ? real(context) : -1;
}

__attribute__((destructor)) static void report(void) {
    const char *path = getenv("ATSPROBE_COUNT_VERIFY_FILE");
    if (!path) return;
    FILE *out = fopen(path, "w");
    if (!out) return;
    fprintf(out, "evaluator %ld\nlibssl %ld\n", atomic_load(&evaluator_calls), atomic_load(&libssl_calls));
    fclose(out);
}
