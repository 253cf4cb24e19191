#!/usr/bin/python3
"""Builds the pinned corpus of the inliner benchmark (docs/benchmark.md).

    scripts/build-benchmark-corpus.py [-o OUT] [--packages a,b] [--list FILE] [--ir2vec PATH]

Each package of bench/benchmark/packages.json is downloaded with `apt-get source
--download-only SOURCE=VERSION`, every downloaded file is checked against its pinned SHA-256
(a package whose files differ, or that has files the list does not name, is refused: nothing is
built from it), unpacked with its Debian patches (dpkg-source -x), built with its own build
system (cmake, configure or make) by clang-22 with the list's flags, so that every object
carries its module and its -cc1 command line; `ir2vec corpus extract` then makes one corpus of
all packages, each module named PACKAGE/PATH.o.

OUT (default build/benchmark-corpus) gets corpus_description.json, the modules, manifest.json
(schema ir2vec.benchmark-corpus/1: per package its version, the SHA-256 of its files, compiler,
flags, module count, build seconds, or why it failed) and logs/PACKAGE.log. A corpus already in
OUT that was built from the same list is reused (nothing is downloaded). The corpus is built
beside OUT and moved into place when complete: an interrupted build leaves no corpus.

Exit status: 0 every package built; 2 some packages failed to build (reported, named in the
manifest; the corpus holds the others); 1 nothing usable, a refused source (hash mismatch), or a
usage error.
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA = "ir2vec.benchmark-corpus/1"
LIST_SCHEMA = "ir2vec.benchmark-packages/1"


class Refused(Exception):
    pass


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def read_list(path):
    with open(path) as f:
        try:
            doc = json.load(f)
        except ValueError as e:
            raise Refused(f"{path}: not JSON: {e}")
    if not isinstance(doc, dict):
        raise Refused(f"{path}: expected a JSON object")
    if doc.get("schema") != LIST_SCHEMA:
        raise Refused(f"{path}: schema {doc.get('schema')!r}, expected {LIST_SCHEMA!r}")
    for key, typ in (("packages", list), ("compiler", dict), ("flags", list), ("tools", list)):
        if not isinstance(doc.get(key), typ):
            raise Refused(f"{path}: '{key}': expected a JSON {typ.__name__}")
    names = set()
    for i, p in enumerate(doc["packages"]):
        if not isinstance(p, dict):
            raise Refused(f"{path}: packages[{i}]: expected an object")
        for key in ("name", "source", "version", "language", "build", "files"):
            if key not in p:
                raise Refused(f"{path}: packages[{i}]: no '{key}'")
        for key in ("name", "source", "version", "language", "build"):
            if not isinstance(p[key], str):
                raise Refused(f"{path}: packages[{i}].{key}: expected a string")
        if not isinstance(p["files"], dict) or not all(isinstance(h, str) for h in p["files"].values()):
            raise Refused(f"{path}: packages[{i}].files: expected an object of file: SHA-256")
        # A name becomes a directory and a module-name component: plain names only.
        import re
        if p["name"] in names or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9.+_-]*", p["name"]):
            raise Refused(f"{path}: packages[{i}]: name {p['name']!r} repeated or not a plain name")
        if p["build"] not in BUILDERS:
            raise Refused(f"{path}: packages[{i}]: build {p['build']!r}, expected one of "
                          + ", ".join(BUILDERS))
        names.add(p["name"])
    return doc


def is_corpus(man_path):
    """Whether man_path is the manifest of a corpus this script built."""
    try:
        with open(man_path) as f:
            return json.load(f).get("schema") == SCHEMA
    except (OSError, ValueError, AttributeError):
        return False


def list_digest(doc):
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


class Progress:
    """One line on a terminal (done/total, rate, ETA); nothing in a pipe."""

    def __init__(self, total):
        self.total, self.done, self.start = total, 0, time.monotonic()
        self.tty = sys.stderr.isatty()

    def show(self, what):
        if not self.tty:
            return
        el = time.monotonic() - self.start
        eta = ""
        if self.done:
            eta = f", ETA {int(el / self.done * (self.total - self.done))} s"
        sys.stderr.write(f"\r\033[Kcorpus: {self.done}/{self.total} packages, {int(el)} s{eta}: {what}")
        sys.stderr.flush()

    def clear(self):
        if self.tty:
            sys.stderr.write("\r\033[K")


def has_deb_src():
    d = "/etc/apt/sources.list.d"
    files = [os.path.join(d, f) for f in (os.listdir(d) if os.path.isdir(d) else [])]
    for f in files + ["/etc/apt/sources.list"]:
        try:
            text = open(f).read()
        except OSError:
            continue
        if re.search(r"^Types:.*deb-src", text, re.M) or re.search(r"^deb-src\s", text, re.M):
            return True
    return False


def add_deb_src(log):
    """A fresh Debian has no deb-src entries: add ones mirroring the machine's deb entries (same
    archive, suites and keys), as ../shared/corpus/build-corpus.sh does. Needs root."""
    if has_deb_src():
        return
    if os.geteuid() != 0:
        raise Refused("the machine has no deb-src entries for apt-get source (run as root to "
                      "have them added, or add them)")
    d = "/etc/apt/sources.list.d"
    stanzas = []
    for f in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        if not f.endswith(".sources"):
            continue
        for st in re.split(r"\n\s*\n", open(os.path.join(d, f)).read()):
            if re.search(r"^Types:[ \t]*deb([ \t]|$)", st, re.M) and not re.search(r"^Enabled:[ \t]*no", st, re.M):
                stanzas.append(re.sub(r"^Types:.*$", "Types: deb-src", st.strip(), flags=re.M))
    lines = []
    try:
        lines = [re.sub(r"^deb ", "deb-src ", l) for l in open("/etc/apt/sources.list") if l.startswith("deb ")]
    except OSError:
        pass
    if stanzas:
        with open(os.path.join(d, "benchmark-deb-src.sources"), "w") as f:
            f.write("\n\n".join(stanzas) + "\n")
    if lines:
        with open(os.path.join(d, "benchmark-deb-src.list"), "w") as f:
            f.writelines(lines)
    subprocess.run(["apt-get", "update", "-qq"], stdout=log, stderr=log)


def download(pkg, dest, log):
    """apt-get source --download-only SOURCE=VERSION into dest; then the pinned check."""
    os.makedirs(dest, exist_ok=True)
    spec = f"{pkg['source']}={pkg['version']}"
    # apt allows one client at a time: serialise with other builders on this machine.
    with open("/tmp/build-corpus.lock", "w") as lock:
        import fcntl
        fcntl.flock(lock, fcntl.LOCK_EX)
        add_deb_src(log)
        r = subprocess.run(["apt-get", "source", "--download-only", "-qq", spec], cwd=dest,
                           stdout=log, stderr=log)
    if r.returncode != 0:
        raise Refused(f"apt-get source could not download {spec} (see the log; does the machine "
                      "have deb-src entries?)")
    check_files(pkg, dest)


def check_files(pkg, dest):
    got = {f for f in os.listdir(dest) if not f.endswith(".asc")}
    want = set(pkg["files"])
    if got - want:
        raise Refused(f"{pkg['name']}: downloaded files the list does not pin: "
                      + ", ".join(sorted(got - want)))
    if want - got:
        raise Refused(f"{pkg['name']}: pinned files not downloaded: " + ", ".join(sorted(want - got)))
    for f in sorted(want):
        h = sha256(os.path.join(dest, f))
        if h != pkg["files"][f]:
            raise Refused(f"{pkg['name']}: {f} has SHA-256 {h}, the list pins {pkg['files'][f]}: "
                          "refusing to build sources that differ")


def run(cmd, cwd, log, env, timeout):
    log.write("$ " + " ".join(cmd) + "\n")
    log.flush()
    subprocess.run(cmd, cwd=cwd, stdout=log, stderr=subprocess.STDOUT, env=env, check=True,
                   timeout=timeout)


def build_cmake(pkg, src, env, log, jobs, timeout, flags):
    b = os.path.join(src, "_build")
    fl = " ".join(flags)
    run(["cmake", "-S", src, "-B", b, "-DCMAKE_BUILD_TYPE=None", "-DBUILD_SHARED_LIBS=OFF",
         "-DBUILD_TESTING=OFF", f"-DCMAKE_C_FLAGS={fl}", f"-DCMAKE_CXX_FLAGS={fl}",
         "-DCMAKE_C_COMPILER=" + env["CC"], "-DCMAKE_CXX_COMPILER=" + env["CXX"]]
        + pkg.get("args", []), src, log, env, timeout)
    run(["cmake", "--build", b, "-j", str(jobs)] + pkg.get("targets", []), src, log, env, timeout)


def build_configure(pkg, src, env, log, jobs, timeout, flags):
    if not os.path.exists(os.path.join(src, "configure")):
        run(["autoreconf", "-fi"], src, log, env, timeout)
    fl = " ".join(flags)
    run(["./configure", f"CFLAGS={fl}", f"CXXFLAGS={fl}"] + pkg.get("args", []), src, log, env,
        timeout)
    run(["make", f"-j{jobs}"] + pkg.get("targets", []), src, log, env, timeout)


def build_make(pkg, src, env, log, jobs, timeout, flags):
    fl = " ".join(flags)
    run(["make", f"-j{jobs}", f"CC={env['CC']}", f"CXX={env['CXX']}", f"CFLAGS={fl}",
         f"CXXFLAGS={fl}"] + pkg.get("targets", []), src, log, env, timeout)


BUILDERS = {"cmake": build_cmake, "configure": build_configure, "make": build_make}


def build_package(pkg, doc, work, logs, jobs, timeout):
    """Downloads, checks, unpacks and builds one package; returns its build directory."""
    name = pkg["name"]
    dl, src = os.path.join(work, "dl", name), os.path.join(work, "build", name)
    with open(os.path.join(logs, name + ".log"), "w") as log:
        download(pkg, dl, log)
        dsc = [f for f in pkg["files"] if f.endswith(".dsc")]
        if len(dsc) != 1:
            raise Refused(f"{name}: the list pins {len(dsc)} .dsc files, expected one")
        os.makedirs(os.path.dirname(src), exist_ok=True)
        # The files were checked above against the pinned hashes (stronger than the .dsc's
        # own checksums, which come from the same download).
        run(["dpkg-source", "--no-check", "-x", os.path.join(dl, dsc[0]), src], work, log,
            os.environ, timeout)
        env = dict(os.environ, CC=doc["compiler"]["c"], CXX=doc["compiler"]["c++"],
                   LC_ALL="C", SOURCE_DATE_EPOCH="0")
        # A package's own flags (a header directory its Debian build finds by itself) follow
        # the list's.
        BUILDERS[pkg["build"]](pkg, src, env, log, jobs, timeout,
                               doc["flags"] + pkg.get("cflags", []))
    return src


def install_tools(doc):
    """The build tools the list names, installed when missing (needs root)."""
    missing = [t for t in doc["tools"] if subprocess.run(
        ["dpkg-query", "-W", "-f=${Status}", t], capture_output=True, text=True
    ).stdout.find("install ok installed") < 0]
    if not missing:
        return
    if os.geteuid() != 0:
        raise Refused("missing packages: " + " ".join(missing) + " (run as root, or install them)")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    with open("/tmp/build-corpus.lock", "w") as lock:
        import fcntl
        fcntl.flock(lock, fcntl.LOCK_EX)
        subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends"] + missing,
                       env=env, check=True, stdout=subprocess.DEVNULL)


def tool_version(cmd):
    try:
        out = subprocess.run([cmd, "--version"], capture_output=True, text=True).stdout
        return out.splitlines()[0] if out else ""
    except OSError:
        return ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-o", "--output", default=os.path.join(REPO, "build", "benchmark-corpus"))
    ap.add_argument("--list", default=os.path.join(REPO, "bench", "benchmark", "packages.json"))
    ap.add_argument("--packages", help="only these packages (comma-separated names)")
    ap.add_argument("--ir2vec", default=os.path.join(REPO, "build", "bin", "ir2vec"))
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=int, default=1800, help="seconds per build step")
    a = ap.parse_args()
    try:
        doc = read_list(a.list)
    except (OSError, ValueError, Refused) as e:
        print(f"build-benchmark-corpus: {e}", file=sys.stderr)
        return 1
    pkgs = doc["packages"]
    if a.packages is not None:
        want = a.packages.split(",")
        unknown = [w for w in want if w not in {p["name"] for p in pkgs}]
        if unknown:
            print(f"build-benchmark-corpus: not in {a.list}: {', '.join(unknown)}", file=sys.stderr)
            return 1
        pkgs = [p for p in pkgs if p["name"] in want]
    digest = list_digest({"list": doc, "packages": [p["name"] for p in pkgs]})
    out = os.path.abspath(a.output)
    man_path = os.path.join(out, "manifest.json")
    if os.path.exists(man_path):
        try:
            with open(man_path) as f:
                old = json.load(f)
            if old.get("schema") == SCHEMA and old.get("list_sha256") == digest and \
                    os.path.exists(os.path.join(out, "corpus_description.json")):
                print(f"build-benchmark-corpus: reusing {out} ({old['modules']} modules of "
                      f"{old['built']} packages)", file=sys.stderr)
                return 0 if not old["failed"] else 2
        except (OSError, ValueError, KeyError):
            pass
    if os.path.islink(out) or (os.path.exists(out) and not os.path.isdir(out)):
        print(f"build-benchmark-corpus: {out} is not a directory (or is a link); give a "
              "directory for the corpus", file=sys.stderr)
        return 1
    if os.path.exists(out) and os.listdir(out) and not is_corpus(man_path):
        # Only a directory this script made is replaced: a manifest.json of some other
        # project does not make a directory ours.
        print(f"build-benchmark-corpus: {out} exists and is not a benchmark corpus; refusing to "
              "replace it", file=sys.stderr)
        return 1
    try:
        install_tools(doc)
    except (Refused, subprocess.CalledProcessError) as e:
        print(f"build-benchmark-corpus: {e}", file=sys.stderr)
        return 1
    parent = os.path.dirname(out)
    os.makedirs(parent, exist_ok=True)
    start = time.time()
    work = tempfile.mkdtemp(prefix=".benchmark-corpus-", dir=parent)
    try:
        return build_all(a, doc, pkgs, digest, out, work, start)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def build_all(a, doc, pkgs, digest, out, work, start):
    staged = os.path.join(work, "corpus")
    logs = os.path.join(work, "logs")
    os.makedirs(logs)
    entries, built = [], []
    prog = Progress(len(pkgs))
    for pkg in pkgs:
        prog.show(pkg["name"])
        t0 = time.monotonic()
        e = {k: pkg[k] for k in ("name", "source", "version", "language", "build")}
        e["files"] = pkg["files"]
        try:
            built.append(build_package(pkg, doc, work, logs, a.jobs, a.timeout))
            e["status"] = "built"
        except Refused as err:
            prog.clear()
            print(f"build-benchmark-corpus: {err}", file=sys.stderr)
            return 1
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as err:
            prog.clear()
            e["status"] = "failed"
            e["error"] = str(err)
            print(f"build-benchmark-corpus: {pkg['name']} failed to build: {err} "
                  f"(log: {os.path.join(out, 'logs', pkg['name'] + '.log')})", file=sys.stderr)
        e["seconds"] = round(time.monotonic() - t0, 1)
        entries.append(e)
        prog.done += 1
    prog.clear()
    if not built:
        print("build-benchmark-corpus: no package built", file=sys.stderr)
        return 1
    # One extraction over every package: module names are PACKAGE/PATH.o.
    r = subprocess.run([a.ir2vec, "corpus", "extract", "-j", str(a.jobs), "-o", staged,
                        "--obj-base-dir", os.path.join(work, "build")] + built,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    with open(os.path.join(logs, "extract.log"), "w") as f:
        f.write(r.stdout + r.stderr)
    if r.returncode not in (0, 2):
        print(f"build-benchmark-corpus: corpus extract failed:\n{r.stderr}", file=sys.stderr)
        return 1
    with open(os.path.join(staged, "corpus_description.json")) as f:
        modules = json.load(f)["modules"]
    counts = {}
    for m in modules:
        counts[m.split("/", 1)[0]] = counts.get(m.split("/", 1)[0], 0) + 1
    for e in entries:
        e["modules"] = counts.get(e["name"], 0)
        if e["status"] == "built" and e["modules"] == 0:
            e["status"], e["error"] = "failed", "no object with embedded bitcode"
    failed = [e["name"] for e in entries if e["status"] != "built"]
    manifest = {
        "schema": SCHEMA,
        "list": os.path.relpath(a.list, REPO) if a.list.startswith(REPO) else a.list,
        "list_sha256": digest,
        "compiler": {k: tool_version(v) for k, v in doc["compiler"].items()},
        "flags": doc["flags"],
        "packages": entries,
        "built": len(entries) - len(failed),
        "failed": failed,
        "modules": len(modules),
        "cxx_packages": sum(1 for e in entries if e["status"] == "built" and e["language"] == "c++"),
        "seconds": round(time.time() - start, 1),
    }
    with open(os.path.join(staged, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    shutil.move(logs, os.path.join(staged, "logs"))
    if os.path.exists(out):
        shutil.rmtree(out)
    os.rename(staged, out)
    print(f"build-benchmark-corpus: {len(modules)} modules of {manifest['built']} packages "
          f"({manifest['cxx_packages']} C++) in {out}, {manifest['seconds']} s"
          + (f"; failed: {', '.join(failed)}" if failed else ""), file=sys.stderr)
    return 2 if failed else 0


if __name__ == "__main__":
    import signal

    def stop(signum, frame):
        # SIGTERM and SIGHUP end the run as SIGINT does: the work directory is removed.
        raise KeyboardInterrupt

    for sig in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) != signal.SIG_IGN:
            signal.signal(sig, stop)
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
