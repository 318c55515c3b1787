# make install / make uninstall / make deb, included by the Makefile.
#   make install [PREFIX=/usr/local] [DESTDIR=stage]
#   make uninstall (the same PREFIX and DESTDIR)
#   make deb       build/deb/xdpleaf_VERSION_ARCH.deb (debian/)
# What goes where (docs/operations.md, "Installing"): the command in
# SBINDIR; the daemon's systemd template unit in UNITDIR, its ExecStart
# pointing at that command; a man page per command in MANDIR/man8, written
# by help2man from the commands' --help (scripts/man.sh); the bash
# completion, written by the command from its own tables ('xdpleaf
# completion bash'); README, LICENSE, docs/ and example configurations in
# DOCDIR. The pages and the completion are made from the binary, so they
# cannot say other than it does.

PREFIX      ?= /usr/local
SBINDIR     ?= $(PREFIX)/sbin
MANDIR      ?= $(PREFIX)/share/man
DOCDIR      ?= $(PREFIX)/share/doc/xdpleaf
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
# systemd reads /usr/local/lib/systemd/system as well as /usr/lib/...
UNITDIR     ?= $(PREFIX)/lib/systemd/system
INSTALL     ?= install

UNIT := xdpleaf-daemon@.service
DOC_FILES := README.md LICENSE $(wildcard docs/*.md docs/*.json docs/*.yml docs/*.txt)
DOC_IMAGES := $(wildcard docs/img/*.png)
EXAMPLES := lab/leaf1.conf lab/leaf2.conf

.PHONY: man completion install uninstall deb

# xdpleaf.8 is written last: the stamp of the whole set.
$(BUILD)/man/xdpleaf.8: $(BUILD)/xdpleaf scripts/man.sh
	scripts/man.sh $(BUILD)/xdpleaf $(BUILD)/man
man: $(BUILD)/man/xdpleaf.8

$(BUILD)/completion/xdpleaf: $(BUILD)/xdpleaf
	@mkdir -p $(@D)
	$(BUILD)/xdpleaf completion bash >$@.tmp && mv $@.tmp $@
completion: $(BUILD)/completion/xdpleaf

install: $(BUILD)/xdpleaf man completion
	$(INSTALL) -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(DOCDIR)/docs/img $(DESTDIR)$(DOCDIR)/examples
	$(INSTALL) -m 0755 $(BUILD)/xdpleaf $(DESTDIR)$(SBINDIR)/xdpleaf
	sed 's|@SBINDIR@|$(SBINDIR)|g' scripts/$(UNIT).in >$(DESTDIR)$(UNITDIR)/$(UNIT).tmp
	mv $(DESTDIR)$(UNITDIR)/$(UNIT).tmp $(DESTDIR)$(UNITDIR)/$(UNIT)
	chmod 0644 $(DESTDIR)$(UNITDIR)/$(UNIT)
	$(INSTALL) -m 0644 $(BUILD)/man/*.8 $(DESTDIR)$(MANDIR)/man8/
	$(INSTALL) -m 0644 $(BUILD)/completion/xdpleaf $(DESTDIR)$(BASHCOMPDIR)/xdpleaf
	$(INSTALL) -m 0644 README.md LICENSE $(DESTDIR)$(DOCDIR)/
	$(INSTALL) -m 0644 $(filter docs/%,$(DOC_FILES)) $(DESTDIR)$(DOCDIR)/docs/
	$(INSTALL) -m 0644 $(DOC_IMAGES) $(DESTDIR)$(DOCDIR)/docs/img/
	$(INSTALL) -m 0644 $(EXAMPLES) $(DESTDIR)$(DOCDIR)/examples/

# What install wrote, and nothing else: the man pages by their names
# (xdpleaf.8, xdpleaf-*.8), DOCDIR as a whole (it is xdpleaf's own). The
# directories stay: others may share them (/usr/local/sbin).
uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/xdpleaf $(DESTDIR)$(UNITDIR)/$(UNIT) \
		$(DESTDIR)$(BASHCOMPDIR)/xdpleaf \
		$(DESTDIR)$(MANDIR)/man8/xdpleaf.8 $(DESTDIR)$(MANDIR)/man8/xdpleaf-*.8
	rm -rf $(DESTDIR)$(DOCDIR)

# dpkg-buildpackage in a copy of the tree under build/deb/, so that the
# tree itself gets no build files; the commit is this tree's.
deb:
	scripts/deb.sh $(BUILD)/deb '$(XL_GIT_COMMIT)'
