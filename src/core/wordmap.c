/*
 * wordmap.c - mapping, checking and reading word maps (wordmap.h; byte
 * layout in docs/wordmap.md); the builder and writer are wordmap_build.c.
 */
#define _GNU_SOURCE /* MAP_POPULATE */
#include "wordmap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "textfile.h"
#include "wordmap_internal.h"

/* The largest image accepted (a SOWPODS map is about 80 MB). */
#define WM_MAX_FILE_BYTES ((uint64_t)1 << 34)

/* ------------------------------------------------------------ hashing */

/* A 64-bit hash of bytes, four independent lanes (about 8 bytes a cycle),
 * for the lexicon's and the body's checksums. Not cryptographic: it tells
 * another lexicon or a damaged file, not a forged one. */
static uint64_t hash_bytes(const uint8_t *p, size_t n, uint64_t seed) {
    const uint64_t P1 = 0x9E3779B185EBCA87ULL, P2 = 0xC2B2AE3D27D4EB4FULL;
    uint64_t lane[4] = {seed + P1, seed ^ P2, seed - P1, rotl64(seed, 17) ^ P1};
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        for (int j = 0; j < 4; j++) {
            uint64_t w;
            memcpy(&w, p + i + 8 * (size_t)j, 8);
            lane[j] = rotl64(lane[j] + w * P2, 31) * P1;
        }
    }
    uint64_t h = rotl64(lane[0], 1) + rotl64(lane[1], 7) + rotl64(lane[2], 12) + rotl64(lane[3], 18);
    for (; i < n; i++) h = rotl64(h ^ (p[i] * P1), 11) * P2;
    return fmix64(h ^ (uint64_t)n);
}

uint64_t wordmap_checksum(const void *body, size_t n) { return hash_bytes(body, n, 0); }

uint64_t wordmap_kwg_hash(const Kwg *kwg) {
    return hash_bytes((const uint8_t *)kwg->nodes, (size_t)kwg->n * 4u, 0x6B7767ULL) ^ kwg->n;
}

/* ------------------------------------------------------------ lookups */

static inline const uint32_t *tab_find(const WmTable *t, WordKey k) {
    uint64_t h = key_hash(k, t->seed);
    uint32_t fp = (uint32_t)(h >> 32) | 1u;
    uint32_t i = (uint32_t)h & t->mask;
    for (uint32_t n = 0; n <= t->mask; n++) {
        const uint32_t *s = t->slots + 2 * (size_t)i;
        if (s[0] == fp) return s;
        if (s[0] == 0) return NULL;
        i = (i + 1) & t->mask;
    }
    return NULL;
}

/* The presence filter's word and bits of a key: one mix of both halves (a
 * collision only makes a false positive, which the table then answers). */
static inline uint64_t present_hash(WordKey k) { return fmix64(k.lo ^ (k.hi * 0x9E3779B97F4A7C15ULL)); }
static inline uint64_t present_bits(uint64_t h) {
    return ((uint64_t)1 << ((h >> 40) & 63u)) | ((uint64_t)1 << ((h >> 46) & 63u)) |
           ((uint64_t)1 << ((h >> 52) & 63u));
}

bool wordmap_may_have_words(const WordMap *wm, WordKey key) {
    if (wm->present == NULL) return true;
    uint64_t h = present_hash(key), bits = present_bits(h);
    return (wm->present[h & wm->present_mask] & bits) == bits;
}

uint32_t wordmap_words(const WordMap *wm, int len, WordKey key, const uint8_t **words) {
    if (len < 2 || len > wm->max_len) return 0;
    if (!wordmap_may_have_words(wm, key)) return 0;
    const WmLength *L = &wm->len[len];
    const uint32_t *s = tab_find(&L->words, key);
    if (s == NULL) return 0;
    uint32_t first = s[1] >> 8, count = s[1] & 0xFFu;
    const uint8_t *w = L->letters + (size_t)first * (size_t)len;
    /* a fingerprint can match a key that is not there: the class's own
     * letters decide */
    if (!wordkey_equal(key_of(w, len), key)) return 0;
    *words = w;
    return count;
}

uint32_t wordmap_blank1(const WordMap *wm, int len, WordKey key) {
    if (len < 2 || len > wm->max_len) return 0;
    const uint32_t *s = tab_find(&wm->len[len].blank1, key);
    return s ? s[1] : 0;
}

