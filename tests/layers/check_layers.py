#!/usr/bin/env python3
"""Layer-include check: every product target's files include only libraries the target links.

Reads build/layers/manifest.txt (written at configure time by cmake/Layers.cmake) and, for each target:
  - its PUBLIC include directories never hold the repository root (a target exposes its own folder only);
  - every header of a folder it exposes (shardscope_expose_folder), other than those under internal/, reaches
    (through the repository's own headers it includes) only third-party libraries the target links PUBLIC or
    INTERFACE, so whoever includes it has them;
  - every source it compiles, and the header beside it, reaches only libraries it links at all.
A failure names the file, the include and the target. Usage: check_layers.py MANIFEST REPOSITORY_ROOT
"""
import os
import re
import sys

# The first path part of a third-party include -> the CMake link name (or prefix, ending in "::") it needs.
LIBRARIES = [
    (re.compile(r"^yaml-cpp/"), "yaml-cpp"),
    (re.compile(r"^nlohmann/"), "nlohmann_json::nlohmann_json"),
    (re.compile(r"^(simgrid/|simgrid\.h|xbt/|xbt\.h)"), "PkgConfig::SIMGRID"),
    (re.compile(r"^Q[A-Za-z0-9]*(/|$)"), "Qt6::"),
    (re.compile(r"^(Eigen/|unsupported/Eigen/)"), "Eigen3::Eigen"),
    (re.compile(r"^mpi\.h$"), "MPI::"),
    (re.compile(r"^(cuda|cublas|cuda_runtime|driver_types)[A-Za-z0-9_]*\.h$"), "CUDA::"),
    (re.compile(r"^nccl\.h$"), "shardscope_nccl"),
    (re.compile(r"^CLI/"), "CLI11::CLI11"),
    (re.compile(r"^zlib\.h$"), "ZLIB::ZLIB"),
    (re.compile(r"^(gtest|gmock)/"), "GTest::"),
    (re.compile(r"^benchmark/"), "benchmark::"),
]
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
GENEX = re.compile(r"^\$<(LINK_ONLY|BUILD_INTERFACE):(.*)>$")


def unwrap(item):
    """(name, private) for one raw property item: $<LINK_ONLY:x> is private, $<BUILD_INTERFACE:x> is x."""
    m = GENEX.match(item)
    if not m:
        return item, False
    return m.group(2), m.group(1) == "LINK_ONLY"


class Tree:
    def __init__(self, root, search_dirs):
        self.root = root
        self.search_dirs = search_dirs
        self.cache = {}

    def resolve(self, including, name):
        for base in [os.path.dirname(including), self.root] + self.search_dirs:
            path = os.path.normpath(os.path.join(base, name))
            if os.path.isfile(path):
                return path
        return None  # a generated or system header

    def third_party(self, path):
        """{library include -> chain of files} reached from `path` through the repository's own headers."""
        if path in self.cache:
            return self.cache[path]
        self.cache[path] = {}
        found = {}
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        for kind, name in INCLUDE.findall(text):
            own = self.resolve(path, name) if kind == '"' else None
            if own and own.startswith(self.root + os.sep):
                for lib, chain in self.third_party(own).items():
                    found.setdefault(lib, [os.path.relpath(own, self.root)] + chain)
            elif any(p.match(name) for p, _ in LIBRARIES):
                found.setdefault(name, [])
        self.cache[path] = found
        return found


def library_of(include):
    for pattern, lib in LIBRARIES:
        if pattern.match(include):
            return lib
    return None


def satisfied(lib, links):
    return any(l == lib or (lib.endswith("::") and l.startswith(lib)) for l in links)


def main(manifest_path, root):
    root = os.path.realpath(root)
    targets = {}
    with open(manifest_path, encoding="utf-8") as f:
        for line in f:
            fields = line.rstrip("\n").split("|")
            if len(fields) != 7:
                continue
            name, source_dir, folders, sources, iface, links, iface_dirs = fields
            split = lambda s: [x for x in s.split("\t") if x]
            targets[name] = dict(dir=os.path.realpath(source_dir), folders=split(folders), sources=split(sources),
                                 iface=[unwrap(x) for x in split(iface)], links=[unwrap(x)[0] for x in split(links)],
                                 iface_dirs=[unwrap(x)[0] for x in split(iface_dirs)])
    if not targets:
        print(f"{manifest_path}: no targets; expected the manifest cmake/Layers.cmake writes")
        return 1

    def own(name):
        alias = name.replace("::", "_")
        return name if name in targets else alias if alias in targets else None

    def interface_closure(name, seen=None):
        seen = set() if seen is None else seen
        out = set()
        for dep, private in targets[name]["iface"]:
            if private or dep in seen:
                continue
            seen.add(dep)
            out.add(dep)
            if own(dep):
                out |= interface_closure(own(dep), seen)
        return out

    def full_closure(name):
        out = set()
        for dep in targets[name]["links"]:
            out.add(dep)
            if own(dep):
                out |= interface_closure(own(dep))
        return out

    tree = Tree(root, [os.path.join(root, "gui"), os.path.join(root, "gui", "app")])
    failures = []

    def check(target, path, links, what):
        for include, chain in sorted(tree.third_party(path).items()):
            lib = library_of(include)
            if lib and not satisfied(lib, links):
                via = "".join(f" via {c}" for c in chain)
                failures.append(f"{os.path.relpath(path, root)}: includes <{include}>{via}, but {what} "
                                f"{target} does not link {lib.rstrip(':')}")

    for name, t in sorted(targets.items()):
        for d in t["iface_dirs"]:
            if os.path.realpath(d) == root:
                failures.append(f"{name}: publishes the repository root as an include directory; expose its own "
                                f"folder with shardscope_expose_folder (cmake/Layers.cmake)")
        public = interface_closure(name)
        for folder in t["folders"]:
            for dirpath, _, files in os.walk(os.path.join(root, folder)):
                if "internal" in os.path.relpath(dirpath, root).split(os.sep):
                    continue
                for f in sorted(files):
                    if f.endswith(".hpp"):
                        check(name, os.path.join(dirpath, f), public, "the public header's target")
        everything = full_closure(name)
        for s in t["sources"]:
            path = s if os.path.isabs(s) else os.path.join(t["dir"], s)
            path = os.path.realpath(path)
            if not path.startswith(root + os.sep) or not os.path.isfile(path):
                continue  # generated
            check(name, path, everything, "its target")
            header = os.path.splitext(path)[0] + ".hpp"
            if os.path.isfile(header):
                check(name, header, everything, "its target")
    for line in sorted(set(failures)):
        print(line)
    checked = sum(1 for _ in targets)
    print(f"{checked} targets checked, {len(set(failures))} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print("usage: check_layers.py MANIFEST REPOSITORY_ROOT", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
