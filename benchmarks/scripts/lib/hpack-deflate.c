// What libnghttp2 spends encoding one APNs request's header block, with and without the
// `authorization` field. libnghttp2 never indexes `authorization` (whatever the caller's flags),
// so the same ~200-byte provider token is Huffman-coded into every request; this measures what
// that costs against the rest of the block. The fields are the ones Herald sends, each request
// with its own device token, apns-id and expiry. Timed in the thread's CPU time; the two kinds
// alternate, three rounds.
//
//   cc -O2 benchmarks/scripts/lib/hpack-deflate.c -lnghttp2 -o /tmp/hpack-deflate && /tmp/hpack-deflate
#include <nghttp2/nghttp2.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

#define FIELD(name, value, flags) { (uint8_t *)(name), (uint8_t *)(value), strlen(name), strlen(value), (flags) }

static void run(int withAuthorization, const char *token) {
    const int requests = 200000;
    nghttp2_hd_deflater *deflater;
    if (nghttp2_hd_deflate_new(&deflater, 4096) != 0) return;
    uint8_t out[4096];
    char path[96], id[48], expiry[24];
    size_t bytes = 0;
    double start = now();
    for (int i = 0; i < requests; i++) {
        snprintf(path, sizeof path, "/3/device/%032x%032x", (unsigned)i * 2654435761u, (unsigned)i);
        snprintf(id, sizeof id, "%08x-1234-4abc-8def-%012x", (unsigned)i, (unsigned)i * 7u);
        snprintf(expiry, sizeof expiry, "%d", 1795816649 + i / 1000);
        nghttp2_nv fields[] = {
            FIELD(":method", "POST", 0), FIELD(":scheme", "https", 0),
            FIELD(":path", path, NGHTTP2_NV_FLAG_NO_INDEX), FIELD(":authority", "api.push.apple.com", 0),
            FIELD("apns-push-type", "alert", 0), FIELD("apns-topic", "im.herald.bench", 0),
            FIELD("apns-id", id, NGHTTP2_NV_FLAG_NO_INDEX), FIELD("apns-priority", "10", 0),
            FIELD("apns-expiration", expiry, NGHTTP2_NV_FLAG_NO_INDEX), FIELD("content-type", "application/json", 0),
            FIELD("content-length", "42", NGHTTP2_NV_FLAG_NO_INDEX), FIELD("authorization", token, 0),
        };
        size_t count = sizeof fields / sizeof fields[0] - (withAuthorization ? 0 : 1);
        ssize_t written = nghttp2_hd_deflate_hd(deflater, out, sizeof out, fields, count);
        if (written < 0) {
            fprintf(stderr, "deflate failed: %s\n", nghttp2_strerror((int)written));
            break;
        }
        bytes += (size_t)written;
    }
    double elapsed = now() - start;
    printf("%-22s %.3f µs a header block, %.1f bytes\n", withAuthorization ? "with authorization:" : "without authorization:",
           elapsed / requests * 1e6, (double)bytes / requests);
    nghttp2_hd_deflate_del(deflater);
}

int main(void) {
    // An ES256 provider token's shape: header and claims in base64url, a 64-byte signature.
    char token[320] = "bearer eyJhbGciOiJFUzI1NiIsImtpZCI6IkFCQzEyM0RFRkcifQ.eyJpc3MiOiJERUYxMjNHSElKIiwiaWF0IjoxNzk1ODE2NjQ5fQ.";
    const char *alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    size_t length = strlen(token);
    for (int i = 0; i < 86; i++) token[length + i] = alphabet[(i * 37 + 11) % 64];
    token[length + 86] = 0;
    for (int round = 0; round < 3; round++) {
        run(1, token);
        run(0, token);
    }
    return 0;
}
