/* The report tail's ring (relay_tail.h): whatever the sizes of the pieces added, what is kept is
 * exactly the last bytes of everything, and the total counts it all.  Checked against the
 * plain answer (the end of one long buffer) for many piece sizes and ring sizes. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "relay_tail.h"

/* clang says so through __has_feature, gcc through __SANITIZE_ADDRESS__. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RUNLIMIT_UNIT_ASAN 1
#endif
#endif
#ifndef RUNLIMIT_UNIT_ASAN
#define RUNLIMIT_UNIT_ASAN 0
#endif
#include "unit.h"

static void one_case(size_t size, size_t piece, size_t total)
{
	char *all = malloc(total ? total : 1), *got = malloc(size);
	for (size_t k = 0; k < total; k++)
		all[k] = (char)('a' + (k * 7 + k / 13) % 26);
	struct tail t;
	tail_init(&t, size);
	if (!all || !got || !t.buf) {
		check(0, "tail: memory", "");
		free(all);
		free(got);
		free(t.buf);
		return;
	}
	for (size_t at = 0; at < total; at += piece)
		tail_add(&t, all + at, total - at < piece ? total - at : piece);
	size_t want = total < size ? total : size;
	const char *a, *b;
	size_t alen, blen;
	tail_pieces(&t, &a, &alen, &b, &blen);
	memcpy(got, a, alen);
	memcpy(got + alen, b, blen);
	char what[96];
	snprintf(what, sizeof what, "tail size %zu, pieces of %zu, %zu bytes", size, piece, total);
	check(t.len == want && t.total == total && alen + blen == want &&
	      memcmp(got, all + total - want, want) == 0,
	      what, "kept bytes or counts differ from the end of the stream");
	free(t.buf);
	free(all);
	free(got);
}

void test_tail(void)
{
	static const size_t sizes[] = {1, 2, 7, 10, 64, 1000};
	static const size_t pieces[] = {1, 3, 9, 10, 11, 64, 999, 5000};
	static const size_t totals[] = {0, 1, 9, 10, 11, 100, 4097, 20000};
	for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
		for (size_t p = 0; p < sizeof pieces / sizeof *pieces; p++)
			for (size_t n = 0; n < sizeof totals / sizeof *totals; n++)
				one_case(sizes[s], pieces[p], totals[n]);

	/* No memory for the ring: it counts, keeps nothing, and says why (the run goes on). */
	struct tail t = {.buf = NULL, .size = 10, .error = ENOMEM};
	tail_add(&t, "abc", 3);
	const char *a, *b;
	size_t alen, blen;
	tail_pieces(&t, &a, &alen, &b, &blen);
	check(t.total == 3 && t.len == 0 && alen + blen == 0,
	      "tail: without memory, counted, nothing kept", NULL);
#if !defined(__SANITIZE_ADDRESS__) && !RUNLIMIT_UNIT_ASAN
	/* (The sanitizers abort on an allocation this size instead of failing it.) */
	tail_init(&t, SIZE_MAX);
	check(!t.buf && t.error != 0, "tail: a ring that cannot be had: made, the reason kept",
	      NULL);
	free(t.buf);
#endif
}
