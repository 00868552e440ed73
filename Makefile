# progressd: `make run` and `make test` install what a fresh Debian 12 lacks, build, and go.
PREFIX ?= /usr/local
BINDIR = $(PREFIX)/bin
DATADIR = $(PREFIX)/share
# systemd reads user units from ~/.local/share/systemd/user, not ~/.local/lib/systemd/user.
USERUNITDIR = $(if $(filter $(HOME)/.local,$(PREFIX)),$(PREFIX)/share/systemd/user,$(PREFIX)/lib/systemd/user)
SWIFT ?= swift
DEBUG_BIN = .build/debug
# Message catalogs go to share/locale beside the bin folders, where progressd looks for
# them (installed, that is $(PREFIX)/share/locale).
LOCALE_BUILD = .build/share/locale
# Manual pages: scdoc sources in man/, written into .build/man by `make man`. The pages name
# the installed files, so they are written again for each PREFIX (scdoc takes milliseconds).
MAN_BUILD = .build/man
MANDIR = $(DATADIR)/man
MAN_PAGES = progressctl.1 progress-render.1 progressd.1
VERSION = $(shell sed -n 's/.*current = "\(.*\)".*/\1/p' Sources/ProgressModel/ProgressVersion.swift)
BASHCOMPDIR = $(DATADIR)/bash-completion/completions
ZSHCOMPDIR = $(DATADIR)/zsh/site-functions
FISHCOMPDIR = $(DATADIR)/fish/vendor_completions.d
PROGRAMS = progressctl progress-render progressd
# The GNOME Shell extension (gnome-shell/), installed where the shell looks for extensions,
# under one uuid in either of two forms, each written into .build/gnome-shell-API/ by
# scripts/shell-extension.py (`make extension-forms`): GNOME_SHELL_API=45, the ES modules
# GNOME Shell 45 and later load (gnome-shell/shared/ and the entry in gnome-shell/entry-45/),
# or GNOME_SHELL_API=43, the scripts 43 and 44 load (the same modules rewritten, beside the
# entry in gnome-shell/entry-43/). By default, the one for the GNOME Shell that
# `gnome-shell --version` names, 43 when there is none.
SHELL_EXTENSION = progressd@progressd.org
ifeq ($(origin GNOME_SHELL_API),undefined)
GNOME_SHELL_API := $(shell v=$$(gnome-shell --version 2>/dev/null | sed -n 's/^GNOME Shell \([0-9][0-9]*\).*/\1/p'); \
	[ -n "$$v" ] && [ "$$v" -ge 45 ] && echo 45 || echo 43)