uint32_t wordmap_blank2(const WordMap *wm, int len, WordKey key) {
    if (len < 2 || len > wm->max_len) return 0;
    const uint32_t *s = tab_find(&wm->len[len].blank2, key);
    return s ? s[1] : 0;
}

bool wordmap_has_word(const WordMap *wm, int len, WordKey key, int blanks) {
    const uint8_t *w;
    switch (blanks) {
    case 0: return wordmap_words(wm, len, key, &w) > 0;
    case 1: return wordmap_blank1(wm, len, key) != 0;
    case 2: return wordmap_blank2(wm, len, key) != 0;
    default: return false;
    }
}

/* ------------------------------------------------------------ loading */

static uint32_t get32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}
static uint64_t get64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* Checks one table's slots: fingerprints odd or 0 (empty), `used` the
 * number of occupied slots with at least one empty slot left (so a probe
 * for an absent key ends at one), and every payload of its kind: a blank
 * table's a non-empty mask of letters 1..alphabet-1, a words table's a
 * class of count >= 1 inside the word list whose words all have the letters
 * of its first word (wordmap_words compares the first word with the key; the
 * rest then are anagrams of it too). */
static int check_table(const WmTable *t, const WmLength *wl, int len, int kind, int alphabet, const char *source,
                       RkError *err) {
    static const char *const names[3] = {"words", "blank1", "blank2"};
    uint32_t letters_mask = (uint32_t)((((uint64_t)1 << alphabet) - 1) & ~(uint64_t)1);
    uint64_t occupied = 0;
    if (kind > 0) {
        /* branch-free over the slots (a SOWPODS map has about 9 million):
         * an occupied slot is bad if its fingerprint is even or its mask
         * empty or outside the alphabet */
        uint32_t bad = 0, n = 0;
        const uint32_t *sl = t->slots;
        for (uint32_t i = 0; i <= t->mask; i++) {
            uint32_t fp = sl[2 * (size_t)i], v = sl[2 * (size_t)i + 1], x = v & ~letters_mask;
            uint32_t used = (fp | (0u - fp)) >> 31;           /* fp != 0 */
            uint32_t empty_mask = ((v | (0u - v)) >> 31) ^ 1u; /* v == 0 */
            uint32_t outside = (x | (0u - x)) >> 31;          /* x != 0 */
            n += used;
            bad |= used & ((~fp & 1u) | empty_mask | outside);
        }
        occupied = n;
        if (bad)
            return rk_error(err, "%s: the %s table of length %d has a bad slot (an even fingerprint, or a letter "
                            "mask empty or outside the alphabet)", source, names[kind], len);
    } else {
        for (uint64_t i = 0; i <= t->mask; i++) {
            uint32_t fp = t->slots[2 * i], v = t->slots[2 * i + 1];
            if (fp == 0) continue;
            occupied++;
            if ((fp & 1u) == 0)
                return rk_error(err, "%s: the words table of length %d has a bad slot (an even fingerprint)", source,
                                len);
            uint32_t first = v >> 8, count = v & 0xFFu;
            if (count == 0 || (uint64_t)first + count > wl->nwords)
                return rk_error(err, "%s: a class of length %d points outside its word list", source, len);
            const uint8_t *w = wl->letters + (size_t)first * (size_t)len;
            WordKey k = key_of(w, len);
            for (uint32_t j = 1; j < count; j++)
                if (!wordkey_equal(key_of(w + (size_t)j * (size_t)len, len), k))
                    return rk_error(err, "%s: a class of length %d holds words of different letters", source, len);
        }
    }
    if (occupied != t->used || occupied > t->mask)
        return rk_error(err, "%s: the %s table of length %d has %llu keys in %llu slots, its entry says %u", source,
                        names[kind], len, (unsigned long long)occupied, (unsigned long long)t->mask + 1, t->used);
    return 0;
}

static bool all_zero(const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i] != 0) return false;
    return true;
}

/* The presence filter of the words tables' keys, from the checked word
 * lists (every word's key; the words of a class share one). */
static int build_present(WordMap *wm, const char *source, RkError *err) {
    uint64_t classes = 0, nwords = 0;
    for (int L = 2; L <= wm->max_len; L++) {
        classes += wm->len[L].words.used;
        nwords += wm->len[L].nwords;
    }
    if (classes > nwords) classes = nwords; /* no more keys than words go in (a crafted file may claim more) */
    uint64_t words = 1;
    while (words * 64 < classes * WM_PRESENT_BITS) words *= 2;
    wm->present = calloc((size_t)words, sizeof *wm->present);
    if (wm->present == NULL) return rk_error(err, "%s: out of memory for the word map's filter", source);
    wm->present_mask = words - 1;
    for (int L = 2; L <= wm->max_len; L++) {
        const WmLength *wl = &wm->len[L];
        for (uint32_t i = 0; i < wl->nwords; i++) {
            uint64_t h = present_hash(key_of(wl->letters + (size_t)i * (size_t)L, L));
            wm->present[h & wm->present_mask] |= present_bits(h);
        }
    }
    return 0;
}

