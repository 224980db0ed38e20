# runlimit: GNU make (on the BSDs: gmake).  `make`, `make check`, `make install`.

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man/man1
DESTDIR ?=

CC      ?= cc
WARN     = -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Werror
CFLAGS  ?= -O2 -g
CSTD     = -std=c11 -D_POSIX_C_SOURCE=200809L
LDLIBS  += -lm

ifeq ($(SANITIZE),1)
CFLAGS  += -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
LDFLAGS += -fsanitize=address,undefined
endif
ifeq ($(STATIC),1)
LDFLAGS += -static
endif

OS ?= $(shell uname -s)
ifeq ($(OS),Linux)
PLATFORM = src/clock_ppoll.c src/tree_linux.c
else ifeq ($(OS),FreeBSD)
PLATFORM = src/clock_ppoll.c src/tree_freebsd.c
else ifeq ($(OS),Darwin)
PLATFORM = src/clock_darwin.c src/tree_other.c
else
PLATFORM = src/clock_poll.c src/tree_other.c
endif

CORE = src/cli.c src/duration.c src/msg.c src/signals.c src/spawn.c src/supervise.c
SRCS = src/main.c $(CORE) $(PLATFORM)
HDRS = $(wildcard src/*.h)

BIN ?= runlimit

all: $(BIN)

$(BIN): $(SRCS) $(HDRS) Makefile
	$(CC) $(CSTD) $(WARN) $(CFLAGS) $(CPPFLAGS) $(LDFLAGS) -o $@ $(SRCS) $(LDLIBS)

tests/unit/run-unit: tests/unit/unit.c src/duration.c src/signals.c $(HDRS) Makefile
	$(CC) $(CSTD) $(WARN) $(CFLAGS) $(CPPFLAGS) -Isrc $(LDFLAGS) -o $@ tests/unit/unit.c \
		src/duration.c src/signals.c $(LDLIBS)

# Tests run against $(RUNLIMIT) (default: the binary just built).  JOBS: bats files in parallel.
RUNLIMIT ?= $(CURDIR)/$(BIN)
JOBS ?= 4
check: $(BIN) tests/unit/run-unit
	./tests/unit/run-unit
	@scripts/ensure-bats.sh
	RUNLIMIT=$(RUNLIMIT) scripts/run-bats.sh $(JOBS)

install: $(BIN)
	mkdir -p $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)
	cp $(BIN) $(DESTDIR)$(BINDIR)/runlimit
	chmod 755 $(DESTDIR)$(BINDIR)/runlimit
	cp man/runlimit.1 $(DESTDIR)$(MANDIR)/runlimit.1
	chmod 644 $(DESTDIR)$(MANDIR)/runlimit.1

install-links:
	ln -sf runlimit $(DESTDIR)$(BINDIR)/timeout

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/runlimit $(DESTDIR)$(MANDIR)/runlimit.1
	if [ -L $(DESTDIR)$(BINDIR)/timeout ]; then rm -f $(DESTDIR)$(BINDIR)/timeout; fi

clean:
	rm -f $(BIN) tests/unit/run-unit

.PHONY: all check install install-links uninstall clean
