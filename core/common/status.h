/* One outcome vocabulary for everything below the input layer (run, store,
 * merge, the MPI parts code), in the manner of SQLite's result codes: a
 * function returns a vs_rc, the message that goes with it lives in a
 * vs_error, and exactly one place (cli_exit_status in tools/vsweep) turns
 * the outcome into the process's exit status. */
#ifndef VS_STATUS_H
#define VS_STATUS_H

/* Ordered by severity, so that the outcome of several parts taken together
 * (the ranks of an MPI run, say) is the largest: vs_rc_worst. */
typedef enum vs_rc {
	VS_RC_OK = 0,          /* everything asked for was done */
	VS_RC_FAILED,          /* done, but some variants are stored failed */
	VS_RC_INTERRUPTED,     /* stopped by a signal; the file resumes */
	VS_RC_INPUT,           /* bad input or usage; err says what */
	VS_RC_IO               /* the system's fault (disk, SQLite) or an
	                        * internal one; err says what */
} vs_rc;

static inline vs_rc vs_rc_worst(vs_rc a, vs_rc b)
{
	return a > b ? a : b;
}

#endif
