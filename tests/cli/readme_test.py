#!/usr/bin/env python3
"""Runs the examples of one section of a Markdown page (docs/CLI.md's
"Examples") and checks their output, so that the page cannot drift from the
tool.

    readme_test.py PAGE.md SECTION_TITLE TOOL_DIR

In each ```console block of the section, a line starting with "$ " is a
command (run with bash in a fresh temporary directory shared by the whole
section, TOOL_DIR first on PATH, stderr merged into stdout as a terminal
shows it); the lines up to the next command are its expected output. An
expected line "..." stands for any number of lines, and a line ending in
"..." for any line starting with what comes before. For a command ending in
"# figures vary ..." (timings), only the exit status and each line's label
(up to its first ':') are checked.
"""
import os
import re
import subprocess
import sys
import tempfile


def section(readme, title):
    match = re.search(r"^## %s\n(.*?)(?=^## |\Z)" % re.escape(title), readme,
                      re.S | re.M)
    if not match:
        sys.exit("the page has no section '## %s'" % title)
    return match.group(1)


def examples(text):
    """(command, expected output lines) pairs, in order."""
    pairs = []
    for block in re.findall(r"^```console\n(.*?)^```", text, re.S | re.M):
        for line in block.splitlines():
            if line.startswith("$ "):
                pairs.append((line[2:], []))
            elif pairs:
                pairs[-1][1].append(line)
            else:
                sys.exit("output before any command: %r" % line)
    return pairs


def pattern(expected):
    parts = []
    for line in expected:
        if line == "...":
            parts.append(r"(?:.*\n)*?")
        elif line.endswith("..."):
            parts.append(re.escape(line[:-3]) + r".*\n")
        else:
            parts.append(re.escape(line) + r"\n")
    return re.compile("".join(parts))


def labels(line):
    return line.split(":")[0]


def main():
    page_path, title = sys.argv[1], sys.argv[2]
    tool_dir = os.path.abspath(sys.argv[3])
    with open(page_path) as f:
        pairs = examples(section(f.read(), title))
    if not pairs:
        sys.exit("no examples found")
    env = dict(os.environ, PATH=tool_dir + os.pathsep + os.environ["PATH"])
    failures = 0
    with tempfile.TemporaryDirectory(prefix="blockbloom_readme_") as work:
        for command, expected in pairs:
            result = subprocess.run(["bash", "-c", command], cwd=work, env=env,
                                    stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, timeout=300)
            output = result.stdout.decode(errors="replace")
            if re.search(r"#\s*figures vary", command):
                ok = result.returncode == 0 and ([labels(l) for l in expected]
                                                 == [labels(l) for l in
                                                     output.splitlines()])
            else:
                ok = pattern(expected).fullmatch(output)
            if not ok:
                failures += 1
                print("FAILED: $ %s\n--- expected:\n%s\n--- got:\n%s" %
                      (command, "\n".join(expected), output))
            else:
                print("ok: $ %s" % command)
    print("%d of %d examples failed" % (failures, len(pairs)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
