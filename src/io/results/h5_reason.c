/* h5_reason.c - one readable reason out of HDF5's error stack.
 *
 * HDF5's automatic error printing is switched off while gscan runs; when a
 * call fails, the writer and reader turn the stack into one line of a
 * located gscan error with this.
 */
#include <hdf5.h>
#include <stdio.h>
#include <string.h>

#include "h5_internal.h"

typedef struct h5_why {
    char text[256];
} h5_why;

/* Keep the innermost description: it says what actually failed (an MPI-IO
 * or system call) where the outer ones only say which API call it was. */
static herr_t why_walk(unsigned n, const H5E_error2_t *e, void *data)
{
    h5_why *w = data;
    (void)n;
    char minor[128] = "";
    if (e->desc && *e->desc)
        snprintf(w->text, sizeof w->text, "%s", e->desc);
    else if (H5Eget_msg(e->min_num, NULL, minor, sizeof minor) > 0)
        snprintf(w->text, sizeof w->text, "%s", minor);
    return 0;
}

void gs_h5_reason(char *buf, size_t size)
{
    h5_why w = {"HDF5 call failed"};
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, why_walk, &w);
    H5Eclear2(H5E_DEFAULT);
    /* An MPI error string reads "CALL failed: MPI error string is 'CLASS,
     * error stack:\nFUNC(LINE): CLASS DETAIL'": keep the call and the last
     * line's detail, which holds strerror ("No space left on device"). */
    char *is = strstr(w.text, ": MPI error string is"), *nl = strrchr(w.text, '\n');
    if (is && nl) {
        char *detail = strstr(nl, "): ");
        detail = detail ? detail + 3 : nl + 1;
        detail[strcspn(detail, "'")] = '\0';
        *is = '\0';
        snprintf(buf, size, "%s: %s", w.text, detail);
        return;
    }
    w.text[strcspn(w.text, "\r\n")] = '\0';
    snprintf(buf, size, "%s", w.text);
}

