#!/usr/bin/env python3
"""OSDP against the best pure strategy (DP, FSDP, Megatron-style TP with DDP), per setting and family.

Reads docs/figures/osdp-{8,16}gpu.csv and osdp-{8,16}gpu-tp.csv (scripts/reproduce-papers.sh writes them)
and prints the Markdown table of docs/reproducing-papers.md ("Against the best pure strategy").
Usage: scripts/osdp-pure-table.py [figures-dir] > table.md
       scripts/osdp-pure-table.py --check DOC [figures-dir]   (exit 1 unless every line of the table is in DOC)
"""
import csv
import pathlib
import sys

root = pathlib.Path(__file__).resolve().parent.parent
arguments = sys.argv[1:]
check = pathlib.Path(arguments.pop(1)) if arguments[:1] == ["--check"] and len(arguments) > 1 else None
arguments = arguments[1:] if check else arguments
figures = pathlib.Path(arguments[0]) if arguments else root / "docs/figures"
FAMILIES = {"nd": "N&D", "ws": "W&S", "ic": "I&C"}


def samples_per_second(row, strategy):
    """The strategy's predicted samples/s at its best batch, or None where it does not fit."""
    if row.get(strategy + ".fits") != "true":
        return None
    return float(row[strategy + ".samples_per_second"])


def rows(name):
    with open(figures / name, newline="") as f:
        return list(csv.DictReader(f))


def points(gpus):
    """Per (memory limit, model): OSDP, the pure strategies that fit, and the best TP x OSDP mesh."""
    meshes = {}
    for row in rows(f"osdp-{gpus}gpu-tp.csv"):
        meshes.setdefault((row["training.memory_limit"], row["model"]), []).append(row)
    out = []
    for row in rows(f"osdp-{gpus}gpu.csv"):
        key = (row["training.memory_limit"], row["model"])
        if key[1][:2] not in FAMILIES:
            continue
        pure = {"DP": samples_per_second(row, "ddp"), "FSDP": samples_per_second(row, "fsdp")}
        hybrid = [samples_per_second(row, "osdp")]
        for mesh in meshes.get(key, []):
            degree = mesh["parallelism.tensor"]
            pure[f"TP {degree}"] = samples_per_second(mesh, "ddp")
            hybrid.append(samples_per_second(mesh, "osdp"))
        fitting = {name: value for name, value in pure.items() if value is not None}
        best = max(fitting.items(), key=lambda item: item[1]) if fitting else None
        hybrid = [value for value in hybrid if value is not None]
        out.append({"family": FAMILIES[key[1][:2]], "limit": key[0], "model": key[1],
                    "osdp": samples_per_second(row, "osdp"), "best": best,
                    "hybrid": max(hybrid) if hybrid else None})
    return out


def gain_text(gains):
    if not gains:
        return "no point where both fit"
    return "max %+.0f %%, average %+.0f %% (%d points)" % (max(gains), sum(gains) / len(gains), len(gains))


def table_lines():
    yield ("| setting | family | OSDP over the best pure strategy | pure TP fastest (OSDP's loss) "
           "| only a pure TP fits | TP x OSDP over the best pure strategy |")
    yield "|---|---|---|---|---|---|"
    for gpus in (8, 16):
        every = points(gpus)
        for family in FAMILIES.values():
            mine = [p for p in every if p["family"] == family]
            gains = [100 * (p["osdp"] / p["best"][1] - 1) for p in mine if p["osdp"] and p["best"]]
            tp_wins = ["%s %s (%s, %+.0f %%)" % (p["model"], p["limit"], p["best"][0],
                                                 100 * (p["osdp"] / p["best"][1] - 1))
                       for p in mine if p["osdp"] and p["best"] and p["best"][0].startswith("TP")
                       and p["best"][1] > p["osdp"]]
            only_tp = ["%s %s" % (p["model"], p["limit"]) for p in mine
                       if not p["osdp"] and p["best"] and p["best"][0].startswith("TP")]
            hybrid = [100 * (p["hybrid"] / p["best"][1] - 1) for p in mine if p["hybrid"] and p["best"]]
            yield "| %d GPUs | %s | %s | %s | %s | %s |" % (
                gpus, family, gain_text(gains), ", ".join(tp_wins) or "none", ", ".join(only_tp) or "none",
                gain_text(hybrid))


def main():
    if check is None:
        for line in table_lines():
            print(line)
        return 0
    shown = set(check.read_text().splitlines())
    missing = [line for line in table_lines() if line not in shown]
    for line in missing:
        print(f"{check}: the table line is not shown (rerun scripts/osdp-pure-table.py): {line}")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