/* Checks the image in wm->image and fills the table views. Every offset,
 * size and payload a lookup follows is checked here, so that no lookup
 * reads outside the image whatever the bytes (the checksum only tells a
 * damaged file). Last, it allocates the presence filter: the
 * caller frees it with wordmap_free, whether this succeeds or fails. */
int wm_parse_image(WordMap *wm, const char *source, RkError *err) {
    const uint8_t *img = wm->image;
    size_t size = wm->image_size;
    if (rk_check_magic(img, size, WM_HEADER_BYTES + WM_ENTRIES * WM_ENTRY_BYTES, WM_MAGIC, "a word map (.wmp)",
                       source, err) != 0)
        return -1;
    if (get32(img + 4) != WM_VERSION)
        return rk_error(err, "%s: word map version %u, this rookery reads version %u; rebuild it with `rookery "
                        "lexicon wordmap`", source, get32(img + 4), WM_VERSION);
    if (get64(img + 32) != size)
        return rk_error(err, "%s: the header says %llu bytes but the file has %zu (truncated or padded)", source,
                        (unsigned long long)get64(img + 32), size);
    if (get32(img + 28) != WM_ENTRIES)
        return rk_error(err, "%s: %u length entries, expected %d", source, get32(img + 28), WM_ENTRIES);
    if (hash_bytes(img + WM_HEADER_BYTES, size - WM_HEADER_BYTES, 0) != get64(img + 40))
        return rk_error(err, "%s: the word map's checksum does not match its contents (a corrupt file)", source);
    /* the header is outside the checksum: its reserved bytes must be 0 and
     * the longest word must be the one the entries hold */
    if (!all_zero(img + 48, WM_HEADER_BYTES - 48))
        return rk_error(err, "%s: bad header (reserved bytes 48..63 are not zero)", source);
    wm->kwg_hash = get64(img + 8);
    wm->kwg_nodes = get32(img + 16);
    uint32_t alphabet = get32(img + 20), max_len = get32(img + 24);
    if (alphabet < 2 || alphabet > WM_MAX_LETTER + 1 || max_len > WM_MAX_LEN)
        return rk_error(err, "%s: bad header (alphabet %u, longest word %u)", source, alphabet, max_len);
    wm->alphabet = (int)alphabet;
    wm->max_len = (int)max_len;
    /* entries 0 and 1 are unused */
    if (!all_zero(img + WM_HEADER_BYTES, 2 * WM_ENTRY_BYTES))
        return rk_error(err, "%s: the entries of lengths 0 and 1 are not zero", source);
    int longest = 0;
    for (int L = 2; L < WM_ENTRIES; L++) {
        const uint8_t *e = img + WM_HEADER_BYTES + (size_t)L * WM_ENTRY_BYTES;
        WmLength *wl = &wm->len[L];
        uint64_t loff = get64(e);
        wl->nwords = get32(e + 8);
        if (get32(e + 12) != 0 || get32(e + 36) != 0 || get32(e + 60) != 0 || get32(e + 84) != 0 ||
            get64(e + 88) != 0)
            return rk_error(err, "%s: the entry of length %d has reserved fields that are not zero", source, L);
        if (loff % WM_ALIGN != 0 || loff > size || (uint64_t)wl->nwords * (uint64_t)L > size - loff)
            return rk_error(err, "%s: the words of length %d lie outside the file", source, L);
        if (wl->nwords > 0) longest = L;
        wl->letters = img + loff;
        for (uint64_t i = 0; i < (uint64_t)wl->nwords * (uint64_t)L; i++)
            if (wl->letters[i] < 1 || wl->letters[i] >= wm->alphabet)
                return rk_error(err, "%s: a word of length %d has letter %u, outside the alphabet", source, L,
                                wl->letters[i]);
        WmTable *tabs[3] = {&wl->words, &wl->blank1, &wl->blank2};
        for (int t = 0; t < 3; t++) {
            const uint8_t *te = e + 16 + 24 * t;
            uint64_t toff = get64(te);
            uint32_t bits = get32(te + 8);
            if (bits < 1 || bits > 31 || toff % WM_ALIGN != 0 || toff > size ||
                ((uint64_t)8 << bits) > size - toff)
                return rk_error(err, "%s: a table of length %d lies outside the file", source, L);
            tabs[t]->slots = (const uint32_t *)(const void *)(img + toff);
            tabs[t]->mask = (uint32_t)(((uint64_t)1 << bits) - 1);
            tabs[t]->seed = get32(te + 12);
            tabs[t]->used = get32(te + 16);
            if (check_table(tabs[t], wl, L, t, wm->alphabet, source, err) != 0) return -1;
        }
    }
    if (longest != wm->max_len)
        return rk_error(err, "%s: bad header (longest word %d, the entries hold words of up to %d letters)", source,
                        wm->max_len, longest);
    return build_present(wm, source, err);
}

