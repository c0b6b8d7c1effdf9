#!/usr/bin/env python3
"""Self-test of check_layers.py: a small tree and manifest per defect, each of which it must report."""
import os
import subprocess
import sys
import tempfile

CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_layers.py")


def run(files, lines):
    with tempfile.TemporaryDirectory() as root:
        for path, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), "w") as f:
                f.write(text)
        manifest = os.path.join(root, "manifest.txt")
        with open(manifest, "w") as f:
            for fields in lines:
                f.write("|".join(fields).replace("{root}", root) + "\n")
        r = subprocess.run([sys.executable, CHECK, manifest, root], capture_output=True, text=True)
        return r.returncode, r.stdout


def target(name, folder, sources, iface, links, iface_dirs=""):
    return [name, "{root}/" + folder.split("/")[0], folder, sources, iface, links, iface_dirs]


CLEAN = {
    "lib/a.hpp": '#pragma once\n#include <string>\n',
    "lib/a.cpp": '#include "lib/a.hpp"\n#include <nlohmann/json.hpp>\n',
    "lib/internal/tree.hpp": '#pragma once\n#include <nlohmann/json.hpp>\n',
}
LIB = target("lib", "lib", "a.cpp", "$<LINK_ONLY:nlohmann_json::nlohmann_json>", "nlohmann_json::nlohmann_json")

cases = []
code, out = run(CLEAN, [LIB])
cases.append(("a clean tree passes", code == 0 and "0 problems" in out, out))

files = dict(CLEAN, **{"lib/b.hpp": '#pragma once\n#include "lib/internal/tree.hpp"\n'})
code, out = run(files, [LIB])
cases.append(("a public header reaching a private library through an internal one fails",
              code == 1 and "lib/b.hpp: includes <nlohmann/json.hpp> via lib/internal/tree.hpp" in out, out))

code, out = run(CLEAN, [target("lib", "lib", "a.cpp", "", "")])
cases.append(("a source including a library its target does not link fails",
              code == 1 and "lib/a.cpp: includes <nlohmann/json.hpp>, but its target lib does not link" in out, out))

code, out = run(CLEAN, [target("lib", "lib", "a.cpp", "$<LINK_ONLY:nlohmann_json::nlohmann_json>",
                               "nlohmann_json::nlohmann_json", "$<BUILD_INTERFACE:{root}>")])
cases.append(("a target publishing the repository root fails", code == 1 and "lib: publishes the repository root" in out,
              out))

user = {"app/main.cpp": '#include "lib/internal/tree.hpp"\n'}
code, out = run(dict(CLEAN, **user), [LIB, target("app", "app", "main.cpp", "", "lib")])
cases.append(("a user of an internal header that does not link its library fails",
              code == 1 and "app/main.cpp: includes <nlohmann/json.hpp> via lib/internal/tree.hpp" in out, out))

code, out = run(dict(CLEAN, **user), [LIB, target("app", "app", "main.cpp", "", "lib\tnlohmann_json::nlohmann_json")])
cases.append(("the same user linking the library passes", code == 0, out))

failed = [c for c in cases if not c[1]]
for name, ok, out in cases:
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else "\n" + out))
sys.exit(1 if failed else 0)