endif
SHELL_EXTENSION_SOURCES = $(wildcard gnome-shell/shared/* gnome-shell/entry-43/* gnome-shell/entry-45/*) \
	scripts/shell-extension.py
SHELL_EXTENSION_BUILD_43 = .build/gnome-shell-43/$(SHELL_EXTENSION)
SHELL_EXTENSION_BUILD_45 = .build/gnome-shell-45/$(SHELL_EXTENSION)
SHELL_EXTENSION_BUILD = $(or $(SHELL_EXTENSION_BUILD_$(GNOME_SHELL_API)),\
	$(error GNOME_SHELL_API is $(GNOME_SHELL_API): 43 for GNOME Shell 43 and 44, 45 for 45 and later))
SHELL_EXTENSIONDIR = $(DATADIR)/gnome-shell/extensions/$(SHELL_EXTENSION)
# What uninstall removes: the files of either form.
SHELL_EXTENSION_NAMES = $(sort $(notdir $(wildcard gnome-shell/shared/* gnome-shell/entry-43/* gnome-shell/entry-45/*)))
# `make extension`: the 45-and-later extension as `gnome-extensions pack` zips it, which
# extensions.gnome.org takes.
SHELL_EXTENSION_ZIP = $(SHELL_EXTENSION).shell-extension.zip
# Extra flags of the release build; debian/rules links Swift's runtime in (--static-swift-stdlib).
RELEASE_FLAGS ?=
# The Debian package: `make deb` copies the tree (what git does not ignore) into DEB_STAGE,
# builds there with dpkg-buildpackage (which writes into the copy's parent), and puts the
# .deb here. The copy keeps its own .build, so a second `make deb` builds only what changed.
DEB_STAGE = .build/deb/progressd-$(VERSION)
DEB_ARCH = $(shell dpkg --print-architecture 2>/dev/null)
DEB_FILE = progressd_$(VERSION)_$(DEB_ARCH).deb
# make interop's two other builds (below): make deb's copy built again in another folder,
# and this tree as the version before it. Defined here, before the rules that name them:
# make expands a rule's prerequisites as it reads the rule.
DEB_AGAIN_STAGE = .build/deb-again/progressd-$(VERSION)
DEB_PREVIOUS_VERSION = $(VERSION)~previous
DEB_PREVIOUS_STAGE = .build/deb-previous/progressd-$(DEB_PREVIOUS_VERSION)
DEB_PREVIOUS = .build/deb-previous/progressd_$(DEB_PREVIOUS_VERSION)_$(DEB_ARCH).deb
# `make deb DEBIAN=13`: the package for Debian 13, built inside a Debian 13 root that
# scripts/debian13-root.sh makes with mmdebstrap and keeps (its stamp says it is whole), with
# this machine's Swift toolchain bind-mounted (docs/installing.md says why not Debian's swiftlang).
# Its version says the release (0.1.0+deb13): the .deb's name differs from Debian 12's, and on
# a machine upgraded from 12 to 13 it is the newer package. make interop also builds it again
# in another folder, and makes the bare root (apt and the essential packages) it installs on.
DEBIAN ?= 12
DEBIAN13_ROOT = .build/debian13/root
DEBIAN13_BARE_ROOT = .build/debian13/bare
DEB13_VERSION = $(VERSION)+deb13
DEB13_FILE = progressd_$(DEB13_VERSION)_$(DEB_ARCH).deb
DEB13_STAGE = .build/deb13/progressd-$(VERSION)
DEB13_AGAIN_STAGE = .build/deb13-again/progressd-$(VERSION)

.PHONY: all deps interop-deps deb-deps catalogs man build release run test interop bench soak gallery install uninstall \
	deb extension extension-forms clean print-drawing-libraries

all: build

# A package build has its Build-Depends and installs nothing (debian/rules: INSTALL_DEPS=no).
INSTALL_DEPS ?= yes
deps:
	@[ "$(INSTALL_DEPS)" = no ] || sh scripts/install-deps.sh

# What the real-client tests need: libunity's typelib, PyGObject, dunst, Xvfb.
interop-deps: deps
	@sh scripts/install-interop-deps.sh

# What `make deb` needs besides the build's: debhelper, dpkg-dev, fakeroot, lintian, rsync.
deb-deps: deps
	@sh scripts/install-deb-deps.sh

catalogs: deps
	@for po in po/*.po; do \
	    dir="$(LOCALE_BUILD)/$$(basename $$po .po)/LC_MESSAGES"; \
	    mkdir -p "$$dir" && msgfmt --check -o "$$dir/progressd.mo" "$$po" || exit 1; \
	done

man: deps
	@mkdir -p $(MAN_BUILD)
	@# A page's date is its source's last commit, so that a rebuild writes the same page
	@# (outside git, as in make deb's copy, the date of debian/changelog's entry).
	@for page in $(MAN_PAGES); do \
	    date=$$(git log -1 --format=%ct -- "man/$$page.scd" 2>/dev/null); \
	    sed -e 's|@VERSION@|$(VERSION)|g' -e 's|@DATADIR@|$(DATADIR)|g' -e 's|@USERUNITDIR@|$(USERUNITDIR)|g' \
	        "man/$$page.scd" | SOURCE_DATE_EPOCH=$${date:-$${SOURCE_DATE_EPOCH:-$$(date +%s)}} scdoc > "$(MAN_BUILD)/$$page" || exit 1; \
	done

build: deps catalogs man
	$(SWIFT) build

# What is installed: the three programs in one file (the product `progress`; progressctl and
# progress-render are links to progressd), which holds one copy of Swift's runtime. A release
# build of every target would build the tests' support module, which needs XCTest (absent
# from a static-stdlib build such as the package's). Drawing's libraries are loaded when
# something is first drawn (Sources/CCairoLoader), and no build links them (their headers
# come without -l flags, Sources/CCairo/drawing-headers.pc): the check says so of this one.
RELEASE_BIN = $(shell $(SWIFT) build -c release --show-bin-path)
release: deps catalogs man
	$(SWIFT) build -c release $(RELEASE_FLAGS) --product progress
	@if readelf --dynamic "$(RELEASE_BIN)/progress" | grep -E 'NEEDED.*lib(cairo|pango|png|harfbuzz)'; then \
	    echo "progress is linked against the drawing libraries above: see Sources/CCairo/drawing-headers.pc" >&2; exit 1; \
	fi

# The drawing libraries: the two Sources/CCairoLoader opens, and the two whose functions it
# finds through libpangocairo's handle. debian/rules asks for the list, so that the package
# depends on each.
DRAWING_LIBRARIES = libpangocairo-1.0.so.0 libpango-1.0.so.0 libcairo.so.2 libpng16.so.16
print-drawing-libraries:
	@echo $(DRAWING_LIBRARIES)

run: build
	@sh scripts/run-daemon.sh $(DEBUG_BIN)/progressd --locale-directory $(LOCALE_BUILD) $(ARGS)

# Each test runs in a process of its own, three at a time: a test mostly waits on its
# private bus, its daemon and their helpers, so three keep the two cores busy. Every test
# has its own bus and scratch directories; a failing test's output (with its daemon's
# stderr tail) is printed, and the exit status says whether all passed.
TEST_WORKERS ?= 3
# The extension's checks come first: the gjs tests pass for both forms, and the zip follows
# extensions.gnome.org's rules.
test: deps catalogs man extension-forms extension
	gjs -m gnome-shell/tests/runTests.js
	python3 gnome-shell/tests/check-extension-zip.py $(SHELL_EXTENSION_ZIP)
	$(SWIFT) build --build-tests
	PROGRESSD_LOCALE_DIR=$(CURDIR)/$(LOCALE_BUILD) $(SWIFT) test --skip-build --parallel --num-workers $(TEST_WORKERS) \
	    --skip ProgressInteropTests --skip ProgressSoakTests

# Real desktop clients against progressd on private buses (kioclient5 for the KDE bridge;
# libunity, a dock-like listener and dunst under Xvfb for docks and notifications); installs
# what they need first. The tests skip themselves without PROGRESSD_INTEROP=1, and `make test`
# skips them too.
# It builds the Debian package first (make deb), which DebianPackageTests install and use.
# And the Debian 13 package, twice, with the Debian 13 roots its tests run in (Debian13*Tests).
interop: interop-deps catalogs man extension-forms $(DEB_FILE) .build/deb-again/$(DEB_FILE) $(DEB_PREVIOUS) \
	$(DEB13_FILE) .build/deb13-again/$(DEB13_FILE) $(DEBIAN13_BARE_ROOT).stamp
	$(SWIFT) build --build-tests
	PROGRESSD_INTEROP=1 PROGRESSD_DEB=$(CURDIR)/$(DEB_FILE) PROGRESSD_LOCALE_DIR=$(CURDIR)/$(LOCALE_BUILD) \
	PROGRESSD_DEB_BUILDS="$(CURDIR)/.build/deb $(CURDIR)/.build/deb-again" PROGRESSD_DEB_PREVIOUS=$(CURDIR)/$(DEB_PREVIOUS) \
	PROGRESSD_DEB13=$(CURDIR)/$(DEB13_FILE) PROGRESSD_DEB13_BUILDS="$(CURDIR)/.build/deb13 $(CURDIR)/.build/deb13-again" \
	PROGRESSD_DEBIAN13_ROOT=$(CURDIR)/$(DEBIAN13_ROOT) PROGRESSD_DEBIAN13_BARE_ROOT=$(CURDIR)/$(DEBIAN13_BARE_ROOT) \
	    $(SWIFT) test --filter ProgressInteropTests

# The benchmark: progressd (release) against bench/reference on one private bus; see bench/run-bench.py.
# Its gnome_shell rows run Debian 13's GNOME Shell 48 inside the Debian 13 root (made once, as
# for make interop) beside this machine's 43, with the extension's two forms.
BENCH_BUILD = .build/bench
bench: release extension-forms $(DEBIAN13_ROOT).stamp
	$(SWIFT) build -c release --product render-bench
	mkdir -p $(BENCH_BUILD)
	cc -O2 -Wall -o $(BENCH_BUILD)/reference-server bench/reference/reference-server.c $$(pkg-config --cflags --libs gio-2.0)
	cc -O2 -Wall -o $(BENCH_BUILD)/load-client bench/load/load-client.c $$(pkg-config --cflags --libs dbus-1) -lm -lpthread
	cc -O2 -Wall -o $(BENCH_BUILD)/render-bench-c bench/render/render-bench.c $$(pkg-config --cflags --libs pangocairo libpng zlib) -lm
	cc -O2 -Wall -shared -fPIC -o $(BENCH_BUILD)/no-mallopt.so bench/variants/no-mallopt.c
	cp "$(RELEASE_BIN)/progress" $(BENCH_BUILD)/progressd
	cp "$$($(SWIFT) build -c release --show-bin-path)/render-bench" $(BENCH_BUILD)/render-bench-swift
	PROGRESSD_DEBIAN13_ROOT=$(CURDIR)/$(DEBIAN13_ROOT) python3 bench/run-bench.py $(BENCH_BUILD) $(BENCH_ARGS)

# Every style, theme and state of progress-render, into docs/gallery/ (shown in the README).
gallery: build
	sh scripts/gallery.sh $(DEBUG_BIN)/progress-render docs/gallery

# What depends on the machine (Tests/ProgressSoakTests: resident memory, floods of thousands
# of tasks, the long soak and fuzz), and the fault tests again. The defaults are sized for CI
# (about five minutes on two busy cores); the README's goals were measured with
# SOAK_SECONDS=60 FUZZ_CALLS=20000 SOAK_CONNECTIONS=100000.
SOAK_SECONDS ?= 10
FUZZ_CALLS ?= 3000
# Short-lived connections (each starts a `caller` task and leaves) after which the daemon
# must be within 2 MB (at 100,000; less in proportion) of its size before them.
SOAK_CONNECTIONS ?= 3000
soak: deps catalogs
	$(SWIFT) build --build-tests
	SOAK_SECONDS=$(SOAK_SECONDS) FUZZ_CALLS=$(FUZZ_CALLS) SOAK_CONNECTIONS=$(SOAK_CONNECTIONS) PROGRESSD_LOCALE_DIR=$(CURDIR)/$(LOCALE_BUILD) \
	    $(SWIFT) test --filter 'ProgressSoakTests|FaultTests|RestartTests'

install: release extension-forms
	install -Dm755 "$(RELEASE_BIN)/progress" "$(DESTDIR)$(BINDIR)/progressd"
	ln -sf progressd "$(DESTDIR)$(BINDIR)/progressctl"
	ln -sf progressd "$(DESTDIR)$(BINDIR)/progress-render"
	install -Dm644 dbus/org.progressd.Progress1.xml "$(DESTDIR)$(DATADIR)/dbus-1/interfaces/org.progressd.Progress1.xml"
	sed 's|@bindir@|$(BINDIR)|g' dbus/org.progressd.Progress1.service > progressd.dbus-service.tmp
	install -Dm644 progressd.dbus-service.tmp "$(DESTDIR)$(DATADIR)/dbus-1/services/org.progressd.Progress1.service"
	sed 's|@bindir@|$(BINDIR)|g' systemd/progressd.service > progressd.unit.tmp
	install -Dm644 progressd.unit.tmp "$(DESTDIR)$(USERUNITDIR)/progressd.service"
	rm -f progressd.dbus-service.tmp progressd.unit.tmp
	install -Dm644 dbus/org.progressd.Renderer1.xml "$(DESTDIR)$(DATADIR)/dbus-1/interfaces/org.progressd.Renderer1.xml"
	sed 's|@bindir@|$(BINDIR)|g' dbus/org.progressd.Renderer1.service > renderer.dbus-service.tmp
	install -Dm644 renderer.dbus-service.tmp "$(DESTDIR)$(DATADIR)/dbus-1/services/org.progressd.Renderer1.service"
	sed 's|@bindir@|$(BINDIR)|g' systemd/progress-render.service > renderer.unit.tmp
	install -Dm644 renderer.unit.tmp "$(DESTDIR)$(USERUNITDIR)/progress-render.service"
	rm -f renderer.dbus-service.tmp renderer.unit.tmp
	for po in po/*.po; do \
	    lang=$$(basename $$po .po); \
	    install -Dm644 "$(LOCALE_BUILD)/$$lang/LC_MESSAGES/progressd.mo" \
	        "$(DESTDIR)$(DATADIR)/locale/$$lang/LC_MESSAGES/progressd.mo"; \
	done
	for page in $(MAN_PAGES); do \
	    install -Dm644 "$(MAN_BUILD)/$$page" "$(DESTDIR)$(MANDIR)/man$${page##*.}/$$page" || exit 1; \
	done
	for file in $(SHELL_EXTENSION_BUILD)/*; do \
	    install -Dm644 "$$file" "$(DESTDIR)$(SHELL_EXTENSIONDIR)/$$(basename $$file)" || exit 1; \
	done
	for program in $(PROGRAMS); do \
	    install -Dm644 "completions/$$program.bash" "$(DESTDIR)$(BASHCOMPDIR)/$$program" && \
	    install -Dm644 "completions/_$$program" "$(DESTDIR)$(ZSHCOMPDIR)/_$$program" && \
	    install -Dm644 "completions/$$program.fish" "$(DESTDIR)$(FISHCOMPDIR)/$$program.fish" || exit 1; \
	done

uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/progressd" "$(DESTDIR)$(BINDIR)/progressctl" "$(DESTDIR)$(BINDIR)/progress-render" \
	    "$(DESTDIR)$(DATADIR)/dbus-1/interfaces/org.progressd.Progress1.xml" \
	    "$(DESTDIR)$(DATADIR)/dbus-1/services/org.progressd.Progress1.service" \
	    "$(DESTDIR)$(USERUNITDIR)/progressd.service" \
	    "$(DESTDIR)$(DATADIR)/dbus-1/interfaces/org.progressd.Renderer1.xml" \
	    "$(DESTDIR)$(DATADIR)/dbus-1/services/org.progressd.Renderer1.service" \
	    "$(DESTDIR)$(USERUNITDIR)/progress-render.service" \
	    $(patsubst po/%.po,"$(DESTDIR)$(DATADIR)/locale/%/LC_MESSAGES/progressd.mo",$(wildcard po/*.po)) \
	    $(foreach page,$(MAN_PAGES),"$(DESTDIR)$(MANDIR)/man$(subst .,,$(suffix $(page)))/$(page)") \
	    $(foreach file,$(SHELL_EXTENSION_NAMES),"$(DESTDIR)$(SHELL_EXTENSIONDIR)/$(file)") \
	    $(foreach program,$(PROGRAMS),"$(DESTDIR)$(BASHCOMPDIR)/$(program)" "$(DESTDIR)$(ZSHCOMPDIR)/_$(program)" \
	        "$(DESTDIR)$(FISHCOMPDIR)/$(program).fish")
	rmdir "$(DESTDIR)$(SHELL_EXTENSIONDIR)" 2>/dev/null || true

# Both forms of the extension, written from gnome-shell/ into their build folders (a file
# already as it should be is left alone).
extension-forms: $(SHELL_EXTENSION_BUILD_43)/metadata.json $(SHELL_EXTENSION_BUILD_45)/metadata.json
$(SHELL_EXTENSION_BUILD_43)/metadata.json: $(SHELL_EXTENSION_SOURCES)
	python3 scripts/shell-extension.py legacy $(SHELL_EXTENSION_BUILD_43)
	touch $@
$(SHELL_EXTENSION_BUILD_45)/metadata.json: $(SHELL_EXTENSION_SOURCES)
	python3 scripts/shell-extension.py assemble $(SHELL_EXTENSION_BUILD_45)
	touch $@

# The 45-and-later extension's zip for extensions.gnome.org (see SHELL_EXTENSION_ZIP).
extension: $(SHELL_EXTENSION_ZIP)
$(SHELL_EXTENSION_ZIP): $(SHELL_EXTENSION_BUILD_45)/metadata.json
	python3 scripts/shell-extension.py zip $(SHELL_EXTENSION_BUILD_45) $@

# The Debian package (debian/), built as debian/rules says, then checked by lintian; built
# again only when what goes into it changed.
DEB_INPUTS = Makefile Package.swift $(shell find Sources debian dbus systemd man po completions gnome-shell -type f 2>/dev/null)
deb: $(if $(filter 13,$(DEBIAN)),$(DEB13_FILE),$(DEB_FILE))
$(DEB_FILE): $(DEB_INPUTS) | deb-deps
	sh scripts/build-deb.sh . $(DEB_STAGE)
	lintian --fail-on error $(DEB_STAGE)/../$(DEB_FILE)
	cp $(DEB_STAGE)/../$(DEB_FILE) $(DEB_FILE)

# Debian 13's: built and checked by Debian 13's lintian inside its root (scripts/in-root.sh).
# The roots are made once (a list of packages that changed makes them again).
$(DEBIAN13_ROOT).stamp: scripts/debian13-root.sh
	sh scripts/debian13-root.sh $(DEBIAN13_ROOT)
$(DEBIAN13_BARE_ROOT).stamp: scripts/debian13-root.sh
	sh scripts/debian13-root.sh $(DEBIAN13_BARE_ROOT) --bare
$(DEB13_FILE): $(DEB_INPUTS) $(DEBIAN13_ROOT).stamp | deb-deps
	sh scripts/build-deb.sh . $(DEB13_STAGE) $(DEB13_VERSION) $(DEBIAN13_ROOT)
	sh scripts/in-root.sh $(DEBIAN13_ROOT) --bind $(CURDIR)/.build/deb13 -- \
	    lintian --fail-on error $(CURDIR)/.build/deb13/$(DEB13_FILE)
	cp .build/deb13/$(DEB13_FILE) $(DEB13_FILE)

# make interop's two other builds (scripts/build-deb.sh): make deb's copy built again in
# another folder, which must give the same bytes, and this tree as the version before it,
# which DebianUpgradeTests install and upgrade from.
.build/deb-again/$(DEB_FILE): $(DEB_FILE)
	sh scripts/build-deb.sh $(DEB_STAGE) $(DEB_AGAIN_STAGE)
.build/deb13-again/$(DEB13_FILE): $(DEB13_FILE)
	sh scripts/build-deb.sh $(DEB13_STAGE) $(DEB13_AGAIN_STAGE) $(DEB13_VERSION) $(DEBIAN13_ROOT)
$(DEB_PREVIOUS): $(DEB_INPUTS) | deb-deps
	sh scripts/build-deb.sh . $(DEB_PREVIOUS_STAGE) $(DEB_PREVIOUS_VERSION)

clean:
	$(SWIFT) package clean
	rm -f $(SHELL_EXTENSION_ZIP)
