#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H

#include <sqlite3.h>

/* SQLITE_STATIC and SQLITE_TRANSIENT are casts of integers to function pointers, which Swift
   cannot import: these helpers return them. */

/* Tells SQLite a bound buffer outlives the statement's use of it (no copy is made). */
static inline sqlite3_destructor_type csqlite_static(void) { return SQLITE_STATIC; }

/* Tells SQLite to copy a bound buffer before the bind call returns. */
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }

#endif
