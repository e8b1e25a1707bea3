/* gs_copy.h - memcpy of large buffers on several threads.
 *
 * One core copies at 4-6 GB/s, below what the memory system and PCIe take:
 * the GPU path copies every batch of text into a pinned buffer on its
 * feeding thread, which was most of its scan phase (1 GiB: ~0.25 s). Split
 * over a few threads the same copy runs at the memory's speed.
 */
#ifndef GS_COPY_H
#define GS_COPY_H

#include <stddef.h>

/* Copy n bytes from src to dst (not overlapping) on up to threads threads,
 * the calling one included, at least GS_COPY_SLICE bytes each; fewer when a
 * thread cannot be started (the copy is then finished by the caller). */
enum { GS_COPY_SLICE = 1 << 20 };
void gs_copy(void *dst, const void *src, size_t n, int threads);

#endif
