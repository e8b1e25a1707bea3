/* patterns.c - placeholder until the stage lands. */
#include <stddef.h>