static int check_lexicon(const WordMap *wm, const Kwg *kwg, int alphabet, const char *source, RkError *err) {
    if (alphabet != 0 && wm->alphabet != alphabet)
        return rk_error(err, "%s: built for an alphabet of %d letters, the distribution has %d", source,
                        wm->alphabet - 1, alphabet - 1);
    if (kwg != NULL && (wm->kwg_nodes != kwg->n || wm->kwg_hash != wordmap_kwg_hash(kwg)))
        return rk_error(err,
                        "%s: built from another lexicon (its lexicon had %u nodes, this one %u, or other words); "
                        "rebuild it with `rookery lexicon wordmap`",
                        source, wm->kwg_nodes, kwg->n);
    return 0;
}

int wordmap_from_bytes(WordMap *wm, const void *data, size_t size, const Kwg *kwg, int alphabet,
                       const char *source, RkError *err) {
    memset(wm, 0, sizeof *wm);
    if (source == NULL) source = "word map";
    if (!host_little_endian()) return rk_error(err, "%s: word maps need a little-endian machine", source);
    /* aligned like a mapping, so the slots can be read as words */
    void *copy = NULL;
    if (posix_memalign(&copy, WM_ALIGN, size ? size : 1) != 0) return rk_error(err, "%s: out of memory", source);
    if (size) memcpy(copy, data, size);
    wm->image = copy;
    wm->image_size = size;
    if (wm_parse_image(wm, source, err) != 0 || check_lexicon(wm, kwg, alphabet, source, err) != 0) {
        wordmap_free(wm);
        return -1;
    }
    return 0;
}

int wordmap_load(WordMap *wm, const char *path, const Kwg *kwg, int alphabet, RkError *err) {
    memset(wm, 0, sizeof *wm);
    if (!host_little_endian()) return rk_error(err, "%s: word maps need a little-endian machine", path);
    int fd = rk_open_regular(path, err);
    if (fd < 0) return -1;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return rk_error(err, "%s: %s", path, strerror(e));
    }
    if ((uint64_t)st.st_size > WM_MAX_FILE_BYTES) {
        close(fd);
        return rk_error(err, "%s: %lld bytes, larger than any word map", path, (long long)st.st_size);
    }
    if (st.st_size < (off_t)(WM_HEADER_BYTES + WM_ENTRIES * WM_ENTRY_BYTES)) {
        close(fd);
        return rk_error(err, "%s: %lld bytes, too short for a word map (.wmp) header", path,
                        (long long)st.st_size);
    }
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
    int e = errno;
    close(fd);
    if (p == MAP_FAILED) return rk_error(err, "%s: cannot map the file: %s", path, strerror(e));
    wm->image = p;
    wm->image_size = (size_t)st.st_size;
    wm->mapped = true;
    if (wm_parse_image(wm, path, err) != 0 || check_lexicon(wm, kwg, alphabet, path, err) != 0) {
        wordmap_free(wm);
        return -1;
    }
    return 0;
}

int wordmap_path_beside(const char *kwg_path, char *out, size_t cap) {
    size_t n = strlen(kwg_path);
    if (n >= 4 && strcmp(kwg_path + n - 4, ".kwg") == 0) n -= 4;
    if (n + 5 > cap) return -1;
    memcpy(out, kwg_path, n);
    memcpy(out + n, ".wmp", 5);
    return 0;
}

void wordmap_free(WordMap *wm) {
    free(wm->present);
    if (wm->image != NULL) {
        if (wm->mapped) munmap(wm->image, wm->image_size);
        else free(wm->image);
    }
    memset(wm, 0, sizeof *wm);
}
