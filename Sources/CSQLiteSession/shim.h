#ifndef CSQLITESESSION_SHIM_H
#define CSQLITESESSION_SHIM_H

/* SQLite's session extension (Debian's libsqlite3 is built with it), whose declarations sqlite3.h hides unless
 * SQLITE_ENABLE_SESSION is defined. Only what the store's undo journal uses is declared, with the types left
 * incomplete as in sqlite3.h, so nothing here clashes with GRDBSQLite's declarations. */

struct sqlite3;
struct sqlite3_session;
struct sqlite3_changeset_iter;
struct sqlite3_value;

int sqlite3session_create(struct sqlite3 *db, const char *zDb, struct sqlite3_session **ppSession);
void sqlite3session_delete(struct sqlite3_session *pSession);
int sqlite3session_attach(struct sqlite3_session *pSession, const char *zTab);
void sqlite3session_table_filter(
    struct sqlite3_session *pSession, int (*xFilter)(void *pCtx, const char *zTab), void *pCtx);
int sqlite3session_changeset(struct sqlite3_session *pSession, int *pnChangeset, void **ppChangeset);
int sqlite3changeset_invert(int nIn, const void *pIn, int *pnOut, void **ppOut);
int sqlite3changeset_apply(
    struct sqlite3 *db, int nChangeset, void *pChangeset, int (*xFilter)(void *pCtx, const char *zTab),
    int (*xConflict)(void *pCtx, int eConflict, struct sqlite3_changeset_iter *p), void *pCtx);
int sqlite3changeset_start(struct sqlite3_changeset_iter **pp, int nChangeset, void *pChangeset);
int sqlite3changeset_next(struct sqlite3_changeset_iter *pIter);
int sqlite3changeset_op(
    struct sqlite3_changeset_iter *pIter, const char **pzTab, int *pnCol, int *pOp, int *pbIndirect);
int sqlite3changeset_old(struct sqlite3_changeset_iter *pIter, int iVal, struct sqlite3_value **ppValue);
int sqlite3changeset_finalize(struct sqlite3_changeset_iter *pIter);

/* Records every table but those named in `context`, a NULL-terminated list of table names. */
static inline int CSQLiteSession_recordTable(void *context, const char *table) {
    for (const char *const *skip = (const char *const *)context; skip && *skip; skip++) {
        const char *a = *skip, *b = table;
        while (*a && *a == *b) { a++; b++; }
        if (*a == *b) return 0;
    }
    return 1;
}

/* Attaches every table of the session's database but those in `skipped` (which must outlive the session). */
static inline int CSQLiteSession_attachAllBut(struct sqlite3_session *session, const char *const *skipped) {
    sqlite3session_table_filter(session, CSQLiteSession_recordTable, (void *)skipped);
    return sqlite3session_attach(session, 0);
}

/* Undoing a step keeps whatever someone else changed since: a row that no longer holds what the step wrote
 * (SQLITE_CHANGESET_DATA, NOTFOUND, CONFLICT, CONSTRAINT) is left as it is (OMIT); a change that would break a
 * foreign key abandons the step's undo (ABORT). */
static inline int CSQLiteSession_keepOthers(void *context, int conflict, struct sqlite3_changeset_iter *change) {
    (void)context;
    (void)change;
    return conflict == 5 /* SQLITE_CHANGESET_FOREIGN_KEY */ ? 2 /* SQLITE_CHANGESET_ABORT */ : 0 /* OMIT */;
}

/* Applies `changes` (an inverted changeset) with the handler above; SQLITE_ABORT when it was abandoned. */
static inline int CSQLiteSession_undo(struct sqlite3 *db, int length, void *changes) {
    return sqlite3changeset_apply(db, length, changes, 0, CSQLiteSession_keepOthers, 0);
}

#endif
