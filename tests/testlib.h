/* testlib.h - the few helpers every unit test shares: checks that report
 * file:line, a seeded random generator, and guarded buffers that end against
 * an unmapped page so a read one byte past the end crashes. */
#ifndef GS_TESTLIB_H
#define GS_TESTLIB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "io/seq/patterns.h"

extern int gs_test_failures;

#define CHECK(cond)                                                                   \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);  \
            gs_test_failures++;                                                       \
        }                                                                             \
    } while (0)

#define CHECK_EQ_U64(a, b)                                                            \
    do {                                                                              \
        unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b); \
        if (a_ != b_) {                                                               \
            fprintf(stderr, "%s:%d: %s == %llu, expected %s == %llu\n", __FILE__,     \
                    __LINE__, #a, a_, #b, b_);                                        \
            gs_test_failures++;                                                       \
        }                                                                             \
    } while (0)

/* Exit status for main(): 0 when no check failed, 1 otherwise (prints a summary). */
int gs_test_done(const char *name);

/* splitmix64: reproducible across platforms. */
uint64_t gs_test_rand(uint64_t *state);
uint64_t gs_test_below(uint64_t *state, uint64_t n);

/* A buffer of n bytes whose last byte is the last one before a PROT_NONE page. */
uint8_t *gs_guarded_alloc(size_t n);
void gs_guarded_free(uint8_t *p, size_t n);

/* Append a pattern built in memory (name p<N>, text and bytes = seq, the
 * given line, or its 1-based number for 0), keeping min_len and max_len; the test frees ps with
 * gs_patset_free. */
void gs_test_add_pattern(gs_patset *ps, const void *seq, size_t len, uint32_t line);

/* A fresh directory /tmp/gs_<name>.XXXXXX for the test's files (NULL if it
 * cannot be made), paths in it (one of 8 static buffers, reused in turn),
 * and its removal with everything in it (0 when done). */
const char *gs_test_tmpdir(const char *name);
const char *gs_test_tmp_path(const char *file);
int gs_test_tmp_remove(void);

/* Path of a file under tests/data (GS_TEST_DATA), in a static buffer. */
const char *gs_test_data(const char *name);

#endif
