/*
 * test_common.c - core/common.h's helpers: rk_grow (the arrays that double),
 * rk_quote_text (user text in one-line errors), rk_check_magic, rk_json_escape.
 */
#include <CUnit/CUnit.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/common.h"
#include "testutil.h"

/* Capacity doubles from 16 until it holds `need`; contents survive; a
 * size that would overflow fails and changes nothing. */
static void test_grow(void) {
    int *a = NULL;
    size_t cap = 0;
    CU_ASSERT_EQUAL(rk_grow((void **)&a, &cap, 0, sizeof *a), 0);
    CU_ASSERT_PTR_NULL(a);
    CU_ASSERT_EQUAL(rk_grow((void **)&a, &cap, 5, sizeof *a), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_EQUAL(cap, 16);
    for (int i = 0; i < 16; i++) a[i] = i * 3;
    CU_ASSERT_EQUAL(rk_grow((void **)&a, &cap, 16, sizeof *a), 0); /* fits: no change */
    CU_ASSERT_EQUAL(cap, 16);
    CU_ASSERT_EQUAL(rk_grow((void **)&a, &cap, 100, sizeof *a), 0);
    CU_ASSERT_EQUAL(cap, 128);
    int same = 1;
    for (int i = 0; i < 16; i++) same &= a[i] == i * 3;
    CU_ASSERT(same);
    int *before = a;
    CU_ASSERT_EQUAL(rk_grow((void **)&a, &cap, SIZE_MAX / 2, sizeof *a), -1); /* bytes overflow */
    CU_ASSERT_EQUAL(rk_grow((void **)&a, &cap, SIZE_MAX, 1), -1);             /* elements overflow */
    CU_ASSERT_EQUAL(rk_grow((void **)&a, &cap, 1000, 0), -1); /* no element size */
    CU_ASSERT_PTR_EQUAL(a, before);
    CU_ASSERT_EQUAL(cap, 128);
    CU_ASSERT_EQUAL(a[15], 45);
    free(a);
    /* from a capacity that is not a power of two */
    char *b = malloc(10);
    size_t bcap = 10;
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    memcpy(b, "abcdefghij", 10);
    CU_ASSERT_EQUAL(rk_grow((void **)&b, &bcap, 11, 1), 0);
    CU_ASSERT_EQUAL(bcap, 20);
    CU_ASSERT_EQUAL(memcmp(b, "abcdefghij", 10), 0);
    free(b);
}

static void test_quote(void) {
    char buf[16];
    rk_quote_text(buf, sizeof buf, "a\nb", 3);
    CU_ASSERT_PTR_NULL(strchr(buf, '\n'));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\\x0A"));
    rk_quote_text(buf, sizeof buf, "abcdefghijklmnopqrstuvwxyz", 26);
    CU_ASSERT(strlen(buf) < sizeof buf);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "..."));
}

static void test_json_escape(void) {
    char buf[64];
    CU_ASSERT_STRING_EQUAL(rk_json_escape("run/a", buf, sizeof buf), "run/a");
    CU_ASSERT_STRING_EQUAL(rk_json_escape("a\"b\\c\n", buf, sizeof buf), "a\\\"b\\\\c\\u000a");
    /* cut short: never inside an escape ... */
    char small[4];
    CU_ASSERT_STRING_EQUAL(rk_json_escape("ab\"c", small, sizeof small), "ab");
    /* ... nor inside a UTF-8 character (U+00E9 is 2 bytes) */
    CU_ASSERT_STRING_EQUAL(rk_json_escape("ab\xc3\xa9", small, sizeof small), "ab");
    CU_ASSERT_STRING_EQUAL(rk_json_escape("a\xc3\xa9", small, sizeof small), "a\xc3\xa9");
    /* a stray byte is escaped, and does not swallow a quote or a newline after it */
    CU_ASSERT_STRING_EQUAL(rk_json_escape("a\xc3\"b", buf, sizeof buf), "a\\u00c3\\\"b");
    CU_ASSERT_STRING_EQUAL(rk_json_escape("a\xe9\n", buf, sizeof buf), "a\\u00e9\\u000a");
    CU_ASSERT_STRING_EQUAL(rk_json_escape("\xff\x80\xc0\xaf", buf, sizeof buf), "\\u00ff\\u0080\\u00c0\\u00af");
    /* a 3-byte character cut short by the end of the string: two stray bytes */
    CU_ASSERT_STRING_EQUAL(rk_json_escape("\xe2\x82", buf, sizeof buf), "\\u00e2\\u0082");
    CU_ASSERT_STRING_EQUAL(rk_json_escape("\xe2\x82\xac\xf0\x9f\x98\x80", buf, sizeof buf), "\xe2\x82\xac\xf0\x9f\x98\x80");
    char one[1];
    CU_ASSERT_STRING_EQUAL(rk_json_escape("abc", one, sizeof one), "");
}

static void test_magic(void) {
    const uint8_t good[8] = {'K', 'L', 'V', '2', 0, 0, 0, 0};
    RkError err;
    CU_ASSERT_EQUAL(rk_check_magic(good, 8, 8, "KLV2", "a .klv2 file", "x.klv2", &err), 0);
    CU_ASSERT_EQUAL(rk_check_magic(good, 4, 8, "KLV2", "a .klv2 file", "x.klv2", &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "x.klv2"));
    CU_ASSERT_EQUAL(rk_check_magic(good, 8, 8, "SPV1", "an .spv file", "y.spv", &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "y.spv"));
}

int main(void) {
    CU_TestInfo tests[] = {
        {"rk_grow: doubling, contents kept, overflow refused", test_grow},
        {"rk_quote_text: control characters escaped, long text cut", test_quote},
        {"rk_check_magic: short files and wrong magic named", test_magic},
        {"rk_json_escape: quotes, backslashes, control characters; cut whole", test_json_escape},
        CU_TEST_INFO_NULL,
    };
    return tu_run("common", tests);
}
