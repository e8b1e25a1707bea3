/* ac_trie.h - the Aho-Corasick automaton of a keyset, built once on the
 * host.
 *
 * The CPU engine (ac.c) and the GPU one (gpu/ac.cu) scan with different
 * tables (a dense DFA of row offsets; rows of internal states only, with
 * flags for key ends), but both are a re-lay of the same automaton: the
 * trie of the keys with its failure transitions folded into a full
 * transition function, states numbered breadth-first. This is that
 * automaton; each engine renumbers and packs its rows from it.
 *
 * Symbols: dna keys are codes 0..3 (A = 4; a text non-base is the engines'
 * business). Bytes map each byte value some key contains to its own class
 * 1..m and every other byte to class 0, whose column is all root (A = m + 1);
 * when every byte value occurs the map is the identity (A = 256).
 */
#ifndef GS_AC_TRIE_H
#define GS_AC_TRIE_H

#include "keyset.h"

#define GS_AC_NONE UINT32_MAX

typedef struct gs_ac_trie {
    uint32_t A;       /* symbols: the width of a row */
    uint32_t n;       /* states, breadth-first: the root is 0, a state's suffixes come before it */
    uint8_t cls[256]; /* byte -> symbol (dna: gs_dna_code) */
    uint32_t *go;     /* [n * A] the full transition function */
    uint32_t *key;    /* [n] the key ending at the state, or GS_AC_NONE */
    uint32_t *dict;   /* [n] the nearest proper suffix state where a key ends, or GS_AC_NONE */
    uint32_t *fail;   /* [n] the longest proper suffix state (the root's is the root) */
    uint8_t *inner;   /* [n] 1: the state has a child in the trie (the root always) */
} gs_ac_trie;

/* The symbols of ks's automaton (A), and its byte -> symbol map into cls. */
uint32_t gs_ac_symbols(const gs_keyset *ks, uint8_t cls[256]);

/* Build the automaton of ks (exact keys). n * A stays within 2^32 (row
 * offsets fit 32 bits), else GS_EINPUT. On failure *t is left empty. */
gs_status gs_ac_trie_build(const gs_keyset *ks, gs_ac_trie *t, gs_error *err);

void gs_ac_trie_free(gs_ac_trie *t);

#endif
