/* The raw SQLite baseline: N compact 20-column rows (two integers, 18
 * doubles, the shape of vsweep's state row) into a fresh WAL file with a
 * prepared single-row INSERT, committing every 10,000 rows. Prints rows/s.
 *
 *   plain_insert FILE.db N
 */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void check(int rc, sqlite3 *db, const char *what)
{
	if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
		fprintf(stderr, "plain_insert: %s: %s\n", what,
		        sqlite3_errmsg(db));
		exit(1);
	}
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: plain_insert FILE.db N\n");
		return 2;
	}
	long long n = atoll(argv[2]);
	unlink(argv[1]);
	sqlite3 *db = NULL;
	check(sqlite3_open(argv[1], &db), db, "open");
	check(sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous="
	                   "NORMAL; CREATE TABLE r (a INTEGER, b INTEGER, "
	                   "c1 REAL, c2 REAL, c3 REAL, c4 REAL, c5 REAL, "
	                   "c6 REAL, c7 REAL, c8 REAL, c9 REAL, c10 REAL, "
	                   "c11 REAL, c12 REAL, c13 REAL, c14 REAL, c15 REAL, "
	                   "c16 REAL, c17 REAL, c18 REAL)", NULL, NULL, NULL),
	      db, "schema");
	sqlite3_stmt *ins = NULL;
	check(sqlite3_prepare_v2(db, "INSERT INTO r VALUES (?,?,?,?,?,?,?,?,?,"
	                         "?,?,?,?,?,?,?,?,?,?,?)", -1, &ins, NULL),
	      db, "prepare");
	double t0 = now();
	check(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL), db, "begin");
	for (long long i = 0; i < n; i++) {
		/* Values like a moving actor's: nothing integral, nothing
		 * repeated, so no row compresses better than vsweep's. */
		double t = (double)i * 0.01;
		sqlite3_bind_int64(ins, 1, 1 + (i & 1));
		sqlite3_bind_int64(ins, 2, i / 2);
		for (int c = 0; c < 18; c++)
			sqlite3_bind_double(ins, 3 + c,
			                    sin(t * (c + 1) + c) * (c + 1.5));
		check(sqlite3_step(ins), db, "insert");
		sqlite3_reset(ins);
		if ((i + 1) % 10000 == 0) {
			check(sqlite3_exec(db, "COMMIT; BEGIN", NULL, NULL,
			                   NULL), db, "commit");
		}
	}
	check(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), db, "commit");
	double dt = now() - t0;
	sqlite3_finalize(ins);
	sqlite3_close(db);
	printf("%.0f\n", (double)n / dt);
	return 0;
}
