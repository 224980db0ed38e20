/* libFuzzer harness for the two parsers that take user input: durations and signal names.
 * Built and run by `make fuzz`.  Checks the parsers' promises, not just absence of crashes. */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "duration.h"
#include "signal_names.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';

	int64_t ns = -1;
	if (duration_parse(s, &ns) && ns < 0)
		abort(); /* a duration is never negative */

	int sig = sig_parse(s);
	if (sig < -1 || sig > sig_max())
		abort();
	if (sig > 0) {
		char name[32];
		/* Every accepted signal has a name that parses back to it. */
		if (sig_parse(sig_name(sig, name, sizeof name)) != sig)
			abort();
	}
	free(s);
	return 0;
}
