/* The walks' pid index (pidmap.h): open addressing, at most half full. */
#include "pidmap.h"

#include <stdint.h>
#include <stdlib.h>

struct pidmap_slot {
	pid_t pid;
	long value;
};

static size_t slot_of(pid_t pid, size_t cap)
{
	/* Fibonacci hashing: consecutive pids spread over the table. */
	uint64_t h = (uint64_t)(uint32_t)pid * UINT64_C(11400714819323198485);
	return (size_t)(h >> 32) & (cap - 1);
}

long pidmap_get(const struct pidmap *m, pid_t pid)
{
	if (m->cap == 0 || pid <= 0)
		return -1;
	for (size_t i = slot_of(pid, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (m->slots[i].pid == pid)
			return m->slots[i].value;
		if (m->slots[i].pid == 0)
			return -1;
	}
}

static bool grow(struct pidmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	struct pidmap_slot *slots = calloc(cap, sizeof *slots);
	if (!slots)
		return false;
	for (size_t k = 0; k < m->cap; k++) {
		if (m->slots[k].pid == 0)
			continue;
		size_t i = slot_of(m->slots[k].pid, cap);
		while (slots[i].pid != 0)
			i = (i + 1) & (cap - 1);
		slots[i] = m->slots[k];
	}
	free(m->slots);
	m->slots = slots;
	m->cap = cap;
	return true;
}

bool pidmap_put(struct pidmap *m, pid_t pid, long value)
{
	if (pid <= 0)
		return false;
	/* At most half full, so that probes stay short and a free slot always exists. */
	if ((m->n + 1) * 2 > m->cap && !grow(m))
		return false;
	size_t i = slot_of(pid, m->cap);
	while (m->slots[i].pid != 0 && m->slots[i].pid != pid)
		i = (i + 1) & (m->cap - 1);
	if (m->slots[i].pid == 0)
		m->n++;
	m->slots[i].pid = pid;
	m->slots[i].value = value;
	return true;
}

void pidmap_free(struct pidmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->n = 0;
}
