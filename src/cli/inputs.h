/* inputs.h - corpus arguments as files: a directory stands for its sequence
 * files, an input list (--infile-list) for the paths it names.
 */
#ifndef GS_CLI_INPUTS_H
#define GS_CLI_INPUTS_H

#include "core/gs_error.h"

/* Called once per corpus file, in order; where names the argument or list
 * line it came from. The callee copies path if it keeps it. */
typedef gs_status (*gs_input_add)(void *ctx, const char *path, const char *where, gs_error *err);

/* One corpus argument: a directory adds its files whose names end in .fa
 * .fasta .fna .ffn .fq .fastq (optionally followed by .gz or .bgz), sorted by
 * name (bytes), not recursively; GS_EINPUT when it holds none or cannot be
 * read. Anything else ("-", a file, a name that does not exist yet: the job
 * reports it) is added as it is. */
gs_status gs_input_arg(const char *arg, gs_input_add add, void *ctx, const char *where,
                       gs_error *err);

/* An input list: one path a line, each as a corpus argument (a directory
 * expands); blank lines and lines starting with '#' skipped, surrounding
 * blanks and a CR trimmed. GS_EINPUT naming the list when it cannot be read
 * or names no file. */
gs_status gs_input_list(const char *list, gs_input_add add, void *ctx, gs_error *err);

#endif
