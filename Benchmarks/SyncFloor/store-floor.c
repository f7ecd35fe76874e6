// The storing half of the floor Benchmarks/sync.sh measures `shelf sync` against: the rows a sync stored (every page
// and title of SOURCE, a store shelf synced, acquisitions in each title's detail), inserted into TARGET (a store shelf
// made, with its schema, indexes and triggers, and no title yet) in one transaction, with the pragmas shelf opens its
// store with. Reading the rows from SOURCE is not counted. With opds-floor's parse of the same pages it makes the
// parse+store floor: what a sync cannot do without, whatever language it is written in. Prints "ROWS CPU_SECONDS".
// Usage: store-floor SOURCE.sqlite TARGET.sqlite
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct table {
    const char *name;
    int columns;
    long rows;
    sqlite3_value **values;  // rows × columns
};

static void fail(sqlite3 *db, const char *what) {
    fprintf(stderr, "store-floor: %s: %s\n", what, sqlite3_errmsg(db));
    exit(1);
}

static void run(sqlite3 *db, const char *sql) {
    if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) fail(db, sql);
}

static double cpu_seconds(void) {
    struct timespec cpu;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
    return cpu.tv_sec + cpu.tv_nsec / 1e9;
}

// Reads every row of `table` in SOURCE, in rowid order, into memory.
static void load(sqlite3 *source, struct table *table) {
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT * FROM %s ORDER BY rowid", table->name);
    sqlite3_stmt *select;
    if (sqlite3_prepare_v2(source, sql, -1, &select, NULL) != SQLITE_OK) fail(source, sql);
    table->columns = sqlite3_column_count(select);
    long capacity = 1024;
    table->values = malloc(sizeof(sqlite3_value *) * capacity * table->columns);
    while (sqlite3_step(select) == SQLITE_ROW) {
        if (table->rows == capacity) {
            capacity *= 2;
            table->values = realloc(table->values, sizeof(sqlite3_value *) * capacity * table->columns);
        }
        for (int column = 0; column < table->columns; column++) {
            table->values[table->rows * table->columns + column] = sqlite3_value_dup(sqlite3_column_value(select, column));
        }
        table->rows++;
    }
    sqlite3_finalize(select);
}

// Inserts the loaded rows of `table` into TARGET.
static void store(sqlite3 *target, struct table *table) {
    char sql[4096];
    int length = snprintf(sql, sizeof sql, "INSERT INTO %s VALUES (", table->name);
    for (int column = 0; column < table->columns; column++) {
        length += snprintf(sql + length, sizeof sql - length, column == 0 ? "?" : ", ?");
    }
    snprintf(sql + length, sizeof sql - length, ")");
    sqlite3_stmt *insert;
    if (sqlite3_prepare_v2(target, sql, -1, &insert, NULL) != SQLITE_OK) fail(target, sql);
    for (long row = 0; row < table->rows; row++) {
        for (int column = 0; column < table->columns; column++) {
            sqlite3_bind_value(insert, column + 1, table->values[row * table->columns + column]);
        }
        if (sqlite3_step(insert) != SQLITE_DONE) fail(target, table->name);
        sqlite3_reset(insert);
    }
    sqlite3_finalize(insert);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: store-floor SOURCE.sqlite TARGET.sqlite\n");
        return 64;
    }
    sqlite3 *source, *target;
    if (sqlite3_open_v2(argv[1], &source, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) fail(source, argv[1]);
    if (sqlite3_open_v2(argv[2], &target, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) fail(target, argv[2]);
    // The pages the titles were read from, then the titles: in the order their keys ask for.
    struct table tables[] = {{"feed_page"}, {"edition"}};
    int count = sizeof tables / sizeof tables[0];
    for (int i = 0; i < count; i++) load(source, &tables[i]);
    // The libraries the titles belong to, as shelf keeps them (not counted either).
    char attach[4096];
    snprintf(attach, sizeof attach, "ATTACH DATABASE '%s' AS source", argv[1]);
    run(target, attach);
    run(target, "INSERT INTO library SELECT * FROM source.library");
    run(target, "DETACH DATABASE source");
    // As Store opens the catalog.
    run(target, "PRAGMA cache_size = -4096; PRAGMA temp_store = FILE; PRAGMA journal_mode = WAL; "
                "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON");
    double start = cpu_seconds();
    run(target, "BEGIN IMMEDIATE");
    long rows = 0;
    for (int i = 0; i < count; i++) {
        store(target, &tables[i]);
        rows += tables[i].rows;
    }
    run(target, "COMMIT");
    run(target, "PRAGMA wal_checkpoint(TRUNCATE)");
    double spent = cpu_seconds() - start;
    printf("%ld %.3f\n", rows, spent);
    sqlite3_close(source);
    sqlite3_close(target);
    return 0;
}
