#include "snapargs.h"

void snap_args_begin(struct snap_proc *s, struct snap_cut *c)
{
	s->args_len = 0;
	s->args_cut = false;
	*c = (struct snap_cut){0, 0, false};
}

bool snap_args_add(struct snap_proc *s, struct snap_cut *c, const char *buf, size_t n)
{
	for (size_t k = 0; k < n && !c->full; k++) {
		if (buf[k] == '\0') {
			if (s->args_len >= SNAP_ARGS_MAX) {
				c->full = true;
				break;
			}
			s->args[s->args_len++] = '\0';
			c->arg = c->stored = 0;
			continue;
		}
		if (c->arg++ >= SNAP_ARG_MAX) {
			s->args_cut = true;
			continue;
		}
		if (s->args_len + 1 >= SNAP_ARGS_MAX) { /* room for it and the NUL after it */
			c->full = true;
			break;
		}
		s->args[s->args_len++] = buf[k];
		c->stored++;
	}
	if (c->full)
		s->args_cut = true;
	return !c->full;
}

void snap_args_end(struct snap_proc *s, struct snap_cut *c)
{
	if (c->stored > 0)
		s->args[s->args_len++] = '\0'; /* each kept byte left room for it */
	c->stored = 0;
}
