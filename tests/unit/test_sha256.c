/* SHA-256 against the FIPS 180-4 examples and sha256sum. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sha256.h"
#include "testutil.h"

static void hex_of(const char *msg, size_t len, char out[65]) {
    Sha256 s;
    sha256_init(&s);
    sha256_update(&s, msg, len);
    sha256_final_hex(&s, out);
}

static void test_vectors(void) {
    char h[65];
    hex_of("", 0, h);
    CU_ASSERT_STRING_EQUAL(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    hex_of("abc", 3, h);
    CU_ASSERT_STRING_EQUAL(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    hex_of(m, strlen(m), h);
    CU_ASSERT_STRING_EQUAL(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    /* a million 'a', fed in uneven pieces */
    Sha256 s;
    sha256_init(&s);
    char block[997];
    memset(block, 'a', sizeof block);
    size_t left = 1000000;
    while (left > 0) {
        size_t n = left < sizeof block ? left : sizeof block;
        sha256_update(&s, block, n);
        left -= n;
    }
    sha256_final_hex(&s, h);
    CU_ASSERT_STRING_EQUAL(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static void test_file(void) {
    char dir[256], path[512], h[65];
    CU_ASSERT_FATAL(tu_tmpdir(dir, sizeof dir) != NULL);
    snprintf(path, sizeof path, "%s/x.txt", dir);
    CU_ASSERT_FATAL(tu_write_file(path, "abc") == 0);
    RkError err;
    CU_ASSERT_EQUAL(sha256_file(path, h, &err), 0);
    CU_ASSERT_STRING_EQUAL(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CU_ASSERT_EQUAL(sha256_file("/nonexistent/file", h, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "/nonexistent/file"));
    remove(path);
    remove(dir);
}

int main(void) {
    CU_TestInfo tests[] = {{"FIPS 180-4 vectors", test_vectors}, {"file hashing", test_file}, CU_TEST_INFO_NULL};
    return tu_run("sha256", tests);
}
