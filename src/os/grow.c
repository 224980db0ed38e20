#include "grow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

bool grow(void *items, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return true;
	size_t bigger = *cap ? *cap * 2 : 64;
	if (bigger > SIZE_MAX / size)
		return false;
	void *array;
	memcpy(&array, items, sizeof array); /* any object pointer, passed by address */
	void *grown = realloc(array, bigger * size);
	if (!grown)
		return false;
	memcpy(items, &grown, sizeof grown);
	*cap = bigger;
	/* cppcheck cannot see that the memcpy above keeps the new array. */
	// cppcheck-suppress memleak
	return true;
}
