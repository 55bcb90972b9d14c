#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""
test-registry-lists.py [--self-test] SOURCE_ROOT LIST_REGISTRY

Every list of sources and output types in barod(8), barod.conf(5) and the
sample barod.conf names exactly what barod registers, and every
registered source has its ops, every output type its sink and transport:
LIST_REGISTRY (tests/daemon/list-registry.c, linked with the daemon)
prints the registries, and each list below is read out of its file and
compared, both ways.  A failure names the file, the line, the list and
what is missing or extra.  Options and keys are test-options' (they come
from the option table).

--self-test runs the checks against registries with a source and an
output type taken away and one of each added, and fails unless every
list reports both.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from doclists import (Checker as ListChecker, Page,  # noqa: E402
                      arguments, between, output_lines, self_test_verdict,
                      verdict)


class Registry:
    def __init__(self, lines, lister):
        self.sources = {}   # name -> has ops
        self.flags = {}     # name -> has a --NAME option row
        self.outputs = {}   # prefix -> (name, has sink, has transport)
        self.lister = lister
        for line in lines:
            f = line.split()
            if not f:
                continue
            if f[0] == "source" and len(f) == 4:
                self.sources[f[1]] = f[2] == "ops"
                self.flags[f[1]] = f[3] == "flag"
            elif f[0] == "output" and len(f) == 5:
                self.outputs[f[1]] = (f[2], f[3] == "sink",
                                      f[4] == "transport")
            else:
                raise SystemExit("list-registry: bad line: %r" % line)

    def alias(self, prefix):
        """Whether barod's -o parser reads PREFIX:... as another
        registered type (udpout: is udp:)."""
        r = subprocess.run([self.lister, "--parse",
                            prefix + ":127.0.0.1:14550"],
                           capture_output=True, text=True)
        canon = r.stdout.strip()
        return r.returncode == 0 and canon != prefix and \
            canon in self.outputs



def check(root, reg):
    chk = ListChecker()
    errors = chk.errors

    def run(label, fn):
        try:
            fn()
        except (LookupError, ValueError) as e:
            errors.append("%s: cannot read the list: %s" % (label, e))

    for name, ops in sorted(reg.sources.items()):
        if not ops:
            errors.append("src/daemon/sources/registry.c (a source's "
                          "ops): %s has none" % name)
        # --help and "no source" list the sources as --NAME.
        if not reg.flags[name]:
            errors.append("src/daemon/config/options.c (a source's flag): "
                          "no --%s row" % name)
    for prefix, (name, sink, transport) in sorted(reg.outputs.items()):
        if not sink:
            errors.append("src/daemon/sinks/sinks.c (an output's sink): "
                          "%s has none" % name)
        if not transport:
            errors.append("src/daemon/transports/transports.c (an "
                          "output's transport): %s has none" % name)

    man8 = Page(root, "doc/barod.8.scd")

    def man8_sources():
        i = man8.find(r"^- \*[a-z0-9-]+\*: ")
        found = []
        while i < len(man8.lines) and man8.lines[i].strip():
            m = re.match(r"^- \*([a-z0-9-]+)\*: ", man8.lines[i])
            if m:
                found.append(m.group(1))
            i += 1
        chk.same("%s:%d" % (man8.path, i), "the sources", found,
             reg.sources)

    def man8_outputs():
        i = man8.find(r"^\*-o\*, \*--output\*")
        text = man8.paragraph(i + 1)
        found = set(re.findall(r"\*([a-z0-9-]+):\*", text))
        aliases = {p for p in found - set(reg.outputs) if reg.alias(p)}
        chk.same("%s:%d" % (man8.path, i + 2), "-o's output types",
             found - aliases, reg.outputs)

    def man8_flags():
        i = man8.find(r"^One source: the options ")
        text = man8.paragraph(i)
        found = re.findall(r"\*--([a-z0-9-]+)\*",
                           between(text, "the options ", " exclude"))
        chk.same("%s:%d" % (man8.path, i + 1), "the source flags",
             found, reg.sources)

    run(man8.path, man8_sources)
    run(man8.path, man8_flags)
    run(man8.path, man8_outputs)

    def help_outputs():
        out = subprocess.run([reg.lister, "--help"], capture_output=True,
                             text=True, check=True).stdout
        text = " ".join(out.split())
        i = text.index("--output SPEC") + len("--output SPEC")
        j = text.index(" -", i)     # the next option
        found = set(re.findall(r"\b([a-z0-9-]+):[A-Z]", text[i:j]))
        aliases = {p for p in found - set(reg.outputs) if reg.alias(p)}
        chk.same("barod --help", "-o's output types", found - aliases,
             reg.outputs)

    run("barod --help", help_outputs)

    man5 = Page(root, "doc/barod.conf.5.scd")

    def man5_source():
        i = man5.find(r"^\*source\* = ")
        found = re.findall(r"\*([a-z0-9-]+)\*", man5.lines[i])[1:]
        chk.same("%s:%d" % (man5.path, i + 1), "source = NAME", found,
             reg.sources)

    run(man5.path, man5_source)

    conf = Page(root, "src/daemon/config/barod.conf")

    def conf_source():
        i = conf.find(r"^# Where samples come from: ")
        text = " ".join(l[2:] for l in conf.lines[i:i + 4]
                        if l.startswith("# "))
        text = re.sub(r"\([^)]*\)", "", text.split(": ", 1)[1])
        text = text.split(".")[0]
        found = re.findall(r"[a-z0-9-]+", text.replace(" or ", ", "))
        chk.same("%s:%d" % (conf.path, i + 1), "source: the sources",
             found, reg.sources)

    run(conf.path, conf_source)
    return errors


def main(argv):
    self_test, (root, lister) = arguments(argv, 2, __doc__)
    reg = Registry(output_lines(lister), lister)
    if not self_test:
        return verdict(argv[0], check(root, reg),
                       "%d sources, %d output types"
                       % (len(reg.sources), len(reg.outputs)))

    # hardware and msp-udp gone; a source fakesrc without ops and an
    # output fakeout without sink or transport added.
    lines = ["source %s %s flag" % (n, "ops" if o else "-")
             for n, o in reg.sources.items() if n != "hardware"]
    lines.append("source fakesrc - -")
    lines += ["output %s %s sink transport" % (p, v[0])
              for p, v in reg.outputs.items() if p != "msp-udp"]
    lines.append("output fakeout fakeout - -")
    errors = check(root, Registry(lines, lister))
    for e in errors:
        print("as expected: " + e)
    expect = [
        ("a source's ops", r"fakesrc has none"),
        ("a source's flag", r"no --fakesrc row"),
        ("the source flags", r"missing fakesrc extra hardware"),
        ("an output's sink", r"fakeout has none"),
        ("an output's transport", r"fakeout has none"),
        ("the sources", r"missing fakesrc extra hardware"),
        ("-o's output types", r"missing fakeout extra msp-udp"),
        ("source = NAME", r"missing fakesrc extra hardware"),
        ("source: the sources", r"missing fakesrc extra hardware"),
    ]
    return self_test_verdict(errors, expect)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
