/* libFuzzer target for the KWG loader: arbitrary bytes as a node array.
 * Whatever validates must be safe to walk, index and generate moves with. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/board.h"
#include "core/kwg.h"
#include "core/kwg_index.h"
#include "core/layout.h"
#include "core/letters.h"
#include "core/movegen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count_word(const uint8_t *ml, int len, void *ctx) {
    (void)ml;
    (void)len;
    return ++*(int *)ctx > 100000; /* stop huge walks early */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size % 4 != 0 || size == 0 || size > (1u << 20)) return 0;
    uint32_t n = (uint32_t)(size / 4);
    uint32_t *nodes = malloc(size);
    if (nodes == NULL) return 0;
    for (uint32_t i = 0; i < n; i++)
        nodes[i] = (uint32_t)data[4 * i] | (uint32_t)data[4 * i + 1] << 8 | (uint32_t)data[4 * i + 2] << 16 |
                   (uint32_t)data[4 * i + 3] << 24;
    LetterDist ld;
    ld_english(&ld);
    Kwg kwg;
    RkError err;
    if (kwg_from_nodes(&kwg, nodes, n, (uint32_t)ld.size, "fuzz", &err) != 0) {
        free(nodes); /* not taken on failure */
        return 0;
    }
    int words = 0;
    kwg_foreach_word(&kwg, 15, count_word, &words);
    const uint8_t probe[] = {1, 2, 3};
    (void)kwg_has_word(&kwg, probe, 3);
    KwgIndex ix;
    if (kwg_index_init(&ix, &kwg, &err) == 0) {
        (void)kwg_index_of(&kwg, &ix, probe, 2);
        uint8_t out[32];
        (void)kwg_index_word_at(&kwg, &ix, 0, out, (int)sizeof out);
        kwg_index_free(&ix);
    }
    /* move generation on the empty board and after a tile, with a full rack */
    Layout lay;
    layout_standard15(&lay);
    Board *b = malloc(sizeof *b);
    if (b != NULL) {
        board_init(b, &lay, &ld, &kwg);
        Rack rack;
        rack_clear(&rack);
        const uint8_t tiles[] = {0, 1, 5, 9, 14, 19, 20};
        for (size_t i = 0; i < sizeof tiles; i++) rack_add(&rack, tiles[i]);
        MoveGenRequest req = {.board = b, .rack = &rack, .bag_count = 50, .exchanges_allowed = false};
        MoveList list;
        movelist_init(&list);
        movegen_all(&req, &list);
        board_put(b, 7, 7, 1);
        board_put(b, 7, 8, 20);
        board_refresh(b);
        movegen_all(&req, &list);
        Move best;
        movegen_best(&req, &best, NULL);
        movelist_free(&list);
        free(b);
    }
    kwg_free(&kwg);
    return 0;
}
