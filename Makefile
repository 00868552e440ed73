# progressd: `make run` and `make test` install what a fresh Debian 12 lacks, build, and go.
PREFIX ?= /usr/local
BINDIR = $(PREFIX)/bin
DATADIR = $(PREFIX)/share
USERUNITDIR = $(PREFIX)/lib/systemd/user
SWIFT ?= swift
DEBUG_BIN = .build/debug

.PHONY: all deps build release run test install uninstall clean

all: build

deps:
	@sh scripts/install-deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

run: build
	@sh scripts/run-daemon.sh $(DEBUG_BIN)/progressd $(ARGS)

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test

install: release
	install -Dm755 "$$($(SWIFT) build -c release --show-bin-path)/progressd" "$(DESTDIR)$(BINDIR)/progressd"
	install -Dm644 dbus/org.progressd.Progress1.xml "$(DESTDIR)$(DATADIR)/dbus-1/interfaces/org.progressd.Progress1.xml"
	sed 's|@bindir@|$(BINDIR)|g' dbus/org.progressd.Progress1.service > progressd.dbus-service.tmp
	install -Dm644 progressd.dbus-service.tmp "$(DESTDIR)$(DATADIR)/dbus-1/services/org.progressd.Progress1.service"
	sed 's|@bindir@|$(BINDIR)|g' systemd/progressd.service > progressd.unit.tmp
	install -Dm644 progressd.unit.tmp "$(DESTDIR)$(USERUNITDIR)/progressd.service"
	rm -f progressd.dbus-service.tmp progressd.unit.tmp

uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/progressd" \
	    "$(DESTDIR)$(DATADIR)/dbus-1/interfaces/org.progressd.Progress1.xml" \
	    "$(DESTDIR)$(DATADIR)/dbus-1/services/org.progressd.Progress1.service" \
	    "$(DESTDIR)$(USERUNITDIR)/progressd.service"

clean:
	$(SWIFT) package clean
