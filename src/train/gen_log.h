/* gen_log.h - a generation's summary lines in the log, read from its record.
 *
 * Every figure of a generation is recorded once (snapshot.c, through
 * manifest.h's GenRecord): the manifest, the metrics.csv row and these
 * lines follow from that one description. The lines show a chosen few of
 * the record's figures, by their manifest path, each as recorded (a real
 * with its recorded decimals), so a figure the log shows cannot differ
 * from the one the manifest holds.
 *
 *   gen 3 done: 120 games, 2891 turns, 245.3 games/s; mean best equity ...
 *   gen 3 spv: derived yes; 2961 cells observed, ...   (runs with SPV only)
 *
 * The write time shown is the record's (the generation's data files; the
 * manifest itself is written after the record is complete).
 */
#ifndef ROOKERY_TRAIN_GEN_LOG_H
#define ROOKERY_TRAIN_GEN_LOG_H

#include <stddef.h>

typedef struct json_t json_t;

/* The "gen N done: ..." line (no newline) of a generation's record. */
void gen_log_done(json_t *record, char *out, size_t cap);
/* The "gen N spv: ..." line (for runs with the positional table). */
void gen_log_spv(json_t *record, char *out, size_t cap);

#endif
